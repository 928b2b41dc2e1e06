import { percentOf } from '../../../core/percent.ts';

/**
 * Capture = count / max(count across the providers measured on the cell) × 100 (spec 2.6), by the
 * one percentage formula (core/percent.ts). Null when the max is 0: with no trade from anyone there
 * is no baseline, and 0/0 is not a score.
 */
export function capturePct(count: number, max: number): number | null {
  return percentOf(count, max);
}
