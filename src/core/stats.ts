/**
 * Quantile by linear interpolation between closest ranks: h = q·(n−1). This is the definition of
 * Prometheus `quantile_over_time` and DuckDB `quantile_cont`, so both backends agree.
 */
export function quantileSorted(sorted: readonly number[], q: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  if (q <= 0) return sorted[0] as number;
  if (q >= 1) return sorted[n - 1] as number;
  const h = q * (n - 1);
  const lo = Math.floor(h);
  const a = sorted[lo] as number;
  const b = sorted[Math.min(lo + 1, n - 1)] as number;
  return a + (h - lo) * (b - a);
}

export function quantile(values: readonly number[], q: number): number {
  return quantileSorted(
    [...values].sort((x, y) => x - y),
    q,
  );
}

export function mean(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  let s = 0;
  for (const v of values) s += v;
  return s / values.length;
}

/** Six significant digits keeps payloads small without visible loss. */
export function round6(x: number): number {
  if (!Number.isFinite(x) || x === 0) return x;
  return Number(x.toPrecision(6));
}

/** Index of the first element of ascending `a` greater than `x` (a.length when none is). */
export function upperBound(a: readonly number[], x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((a[mid] as number) <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
