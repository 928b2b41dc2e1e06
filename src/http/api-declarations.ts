import { createRoute, z } from '@hono/zod-openapi';
import {
  auditSchema,
  citableIndexSchema,
  compareSchema,
  cslJsonSchema,
  featuredSchema,
  freshnessSchema,
  statSchema,
} from '../core/api-schemas.ts';
import { CITE_CONTENT_TYPES, CITE_FORMATS } from '../core/citations.ts';
import {
  DAY_RE,
  dateQuery,
  dimensionQueries,
  errorResponse,
  jsonResponse,
  refTo,
  type StringSchema,
  slugPath,
  textResponse,
  withCommon,
} from './route-docs.ts';

/**
 * The JSON API's views, each declared once: path, operationId, parameters (validated by
 * src/http/route-kit.ts) and responses (the document). Handlers live in the *-routes modules.
 */

export const citableRoute = createRoute({
  method: 'get',
  path: '/api/citable',
  operationId: 'list_benchmarks',
  summary: 'Flat index of every benchmark',
  responses: withCommon({
    200: jsonResponse('The live index.', citableIndexSchema),
    503: errorResponse('Benchmarks temporarily unavailable.'),
  }),
});

export const citableDayRoute = createRoute({
  method: 'get',
  path: '/api/citable/{date}',
  operationId: 'list_benchmarks_snapshot',
  summary: 'Immutable per-day snapshot of the index',
  request: {
    params: z.object({
      date: z
        .string()
        .regex(DAY_RE)
        .openapi({ param: { description: 'UTC calendar day, YYYY-MM-DD.' } }),
    }),
  },
  responses: withCommon({
    200: jsonResponse('The index frozen at the end of that day (today: the live index).', citableIndexSchema),
    400: errorResponse('Malformed, impossible, future, or before the first snapshot.'),
    404: errorResponse('A closed day not frozen yet (days are frozen 10 minutes after 00:00 UTC).'),
    503: errorResponse(
      'Benchmarks temporarily unavailable, or a closed day past its 10-minute grace whose freeze failed and is being retried (Retry-After).',
    ),
  }),
});

export const statRoute = createRoute({
  method: 'get',
  path: '/api/stat/{slug}',
  operationId: 'get_benchmark',
  summary: 'One benchmark, optionally narrowed by dimension',
  request: {
    params: z.object({ slug: slugPath }),
    query: z.object({
      ...dimensionQueries(),
      date: dateQuery(
        "A closed UTC day: the unfiltered Stat frozen with that day's snapshot, byte-identical forever.",
      ),
    }),
  },
  responses: withCommon({
    200: jsonResponse('The full benchmark record.', statSchema),
    400: errorResponse(
      'Malformed slug, a repeated or over-long query parameter, a bad date, or a date with filters.',
    ),
    404: errorResponse('Unknown slug or dimension value, or a day without a frozen snapshot.'),
    503: errorResponse(
      'Benchmarks temporarily unavailable, or a closed day past its 10-minute grace whose freeze failed and is being retried (Retry-After).',
    ),
  }),
});

export const compareRoute = createRoute({
  method: 'get',
  path: '/api/compare/{a}/{b}',
  operationId: 'compare_providers',
  summary: 'Two providers head to head',
  request: {
    params: z.object({ a: slugPath, b: slugPath }),
    query: z.object({
      date: dateQuery(
        "A closed UTC day: the rows of that day's frozen Stats (immutable, X-Snapshot-Date; unfiltered: no dimension with it).",
      ),
      ...dimensionQueries(),
    }),
  },
  responses: withCommon({
    200: jsonResponse(
      'Every benchmark where both appear; with filters, those declaring every filtered dimension, each under them.',
      compareSchema,
    ),
    400: errorResponse('Malformed slugs, a and b identical, a bad date, or a date with filters.'),
    404: errorResponse(
      'Unknown provider, no shared benchmark, no shared benchmark declaring a filtered dimension or a value it does not have, or a day without a frozen snapshot.',
    ),
    503: errorResponse(
      'Benchmarks temporarily unavailable, or a closed day past its grace whose freeze failed and is being retried (Retry-After).',
    ),
  }),
});

export const auditRoute = createRoute({
  method: 'get',
  path: '/api/audit/{slug}/{provider}',
  operationId: 'audit_provider',
  summary: "The raw measurements behind a provider's row",
  request: {
    params: z.object({ slug: slugPath, provider: slugPath }),
    query: z.object({
      date: dateQuery(
        'A closed UTC day: the audit frozen with that day, byte-identical forever (unfiltered; with window=24h the window of its frozen Stat).',
      ),
      window: z
        .enum(['24h'])
        .optional()
        .openapi({
          param: {
            description:
              "Window-mode benchmarks: every (cycle, cell) of the Stat's window (entries), so the ranking row can be recomputed from one answer.",
          },
        }),
      ...dimensionQueries(),
    }),
  },
  responses: withCommon({
    200: jsonResponse(
      'Networks counted, per-token counts of the latest cycle, or (window=24h) every cycle and cell of the window.',
      auditSchema,
    ),
    400: errorResponse(
      "Malformed slug, a window other than the Stat's or on a latest-mode benchmark, or a dimension filter without window.",
    ),
    404: errorResponse(
      'Unknown benchmark or dimension value, a provider the benchmark does not measure, or a day not frozen (today, or inside its grace).',
    ),
    503: errorResponse(
      'Benchmarks temporarily unavailable, or a closed day past its 10-minute grace whose freeze failed and is being retried (Retry-After).',
    ),
  }),
});

/** Media types of the citation formats, CSL-JSON with its real schema, the others text. */
const citeContent = () => {
  const content: Record<string, { schema: { $ref: string } | StringSchema }> = {};
  for (const f of CITE_FORMATS) {
    const type = CITE_CONTENT_TYPES[f].split(';')[0] as string;
    content[type] = { schema: f === 'csl' ? refTo(cslJsonSchema) : { type: 'string' } };
  }
  return content;
};

export const citeRoute = createRoute({
  method: 'get',
  path: '/api/cite/{slug}/{format}',
  summary: 'Citation file',
  request: {
    params: z.object({ slug: slugPath, format: z.enum(CITE_FORMATS) }),
    query: z.object({
      date: dateQuery(
        "A closed UTC day: the citation of that day's frozen value (immutable, unfiltered: no dimension with it).",
      ),
      ...dimensionQueries(),
    }),
  },
  responses: withCommon({
    200: {
      description:
        'Citation record: of the Stat with the same filters (the record its `cite` holds, its pageUrl with them), or of a frozen day.',
      content: citeContent(),
    },
    400: errorResponse('Malformed slug, unknown format, bad date, or a date with filters.'),
    404: errorResponse(
      'Unknown slug, a dimension the benchmark lacks or a value it does not have, or a day without a frozen snapshot.',
    ),
    503: errorResponse(
      'Benchmarks temporarily unavailable, or a closed day past its 10-minute grace whose freeze failed and is being retried (Retry-After).',
    ),
  }),
});

export const llmContextRoute = createRoute({
  method: 'get',
  path: '/api/llm-context',
  summary: 'Every benchmark as one Markdown document',
  responses: withCommon({
    200: textResponse('Markdown.', ['text/markdown']),
    503: errorResponse('Benchmarks temporarily unavailable.'),
  }),
});

export const freshnessRoute = createRoute({
  method: 'get',
  path: '/api/freshness',
  operationId: 'get_freshness',
  summary: 'Newest sample time and status per benchmark',
  responses: withCommon({
    200: jsonResponse(
      'Epoch milliseconds per slug with data, and stale/draft status for every slug.',
      freshnessSchema,
    ),
  }),
});

export const featuredRoute = createRoute({
  method: 'get',
  path: '/api/search/featured',
  operationId: 'get_featured_leaders',
  summary: 'Live leaders and trending benchmarks',
  responses: withCommon({ 200: jsonResponse('Compact cards.', featuredSchema) }),
});
