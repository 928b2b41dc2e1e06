import { round6 } from './stats.ts';

/**
 * part / whole × 100: the one formula behind every percentage the service computes (a capture
 * rate, capture against the union, a success rate). Null when `whole` is 0: with nothing to
 * measure against there is no score, and 0/0 is never published as 0 or 100.
 */
export function percentOf(part: number, whole: number): number | null {
  return whole > 0 ? (part / whole) * 100 : null;
}

/**
 * The one rounding rule for a published percentage: statistics are computed from the unrounded
 * values, and the number a reader sees is rounded once, to six significant digits (round6).
 */
export function publishedPct(part: number, whole: number): number | null {
  const p = percentOf(part, whole);
  return p === null ? null : round6(p);
}
