import type { Context } from 'hono';

/** Longest query value we echo or key a cache on (dimension values are at most 64 characters). */
export const MAX_QUERY_VALUE = 64;
const MAX_QUERY_STRING = 1024;

export type QueryRead =
  | { ok: true; values: Readonly<Record<string, string | undefined>> }
  | { ok: false; error: string; message: string };

/**
 * Reads the query once, strictly: a repeated parameter (`?chain=a&chain=b`) is an error, never the
 * first value silently; values are length-bounded before anything echoes them or keys a cache on
 * them. Parameters a route does not know are ignored.
 */
export function readQuery(c: Context, names: readonly string[]): QueryRead {
  const url = c.req.url;
  const qs = url.indexOf('?');
  if (qs === -1) return { ok: true, values: {} };
  if (url.length - qs > MAX_QUERY_STRING) {
    return {
      ok: false,
      error: 'bad_query',
      message: `The query string is longer than ${MAX_QUERY_STRING} characters.`,
    };
  }
  let params: URLSearchParams;
  try {
    params = new URLSearchParams(url.slice(qs + 1));
  } catch {
    return { ok: false, error: 'bad_query', message: 'The query string is malformed.' };
  }
  const values: Record<string, string> = {};
  for (const name of names) {
    const all = params.getAll(name);
    if (all.length === 0) continue;
    if (all.length > 1) {
      return {
        ok: false,
        error: 'repeated_parameter',
        message: `"${name}" is given ${all.length} times; give it once.`,
      };
    }
    const v = all[0] as string;
    if (v.length > MAX_QUERY_VALUE) {
      return {
        ok: false,
        error: 'bad_query',
        message: `"${name}" is longer than ${MAX_QUERY_VALUE} characters.`,
      };
    }
    values[name] = v;
  }
  return { ok: true, values };
}
