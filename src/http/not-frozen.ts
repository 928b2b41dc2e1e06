import type { Context } from 'hono';
import type { NotFrozen } from '../publication/day-freezer.ts';
import type { ServedText } from '../publication/served.ts';
import type { Served } from '../publication/types.ts';
import { JSON_TYPE } from './answers.ts';
import { FOREVER } from './hot-path.ts';
import { CACHE, sendBytes, sendError } from './respond.ts';

/**
 * A day that cannot be served yet: 404 while it is today or inside its grace, 503 with Retry-After
 * once it is closed past its grace and its freeze has not succeeded (it is being retried): the
 * day exists, and a client should come back, not conclude there is nothing.
 */
export function sendNotFrozen(c: Context, r: NotFrozen): Response {
  if (r.retryAfter === undefined) return sendError(c, 404, 'not_frozen', r.message);
  return sendError(c, 503, 'not_frozen', r.message, { 'retry-after': String(r.retryAfter) });
}

/**
 * A dated answer: the bytes frozen with the day (immutable, X-Snapshot-Date), 404 for today (with
 * where its live answer is), or the day not frozen yet (404 in its grace, 503 while retried).
 */
export function sendFrozenDay(
  c: Context,
  date: string,
  r: { kind: 'today' } | NotFrozen | { kind: 'ok'; served: Served<unknown> | ServedText },
  live: string,
): Response {
  if (r.kind === 'today') {
    return sendError(c, 404, 'not_frozen', `${date} is today: it is frozen after it closes. ${live}`);
  }
  if (r.kind === 'not_frozen') return sendNotFrozen(c, r);
  return sendBytes(
    c,
    {
      ...r.served,
      contentType: JSON_TYPE,
      cacheControl: CACHE.immutable,
      headers: { 'x-snapshot-date': date },
    },
    FOREVER,
  );
}
