import type { IncomingMessage, ServerResponse } from 'node:http';
import type { StartupState } from '../startup-state.ts';
import { CACHE, EXPOSE_HEADERS } from './respond.ts';

/**
 * Answers while the service is starting: the port is bound before the backfill, the freeze and the
 * routes are ready (src/main.ts), so a probe can tell "starting" from "down". Plain Node, no
 * router: it answers from the moment the port is bound, before the app is even imported.
 */

/**
 * Seconds a client is asked to wait. `serve` is ready within a few seconds of binding; the demo's
 * first backfill takes about a minute on 2 cores, and /healthz shows its progress meanwhile.
 */
export const STARTING_RETRY_AFTER_S = 5;

/** /healthz while starting: `{"status":"starting"}`, with the backfill's `{done, total}` when one runs. */
export function startingHealth(state: StartupState): {
  status: 'starting';
  backfill?: { done: number; total: number };
} {
  const backfill = state.progress;
  return backfill ? { status: 'starting', backfill } : { status: 'starting' };
}

/** Every other route (the MCP endpoint too): the error body of every route, code `starting`. */
export function startingError(state: StartupState): { error: 'starting'; message: string } {
  const b = state.progress;
  const what = b ? ` (backfilling: ${b.done} of ${b.total} steps done)` : '';
  return {
    error: 'starting',
    message: `The service is starting${what}; retry in ${STARTING_RETRY_AFTER_S} seconds.`,
  };
}

function pathOf(url: string | undefined): string {
  const u = url ?? '/';
  const q = u.indexOf('?');
  return q === -1 ? u : u.slice(0, q);
}

/**
 * A JSON 503 with Retry-After written with plain Node, before any router: the answer of a request
 * that cannot be served yet (starting) or cannot wait (a full lane, src/http/lane-gate.ts).
 */
export function answer503(
  req: IncomingMessage,
  res: ServerResponse,
  json: object,
  retryAfterS: number,
): void {
  const body = Buffer.from(JSON.stringify(json));
  res.writeHead(503, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(body.byteLength),
    'access-control-allow-origin': '*',
    'access-control-expose-headers': EXPOSE_HEADERS,
    'cache-control': CACHE.none,
    'retry-after': String(retryAfterS),
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** The 503 of a request that arrived before the service is ready (GET/HEAD /healthz or anything else). */
export function answerStarting(req: IncomingMessage, res: ServerResponse, state: StartupState): void {
  const method = req.method ?? 'GET';
  const health = pathOf(req.url) === '/healthz' && (method === 'GET' || method === 'HEAD');
  answer503(req, res, health ? startingHealth(state) : startingError(state), STARTING_RETRY_AFTER_S);
}
