import type { Context } from 'hono';
import {
  ColdViewsBusyError,
  EngineUnavailableError,
  UnavailableError,
  UnknownBenchmarkError,
} from '../publication/types.ts';
import { etagMatches, type HotSource, offerHot } from './hot-path.ts';

/** Cache-Control values by freshness class. */
export const CACHE = {
  live: 'public, max-age=30, stale-while-revalidate=300',
  /** The last view served while the store cannot be read: recheck soon. */
  degraded: 'public, max-age=5',
  probe: 'public, max-age=5',
  immutable: 'public, max-age=31536000, immutable',
  cite: 'public, max-age=3600',
  doc: 'public, max-age=3600',
  image: 'public, max-age=60, stale-while-revalidate=300',
  none: 'no-store',
} as const;

export interface BytesResponse {
  readonly body: Uint8Array<ArrayBuffer> | string;
  /** Quoted strong ETag. */
  readonly etag: string;
  readonly contentType: string;
  readonly cacheControl: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * Headers a browser script may read on a cross-origin GET answer: only those a GET route sends
 * (ETag for revalidation, Retry-After on a 503, the frozen day). GET routes are not rate limited;
 * the MCP endpoint's limits are exposed by its own answers (src/mcp/routes.ts).
 */
export const EXPOSE_HEADERS = 'ETag, Retry-After, X-Snapshot-Date';

const encoder = new TextEncoder();

/**
 * The request's If-None-Match. Read from Node's parsed headers when the request came through
 * @hono/node-server: asking the web Request builds a whole Headers object (measured: it halved
 * /api/freshness's throughput); other runtimes (app.request in tests) ask the Request.
 */
function ifNoneMatch(c: Context): string | undefined {
  const incoming = (c.env as { incoming?: { headers: Record<string, string | string[] | undefined> } })
    ?.incoming;
  if (incoming === undefined) return c.req.header('if-none-match');
  const v = incoming.headers['if-none-match'];
  return Array.isArray(v) ? v.join(', ') : v;
}

/**
 * Sends stored bytes with CORS, ETag and Cache-Control; answers 304 on a matching If-None-Match.
 * With a `hot` source the answer is also offered to the hot path (src/http/hot-path.ts), which
 * replays these very header blocks and bytes until the source stops being current.
 */
export function sendBytes(c: Context, r: BytesResponse, hot?: HotSource): Response {
  const headers304: Record<string, string> = {
    'access-control-allow-origin': '*',
    'access-control-expose-headers': EXPOSE_HEADERS,
    etag: r.etag,
    'cache-control': r.cacheControl,
    ...r.headers,
  };
  const headers200: Record<string, string> = {
    ...headers304,
    'content-type': r.contentType,
    // Set explicitly so a HEAD answer (same headers, no body) says how long the GET body is;
    // counted without encoding a copy, since string bodies (SVG) are served often.
    'content-length': String(typeof r.body === 'string' ? Buffer.byteLength(r.body) : r.body.byteLength),
  };
  const method = c.req.method;
  const res = etagMatches(ifNoneMatch(c), r.etag)
    ? new Response(null, { status: 304, headers: headers304 })
    : new Response(method === 'HEAD' ? null : r.body, { status: 200, headers: headers200 });
  if (hot && method === 'GET')
    offerHot(res, { etag: r.etag, body: r.body, headers200, headers304, source: hot });
  return res;
}

/** Every error is JSON `{error, message}`; never cached by shared caches. */
export function sendError(
  c: Context,
  status: 400 | 403 | 404 | 405 | 406 | 413 | 415 | 429 | 431 | 500 | 503,
  error: string,
  message: string,
  headers: Readonly<Record<string, string>> = {},
): Response {
  const body = encoder.encode(JSON.stringify({ error, message }));
  return new Response(c.req.method === 'HEAD' ? null : body, {
    status,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(body.byteLength),
      'access-control-allow-origin': '*',
      'access-control-expose-headers': EXPOSE_HEADERS,
      'cache-control': CACHE.none,
      ...headers,
    },
  });
}

/**
 * The publication's own failures as responses: an unknown slug is 404 (listing the valid ones), an
 * unreadable store 503 with Retry-After, and so is a process computing as many filtered views as it
 * takes at once (503 busy). Anything else is not ours to map: null.
 */
export function publicationErrorResponse(
  c: Context,
  err: unknown,
  validSlugs: readonly string[],
): Response | null {
  if (err instanceof UnknownBenchmarkError) {
    const hint = validSlugs.length ? ` Valid slugs: ${validSlugs.join(', ')}.` : '';
    return sendError(c, 404, 'unknown_benchmark', `Unknown benchmark "${err.slug}".${hint}`);
  }
  if (err instanceof ColdViewsBusyError) {
    const message = `Too many uncached filtered views are being computed; retry in ${err.retryAfterS} second.`;
    return sendError(c, 503, 'busy', message, { 'retry-after': String(err.retryAfterS) });
  }
  if (err instanceof EngineUnavailableError) {
    return sendError(
      c,
      503,
      'engine_unavailable',
      `The sample engine does not answer (${err.message}); frozen days are served, retry live values shortly.`,
      { 'retry-after': String(err.retryAfterS) },
    );
  }
  if (err instanceof UnavailableError) {
    return sendError(
      c,
      503,
      'benchmarks_unavailable',
      'Benchmarks are temporarily unavailable; retry shortly.',
      {
        'retry-after': '30',
      },
    );
  }
  return null;
}

/**
 * A live citation says "Retrieved <today>", so no cache may keep it past 00:00 UTC: its max-age is
 * the smaller of an hour and the seconds left in the UTC day.
 */
export function citeCacheControl(now: number): string {
  const left = Math.floor((86_400_000 - (now % 86_400_000)) / 1000);
  return `public, max-age=${Math.max(0, Math.min(3600, left))}`;
}

/** True while a live citation's max-age is the full hour, i.e. before the last hour of the UTC day. */
export function citeMaxAgeIsConstant(now: number): boolean {
  return now % 86_400_000 <= 86_400_000 - 3_600_000;
}
