/**
 * HEAD is GET without the body (RFC 9110 §9.3.2): the service answers a HEAD by routing it as a
 * GET and dropping the body, so every route and status sends GET's very headers, with the exact
 * Content-Length of the body a GET would get. Letting each route answer HEAD itself drifted: some
 * sent no length, and the 404's message named the method, so its length was one byte off GET's.
 */

/** What @hono/node-server writes for a body without a Content-Type (the GET sends it too). */
const DEFAULT_CONTENT_TYPE = 'text/plain; charset=UTF-8';

/** The same request as a GET: same URL and headers (a HEAD has no body to carry over). */
export function asGet(req: Request): Request {
  return new Request(req.url, { method: 'GET', headers: req.headers });
}

/** Statuses that never carry a body, so no length either (RFC 9110 §8.6). */
const bodiless = (status: number) => status < 200 || status === 204 || status === 304;

/** GET's answer as HEAD's: the same status and headers, the body's length, no body. */
export async function headOf(get: Response | Promise<Response>): Promise<Response> {
  const res = await get;
  const headers = new Headers(res.headers);
  if (!bodiless(res.status)) {
    if (res.body !== null && !headers.has('content-type')) headers.set('content-type', DEFAULT_CONTENT_TYPE);
    if (!headers.has('content-length')) {
      const length = res.body === null ? 0 : (await res.arrayBuffer()).byteLength;
      headers.set('content-length', String(length));
    } else await res.body?.cancel();
  }
  return new Response(null, { status: res.status, headers });
}

/**
 * A redirect has no body; without a Content-Length Node would send its GET chunked (a zero-length
 * chunked body). Statuses other than 3xx are left alone: checking the body of every 200 would
 * cost the router's fast answers their lightweight form.
 */
export function withRedirectLength(res: Response): Response {
  const s = res.status;
  if (s < 300 || s >= 400 || s === 304) return res;
  if (res.body === null && !res.headers.has('content-length')) res.headers.set('content-length', '0');
  return res;
}
