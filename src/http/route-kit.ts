import { OpenAPIHono, type RouteConfig } from '@hono/zod-openapi';
import type { Context, Hono } from 'hono';
import type { z } from 'zod';
import { escapeRegex } from '../core/samples.ts';
import { MAX_QUERY_STRING, MAX_QUERY_VALUE } from './query.ts';
import { sendError } from './respond.ts';

/**
 * Mounting a declared route: one `createRoute` object gives the router its path, the validator its
 * parameter schemas and /api/openapi.json its operation. The validator is ours, not the library's
 * zValidator: that one is async (every cached answer would become a promise), checks the query
 * before the path, and cannot give today's 400 bodies (repeated and over-long parameters).
 */

type Shape = z.ZodObject<z.ZodRawShape>;

/** What a request got wrong, in the order today's handlers check it: path, then query reading, then values. */
export type Violation =
  | { readonly kind: 'path'; readonly name: string; readonly value: string }
  | { readonly kind: 'query_too_long' }
  | {
      readonly kind: 'unknown';
      readonly name: string;
      readonly supported: readonly string[];
      /** The benchmark's dimensions, on a route that is one benchmark's view (openRoute's dimensionsOf). */
      readonly dimensions?: readonly string[];
    }
  | { readonly kind: 'repeated'; readonly name: string; readonly count: number }
  | { readonly kind: 'too_long'; readonly name: string; readonly max: number }
  | { readonly kind: 'value'; readonly name: string; readonly raw: RawQuery };

export type RawQuery = Readonly<Record<string, string | undefined>>;

export interface RouteInput<P, Q> {
  readonly params: P;
  readonly query: Q;
  /** The query values as given (before defaults and transforms), for errors that echo them. */
  readonly raw: RawQuery;
}

type RequestOf<R> = R extends { request?: infer Req } ? Req : undefined;
type ParamsOf<R> =
  RequestOf<R> extends { params: infer P extends z.ZodType } ? z.output<P> : Record<string, never>;
type QueryOf<R> =
  RequestOf<R> extends { query: infer Q extends z.ZodType } ? z.output<Q> : Record<string, never>;

export type Handler<R extends RouteConfig> = (
  c: Context,
  input: RouteInput<ParamsOf<R>, QueryOf<R>>,
) => Response | Promise<Response>;

/**
 * Answers a violation. `params` are the decoded path parameters (valid ones only when the
 * violation is in the query), so a route can say "unknown benchmark" before "bad query" as before.
 */
export type InvalidHook = (
  c: Context,
  v: Violation,
  params: Readonly<Record<string, string>>,
) => Response | Promise<Response>;

export const SLUG_PATTERN_TEXT = '^[a-z0-9][a-z0-9-]{0,79}$';

/**
 * Names a shared link carries that say nothing to a page (campaign tags, referrers): a page
 * ignores them, every other route refuses them like any name it does not declare.
 */
export function isSharedLinkParam(name: string): boolean {
  return name.startsWith('utm_') || name === 'fbclid' || name === 'ref';
}

/** The 400 of an undeclared name: what the route takes instead, and the benchmark's dimensions. */
function unknownMessage(v: Extract<Violation, { kind: 'unknown' }>) {
  const dimensions = v.dimensions;
  const takes = v.supported.length ? `it takes ${v.supported.join(', ')}` : 'it takes no query parameters';
  const dims =
    dimensions === undefined
      ? ''
      : dimensions.length
        ? ` (this benchmark's dimensions: ${dimensions.join(', ')})`
        : ' (this benchmark has no dimensions)';
  return `"${v.name.slice(0, MAX_QUERY_VALUE)}" is not a parameter of this route; ${takes}${dims}.`;
}

/** The generic error of a violation: a malformed slug, an undeclared, repeated or over-long parameter. */
export function describeViolation(v: Violation): { error: string; message: string } {
  switch (v.kind) {
    case 'unknown':
      return { error: 'unsupported_parameter', message: unknownMessage(v) };
    case 'path':
      return {
        error: 'bad_slug',
        message: `"${v.value.slice(0, 100)}" is not a valid slug (${SLUG_PATTERN_TEXT}).`,
      };
    case 'query_too_long':
      return {
        error: 'bad_query',
        message: `The query string is longer than ${MAX_QUERY_STRING} characters.`,
      };
    case 'repeated':
      return { error: 'repeated_parameter', message: `"${v.name}" is given ${v.count} times; give it once.` };
    case 'too_long':
      return { error: 'bad_query', message: `"${v.name}" is longer than ${v.max} characters.` };
    case 'value':
      return { error: 'bad_query', message: `"${v.name}" has a value this route does not accept.` };
  }
}

/** The generic answer: a 400 with describeViolation's error. */
export const defaultInvalid: InvalidHook = (c, v) => {
  const d = describeViolation(v);
  return sendError(c, 400, d.error, d.message);
};

type QueryCheck =
  | { ok: true; query: Record<string, unknown>; raw: RawQuery }
  | { ok: false; violation: Violation };

/** A parameter's longest accepted value: its schema's maxLength, else the shared bound. */
function maxLengthOf(schema: z.ZodType): number {
  const max = (schema as { maxLength?: number | null }).maxLength;
  return typeof max === 'number' ? max : MAX_QUERY_VALUE;
}

/** The first name of the query the route does not declare (none: undefined). */
function undeclared(params: URLSearchParams, shape: z.ZodRawShape, sharedLinks: boolean): string | undefined {
  for (const name of params.keys()) {
    if (Object.hasOwn(shape, name)) continue;
    if (sharedLinks && isSharedLinkParam(name)) continue;
    return name;
  }
  return undefined;
}

/**
 * Reads and validates a query string against the declared query schema (pure: memoized per
 * string). A name the route does not declare is refused, never dropped: an answer that ignored
 * `?date=` or a filter would be the live, unfiltered answer to a dated or filtered question.
 */
function checkQuery(qs: string, shape: z.ZodRawShape, sharedLinks: boolean): QueryCheck {
  if (qs.length + 1 > MAX_QUERY_STRING) return { ok: false, violation: { kind: 'query_too_long' } };
  const params = new URLSearchParams(qs);
  const stray = undeclared(params, shape, sharedLinks);
  if (stray !== undefined) {
    return { ok: false, violation: { kind: 'unknown', name: stray, supported: Object.keys(shape) } };
  }
  const raw: Record<string, string | undefined> = {};
  // Every parameter is read (once, bounded) before any value is judged, as readQuery did.
  for (const [name, schema] of Object.entries(shape)) {
    const all = params.getAll(name);
    if (all.length === 0) continue;
    if (all.length > 1) return { ok: false, violation: { kind: 'repeated', name, count: all.length } };
    const v = all[0] as string;
    const max = maxLengthOf(schema as z.ZodType);
    if (v.length > max) return { ok: false, violation: { kind: 'too_long', name, max } };
    raw[name] = v;
  }
  const query: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(shape)) {
    const r = (schema as z.ZodType).safeParse(raw[name]);
    if (!r.success) return { ok: false, violation: { kind: 'value', name, raw } };
    if (r.data !== undefined) query[name] = r.data;
  }
  return { ok: true, query, raw };
}

const NO_SHAPE: z.ZodRawShape = Object.freeze({});

/** The validator of one route: synchronous, and the query part memoized by its exact string. */
function compile(route: RouteConfig, sharedLinks: boolean) {
  const params = (route.request?.params as Shape | undefined)?.shape;
  // A route that declares no query still reads one: to refuse what it would otherwise ignore.
  const queryShape = (route.request?.query as Shape | undefined)?.shape ?? NO_SHAPE;
  const pathParams = Object.entries(params ?? {}) as [string, z.ZodType][];
  const suffixes = paramSuffixes(route.path);
  const memo = new Map<string, QueryCheck>();
  const empty = checkQuery('', queryShape, sharedLinks);
  return (
    c: Context,
  ):
    | { ok: true; input: RouteInput<Record<string, string>, Record<string, unknown>> }
    | { ok: false; v: Violation; p: Record<string, string> } => {
    const p: Record<string, string> = {};
    for (const [name, schema] of pathParams) {
      const whole = c.req.param(name) as string;
      const suffix = suffixes.get(name) ?? '';
      const value = suffix !== '' && whole.endsWith(suffix) ? whole.slice(0, -suffix.length) : whole;
      const r = schema.safeParse(value);
      if (!r.success) return { ok: false, v: { kind: 'path', name, value }, p };
      p[name] = value;
    }
    const url = c.req.url;
    const at = url.indexOf('?');
    let q = empty;
    if (at !== -1) {
      const qs = url.slice(at + 1);
      const known = memo.get(qs);
      if (known) q = known;
      else {
        q = checkQuery(qs, queryShape, sharedLinks);
        // Keys are bounded (1 KiB) and so is the map: a flood of distinct queries only resets it.
        if (qs.length < MAX_QUERY_STRING) {
          if (memo.size >= 2000) memo.clear();
          memo.set(qs, q);
        }
      }
    }
    if (!q.ok) return { ok: false, v: q.violation, p };
    return { ok: true, input: { params: p, query: q.query, raw: q.raw } };
  };
}

/**
 * Mounts one declared route: validator, then handler; registered in the app's OpenAPI registry
 * unless `hidden` (pages, probes: named by the route-table test's explicit list instead). A plain
 * Hono (a bench or a test mounting one module) routes and validates alike, without a document.
 */
export function openRoute<R extends RouteConfig>(
  app: Hono,
  route: R,
  handler: Handler<R>,
  opts: {
    onInvalid?: InvalidHook;
    hidden?: boolean;
    /** A page: the names of shared links (isSharedLinkParam) are ignored, not refused. */
    sharedLinks?: boolean;
    /** The dimensions of the benchmark `{slug}` names: an undeclared name's 400 lists them. */
    dimensionsOf?: (slug: string) => readonly string[] | undefined;
  } = {},
): void {
  if (!opts.hidden && app instanceof OpenAPIHono) app.openAPIRegistry.registerPath(route);
  const check = compile(route, opts.sharedLinks === true);
  const onInvalid = opts.onInvalid ?? defaultInvalid;
  const run = handler as (
    c: Context,
    input: RouteInput<Record<string, string>, Record<string, unknown>>,
  ) => Response | Promise<Response>;
  app.on(route.method.toUpperCase(), routingPath(route.path), (c) => {
    const r = check(c);
    if (r.ok) return run(c, r.input);
    const v = r.v;
    const slug = r.p.slug;
    if (v.kind === 'unknown' && opts.dimensionsOf && slug !== undefined) {
      const dimensions = opts.dimensionsOf(slug);
      if (dimensions) return onInvalid(c, { ...v, dimensions }, r.p);
    }
    return onInvalid(c, v, r.p);
  });
}

/** A path parameter and the literal rest of its segment (`{date}.json`: `date`, `.json`). */
const PARAM = /\{([^}]+)\}([^/{]*)/g;

/**
 * `/api/stat/{slug}` → `/api/stat/:slug`. Hono has no syntax for a parameter followed by a
 * literal in its segment, so `{date}.json` becomes `:date{[^/]+\.json}`: the router matches the
 * whole segment and the validator strips the suffix again (paramSuffixes).
 */
export function routingPath(path: string): string {
  return path.replaceAll(PARAM, (_m, name: string, suffix: string) =>
    suffix === '' ? `:${name}` : `:${name}{[^/]+${escapeRegex(suffix)}}`,
  );
}

/** The declared template of a router path (routingPath's inverse): `:date{[^/]+\.json}` → `{date}.json`. */
export function declaredPath(routerPath: string): string {
  return routerPath.replaceAll(
    /:([A-Za-z0-9_]+)(?:\{\[\^\/\]\+([^}]*)\})?/g,
    (_m, name: string, suffix: string | undefined) => `{${name}}${(suffix ?? '').replaceAll('\\', '')}`,
  );
}

/** Each path parameter's literal suffix within its segment ('' for a whole segment). */
function paramSuffixes(path: string): Map<string, string> {
  return new Map([...path.matchAll(PARAM)].map((m) => [m[1] as string, m[2] as string]));
}

/** openRoute's dimensionsOf from a spec lookup: a benchmark's declared dimension names. */
export function dimensionsFrom(
  spec: (slug: string) => { readonly dimensions: object } | undefined,
): (slug: string) => readonly string[] | undefined {
  return (slug) => {
    const s = spec(slug);
    return s ? Object.keys(s.dimensions) : undefined;
  };
}
