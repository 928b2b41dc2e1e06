import type { Context } from 'hono';
import type { NotFrozen } from '../publication/day-freezer.ts';
import { sendError } from './respond.ts';

/**
 * A day that cannot be served yet: 404 while it is today or inside its grace, 503 with Retry-After
 * once it is closed past its grace and its freeze has not succeeded (it is being retried): the
 * day exists, and a client should come back, not conclude there is nothing.
 */
export function sendNotFrozen(c: Context, r: NotFrozen): Response {
  if (r.retryAfter === undefined) return sendError(c, 404, 'not_frozen', r.message);
  return sendError(c, 503, 'not_frozen', r.message, { 'retry-after': String(r.retryAfter) });
}
