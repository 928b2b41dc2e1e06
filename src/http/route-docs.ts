import { type RouteConfig, z } from '@hono/zod-openapi';
import { errorSchema } from '../core/api-schemas.ts';
import { SLUG_RE } from '../core/spec-schema.ts';

/**
 * Building blocks of the route declarations: parameter schemas (validated and documented) and
 * response entries. Response bodies reference the components generated from the zod schemas of
 * src/core/api-schemas.ts (by their registered id), so the document keeps zod's own JSON Schema.
 */

type ResponseEntry = RouteConfig['responses'][string];

/** A body of text or bytes, documented as a string (of a media type when it is binary). */
export type StringSchema = { type: 'string'; contentMediaType?: string };

/** `#/components/schemas/<id>` of a zod schema registered with `.meta({ id })`. */
export function refTo(schema: z.ZodType): { $ref: string } {
  const id = z.globalRegistry.get(schema)?.id;
  if (!id) throw new Error('response schema without an id: give it .meta({ id })');
  return { $ref: `#/components/schemas/${id}` };
}

export function jsonResponse(description: string, schema: z.ZodType) {
  return { description, content: { 'application/json': { schema: refTo(schema) } } };
}

export const errorResponse = (description: string) => jsonResponse(description, errorSchema);

/** A response whose body is text or bytes of one media type (no JSON to validate). */
export function textResponse(
  description: string,
  mediaTypes: readonly string[],
  extra: { contentMediaType?: string } = {},
) {
  const schema: StringSchema = { type: 'string', ...extra };
  return { description, content: Object.fromEntries(mediaTypes.map((t) => [t, { schema }])) };
}

/**
 * What every route answers before the service is ready (src/http/starting.ts): from the moment the
 * port is bound until the first views can be served (the demo's backfill, the first freeze).
 */
export const STARTING_503 =
  'Or the service is starting (error `starting`, Retry-After): every route answers so until its first views can be served.';

/**
 * Answers every GET route can give besides its own: 304 to a matching If-None-Match, 405 to other
 * methods, 503 while the store cannot be read or the service is starting.
 */
const COMMON_RESPONSES = {
  304: { description: 'Not modified: If-None-Match matched the ETag (no body).' },
  405: errorResponse('Method not allowed: use GET or HEAD.'),
  413: errorResponse('A request body (GET takes none) over 16 KiB, or a chunked one.'),
  431: { description: 'Request headers over 16 KiB or over 100 headers (no body).' },
  503: errorResponse(
    `Temporarily unavailable, with Retry-After: the store cannot be read (benchmarks_unavailable, engine_unavailable); or, on a route whose requests wait in their class's queue (images, series, dataset files, frozen days, audits, compare, pages, /metrics), that queue is full (busy); or an image's render queue is full or it needs a Stat computed while the server is saturated (render_busy). ${STARTING_503}`,
  ),
};

/**
 * A GET route's own responses over the common ones (its own win: a route may say more about 503,
 * and the start-up 503 is added to what it says).
 */
export function withCommon<R extends Record<number, ResponseEntry>>(own: R): typeof COMMON_RESPONSES & R {
  const own503 = (own as Record<number, ResponseEntry | undefined>)[503];
  const starting =
    own503 === undefined || !('description' in own503)
      ? {}
      : { 503: { ...own503, description: `${own503.description} ${STARTING_503}` } };
  const own400 = (own as Record<number, ResponseEntry | undefined>)[400];
  const unsupported =
    own400 === undefined || !('description' in own400)
      ? { 400: errorResponse(UNSUPPORTED_400) }
      : { 400: { ...own400, description: `${own400.description} ${UNSUPPORTED_400}` } };
  return { ...COMMON_RESPONSES, ...own, ...starting, ...unsupported };
}

/** Every route refuses a query name it does not declare (src/http/route-kit.ts), never ignores it. */
const UNSUPPORTED_400 =
  'Or a query parameter this route does not declare (unsupported_parameter): the message names the ones it takes.';

/** A benchmark or provider slug in the path. */
export const slugPath = z.string().regex(SLUG_RE);

/** YYYY-MM-DD: the shape parseDay accepts before it checks the calendar. */
export const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;

export const dateQuery = (description: string) =>
  z.string().regex(DAY_RE).optional().openapi({ param: { description } });

export const dimQuery = (name: string) =>
  z
    .string()
    .optional()
    .openapi({
      param: {
        description: `Restrict the view to this ${name} value (only when the benchmark declares the dimension).`,
      },
    });

/** The four dimension filters, in the order the document lists them. */
export const dimensionQueries = () => ({
  chain: dimQuery('chain'),
  region: dimQuery('region'),
  kind: dimQuery('kind'),
  venue: dimQuery('venue'),
});

/** Plain text of a hidden route (pages, probes): documented for readers of the declaration only. */
export const HTML = ['text/html'] as const;
