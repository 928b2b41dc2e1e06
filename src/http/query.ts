/**
 * Bounds of the query string, applied by the route validator (src/http/route-kit.ts) before any
 * value is echoed or keys a cache: a repeated parameter is an error, never the first value silently.
 */

/** Longest query value we echo or key a cache on (dimension values are at most 64 characters). */
export const MAX_QUERY_VALUE = 64;
export const MAX_QUERY_STRING = 1024;
