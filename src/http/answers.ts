import type { Context } from 'hono';
import { parseDay } from '../core/dates.ts';
import type { Publication } from '../publication/publication.ts';
import type { HotSource } from './hot-path.ts';
import { CACHE, sendBytes, sendError } from './respond.ts';

/** Answers several route groups share: a cached JSON view, an unknown slug, a day's start. */

export const JSON_TYPE = 'application/json; charset=utf-8';

/** A cached JSON view (bytes + ETag) as a response, offered to the hot path while it is current. */
export function sendServed(
  c: Context,
  s: { body: Uint8Array<ArrayBuffer>; etag: string; value?: unknown },
  hot: HotSource,
  cacheControl: string = CACHE.live,
): Response {
  // A view served while the store is down must not be cached as if it were current.
  const v = s.value as { degraded?: boolean; site?: { degraded?: boolean } } | undefined;
  const cc = v?.degraded || v?.site?.degraded ? CACHE.degraded : cacheControl;
  return sendBytes(c, { body: s.body, etag: s.etag, contentType: JSON_TYPE, cacheControl: cc }, hot);
}

export function unknownSlug(c: Context, pub: Publication, slug: string): Response {
  return sendError(
    c,
    404,
    'unknown_benchmark',
    `Unknown benchmark "${slug}". Valid slugs: ${pub.specs.map((s) => s.slug).join(', ')}.`,
  );
}

/** The 400 of a malformed day, with parseDay's message (what checkDay answers first). */
export function badDate(c: Context, day: string): Response {
  const d = parseDay(day);
  return sendError(c, 400, 'bad_date', d.ok ? `${day} is not a valid date.` : d.message);
}

export function parseDayStart(day: string): number {
  const d = parseDay(day);
  return d.ok ? d.start : 0;
}
