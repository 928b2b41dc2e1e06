/**
 * Quantile by linear interpolation between closest ranks: h = q·(n−1). This is the definition of
 * Prometheus `quantile_over_time` and DuckDB `quantile_cont`, so both backends agree.
 */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
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

/**
 * quantileSorted's value without sorting: the two order statistics around h = q·(n−1) found by
 * selection (Hoare's quickselect, median-of-three pivots), O(n) on average instead of a sort's
 * O(n log n). Reorders `values` in place. Same arithmetic on the same two values, so the same
 * result to the last bit as sorting first.
 */
export function quantileUnsorted(values: number[], q: number): number {
  const n = values.length;
  if (n === 0) return Number.NaN;
  const h = q <= 0 ? 0 : q >= 1 ? n - 1 : q * (n - 1);
  const lo = Math.floor(h);
  const a = select(values, lo);
  if (h === lo || lo + 1 >= n) return a;
  // After selecting lo, everything to its right is ≥ it: the next order statistic is their minimum.
  let b = Number.POSITIVE_INFINITY;
  for (let i = lo + 1; i < n; i++) if ((values[i] as number) < b) b = values[i] as number;
  return a + (h - lo) * (b - a);
}

/** The k-th smallest of `a` (0-based), leaving a[0..k) ≤ a[k] ≤ a(k..n). */
function select(a: number[], k: number): number {
  let left = 0;
  let right = a.length - 1;
  const at = (i: number) => a[i] as number;
  const swap = (i: number, j: number) => {
    const t = a[i] as number;
    a[i] = a[j] as number;
    a[j] = t;
  };
  while (right > left) {
    const mid = (left + right) >>> 1;
    // Median of three as the pivot, moved to `right`.
    if (at(mid) < at(left)) swap(mid, left);
    if (at(right) < at(left)) swap(right, left);
    if (at(mid) < at(right)) swap(mid, right);
    const pivot = at(right);
    let store = left;
    for (let i = left; i < right; i++) {
      if (at(i) < pivot) {
        swap(i, store);
        store++;
      }
    }
    swap(store, right);
    if (store === k) return at(k);
    if (store < k) left = store + 1;
    else right = store - 1;
  }
  return at(k);
}

export function quantile(values: readonly number[], q: number): number {
  return quantileSorted(
    [...values].sort((x, y) => x - y),
    q,
  );
}

export function mean(values: ArrayLike<number>): number {
  if (values.length === 0) return Number.NaN;
  let s = 0;
  for (let i = 0; i < values.length; i++) s += values[i] as number;
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
