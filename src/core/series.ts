import { DAY_MS } from './dates.ts';
import type { RankStatistic } from './rank-rows.ts';
import { comparablePairs, latestRows } from './rows.ts';
import type { Sample } from './samples.ts';
import type { ProviderEntry } from './spec-schema.ts';
import { lowerBound, quantileOfOrder, round6, sortFloat64 } from './stats.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export const SERIES_RANGES = ['24h', '7d', '30d', '90d'] as const;
export type SeriesRange = (typeof SERIES_RANGES)[number];

/**
 * Grid of each range: 24 h keeps the sparkline's 20-minute step (73 points). Longer ranges use a
 * coarser step so every range has 73–121 points (a chart's worth) and the cold 90-day series
 * evaluates 91 windows, not 6,481: 7 d → 2 h (85), 30 d → 6 h (121), 90 d → 1 d (91).
 */
export const SERIES_GRIDS: Readonly<Record<SeriesRange, { rangeMs: number; stepMs: number }>> = {
  '24h': { rangeMs: DAY_MS, stepMs: 20 * MINUTE },
  '7d': { rangeMs: 7 * DAY_MS, stepMs: 2 * HOUR },
  '30d': { rangeMs: 30 * DAY_MS, stepMs: 6 * HOUR },
  '90d': { rangeMs: 90 * DAY_MS, stepMs: DAY_MS },
};

export function isSeriesRange(s: string): s is SeriesRange {
  return (SERIES_RANGES as readonly string[]).includes(s);
}

/** Ascending grid ending exactly at `evalTime`, both ends of the range included. */
export function seriesGrid(range: SeriesRange, evalTime: number): number[] {
  const { rangeMs, stepMs } = SERIES_GRIDS[range];
  const n = rangeMs / stepMs + 1;
  return Array.from({ length: n }, (_, k) => evalTime - (n - 1 - k) * stepMs);
}

/**
 * What the evaluation reads, once for the whole grid. `latest`: the benchmark's metric. `window`:
 * the capture samples only, since a row's p50 depends on them and their comparability alone (probes,
 * counts and unions change successRate and unionCapture, never p50; see rows.ts windowRows).
 */
export type SeriesInput =
  | { readonly mode: 'latest'; readonly samples: readonly Sample[] }
  | {
      readonly mode: 'window';
      readonly cellLabels: readonly string[];
      readonly values: readonly Sample[];
      /** The ranked statistic (the spec's rankBy): p50 by default. */
      readonly statistic?: RankStatistic;
    };

/**
 * The value each provider's Stat row would have had at every grid time, by the Stat's own rules: at
 * time t the samples in (t − windowMs, t]. `latest`: latestRows over them (the newest sample
 * within the staleness bound). `window`: the p50 windowRows publishes, from the same pieces
 * (comparablePairs, quantileSorted, round6), over the provider's samples on comparable pairs only.
 * null where the Stat would have had no row, and, in window mode, where the provider had no
 * comparable pair in the window: its own lone samples are 100% by construction, so such a row is
 * never ranked nor the leader, and a chart must not draw it as measured. `providers` is the whole selection of the view: narrowing the output must not change which
 * pairs are comparable, so pass every provider of the view and pick from the result.
 */
export function evaluateSeries(
  providers: readonly ProviderEntry[],
  input: SeriesInput,
  timestamps: readonly number[],
  windowMs: number,
): Map<string, (number | null)[]> {
  return input.mode === 'latest'
    ? latestSeries(providers, input.samples, timestamps, windowMs)
    : windowSeries(providers, input.cellLabels, input.values, timestamps, windowMs, input.statistic ?? 'p50');
}

function latestSeries(
  providers: readonly ProviderEntry[],
  samples: readonly Sample[],
  timestamps: readonly number[],
  windowMs: number,
): Map<string, (number | null)[]> {
  // Stable sort: samples with the same time keep the store's series order, as the Stat sees them.
  const sorted = [...samples].sort((a, b) => a.t - b.t);
  const out = new Map<string, (number | null)[]>(providers.map((p) => [p.slug, []]));
  // Both window edges only move forward along an ascending grid.
  let lo = 0;
  let hi = 0;
  for (const t of timestamps) {
    while (hi < sorted.length && (sorted[hi] as Sample).t <= t) hi++;
    while (lo < hi && (sorted[lo] as Sample).t <= t - windowMs) lo++;
    const rows = lo < hi ? latestRows(providers, sorted.slice(lo, hi)) : [];
    const byProvider = new Map(rows.map((r) => [r.slug, r.ms.p50]));
    for (const [slug, values] of out) values.push(byProvider.get(slug) ?? null);
  }
  return out;
}

/**
 * A (cell, cycle) pair's samples all carry the cycle's timestamp, so a window holds all of a pair or
 * none of it: whether a pair is comparable does not depend on the window, and comparablePairs runs
 * once over the whole range instead of once per grid point (measured: 55 ms → a few ms for the
 * 24 h sparkline on demo data; 91 windows of 90 days stay linear).
 */
function windowSeries(
  providers: readonly ProviderEntry[],
  cellLabels: readonly string[],
  values: readonly Sample[],
  timestamps: readonly number[],
  windowMs: number,
  statistic: RankStatistic,
): Map<string, (number | null)[]> {
  const comparable = comparablePairs(values, cellLabels);
  // One pass groups every provider's samples with their pair's comparability.
  const byProvider = new Map<string, { t: number; v: number; shared: boolean }[]>(
    providers.map((p) => [p.slug, []]),
  );
  for (const s of values) {
    const own = byProvider.get(s.labels.provider ?? '');
    if (own) own.push({ t: s.t, v: s.v, shared: comparable.has(s) });
  }
  const out = new Map<string, (number | null)[]>();
  for (const p of providers) {
    const own = (byProvider.get(p.slug) ?? []).sort((a, b) => a.t - b.t);
    // Copied by a loop: Float64Array.from(list, fn) calls fn through a slow path (rows.ts sortedValues).
    const t = new Float64Array(own.length);
    const v = new Float64Array(own.length);
    const shared = new Uint8Array(own.length);
    own.forEach((s, i) => {
      t[i] = s.t;
      v[i] = s.v;
      shared[i] = s.shared ? 1 : 0;
    });
    out.set(p.slug, windowStatistics({ t, v, shared }, timestamps, windowMs, statistic));
  }
  return out;
}

/**
 * windowP50s, or the mean of the same comparable values in each window: the series of the
 * statistic a benchmark ranks by (rows.ts statisticOf), so the sparkline draws what the value is.
 */
export function windowStatistics(
  own: { readonly t: ArrayLike<number>; readonly v: ArrayLike<number>; readonly shared: ArrayLike<number> },
  timestamps: readonly number[],
  windowMs: number,
  statistic: RankStatistic,
): (number | null)[] {
  if (statistic === 'p50') return windowP50s(own, timestamps, windowMs);
  const n = own.t.length;
  const series: (number | null)[] = [];
  let lo = 0;
  let hi = 0;
  let sum = 0;
  let count = 0;
  for (const t of timestamps) {
    for (; hi < n && (own.t[hi] as number) <= t; hi++)
      if (own.shared[hi] === 1) {
        sum += own.v[hi] as number;
        count++;
      }
    for (; lo < hi && (own.t[lo] as number) <= t - windowMs; lo++)
      if (own.shared[lo] === 1) {
        sum -= own.v[lo] as number;
        count--;
      }
    // A running sum: exact for whole numbers (head lag's milliseconds), and otherwise within a
    // few units in the last place of the row's own sum, far below the six digits published.
    series.push(count === 0 ? null : round6(sum / count));
  }
  return series;
}

/**
 * One provider's window series from its samples in time order, each with its pair's comparability
 * (1 comparable): at each time of the ascending grid, the p50 of its comparable values in
 * (t − windowMs, t], null where there is none. In columns, so the Stat's sparkline calls it on what
 * its store read packed (core/window-columns.ts) without a Sample object per row.
 *
 * The window slides over the samples once: each comparable value enters and leaves a count per
 * distinct value (a Fenwick tree), and a point's p50 is found from its two order statistics by
 * descending the tree, O(log n), instead of selecting among the window's values at every point (a
 * day of 1-minute RPC samples is 65k values per point, 73 points per sparkline: 5M a sparkline).
 * The same two values, so the same p50 (quantileOfOrder); −0 and +0 count as one value, which
 * only a sign of zero could tell apart, and no answer does (JSON writes both as 0).
 */
export function windowP50s(
  own: { readonly t: ArrayLike<number>; readonly v: ArrayLike<number>; readonly shared: ArrayLike<number> },
  timestamps: readonly number[],
  windowMs: number,
): (number | null)[] {
  const n = own.t.length;
  const { distinct, rank } = rankComparable(own);
  const counts = new OrderCounts(distinct.length);
  const series: (number | null)[] = [];
  let lo = 0;
  let hi = 0;
  for (const t of timestamps) {
    for (; hi < n && (own.t[hi] as number) <= t; hi++)
      if (own.shared[hi] === 1) counts.add(rank[hi] as number, 1);
    for (; lo < hi && (own.t[lo] as number) <= t - windowMs; lo++)
      if (own.shared[lo] === 1) counts.add(rank[lo] as number, -1);
    // No comparable pair in this window: a gap, never the lone samples' 100%.
    series.push(
      counts.size === 0
        ? null
        : round6(quantileOfOrder(counts.size, 0.5, (k) => distinct[counts.kth(k)] as number)),
    );
  }
  return series;
}

/** The distinct comparable values ascending, and each comparable sample's index among them. */
function rankComparable(own: { readonly v: ArrayLike<number>; readonly shared: ArrayLike<number> }): {
  distinct: Float64Array;
  rank: Int32Array;
} {
  const n = own.v.length;
  let m = 0;
  for (let i = 0; i < n; i++) if (own.shared[i] === 1) m++;
  const sorted = new Float64Array(m);
  m = 0;
  for (let i = 0; i < n; i++) if (own.shared[i] === 1) sorted[m++] = own.v[i] as number;
  sortFloat64(sorted);
  let u = 0;
  for (let i = 0; i < m; i++) if (u === 0 || sorted[i] !== sorted[u - 1]) sorted[u++] = sorted[i] as number;
  const distinct = sorted.subarray(0, u);
  const rank = new Int32Array(n);
  for (let i = 0; i < n; i++) if (own.shared[i] === 1) rank[i] = lowerBound(distinct, own.v[i] as number);
  return { distinct, rank };
}

/** How many of each of `size` ranks are held, with the k-th smallest held found in O(log size). */
class OrderCounts {
  private readonly tree: Int32Array;
  private readonly top: number;
  size = 0;

  constructor(ranks: number) {
    this.tree = new Int32Array(ranks + 1);
    let top = 1;
    while (top * 2 <= ranks) top *= 2;
    this.top = top;
  }

  add(rank: number, by: number): void {
    this.size += by;
    for (let i = rank + 1; i < this.tree.length; i += i & -i) this.tree[i] = (this.tree[i] as number) + by;
  }

  /** The rank of the k-th smallest held value (0-based). */
  kth(k: number): number {
    let pos = 0;
    let left = k + 1;
    for (let step = this.top; step > 0; step >>= 1) {
      const next = pos + step;
      if (next < this.tree.length && (this.tree[next] as number) < left) {
        pos = next;
        left -= this.tree[next] as number;
      }
    }
    return pos;
  }
}

/**
 * The sparkline spec asks for numbers only: a point the series leaves null carries the previous
 * value forward (leading nulls take the first value), and its index goes to `gaps` so a chart can
 * draw it as carried, never as measured. A series without any value gives no points.
 */
export function carryForward(values: readonly (number | null)[]): { points: number[]; gaps: number[] } {
  const first = values.find((v) => v !== null);
  if (first === undefined || first === null) return { points: [], gaps: [] };
  const points: number[] = [];
  const gaps: number[] = [];
  let last = first;
  values.forEach((v, i) => {
    if (v === null) gaps.push(i);
    else last = v;
    points.push(last);
  });
  return { points, gaps };
}

/**
 * Runs of a carried-forward series for drawing: consecutive measured points form solid segments;
 * a segment touching a carried point is `carried` (drawn dashed). Each segment shares its end
 * point with the next, so the line stays continuous.
 */
export function sparklineSegments(
  length: number,
  gaps: readonly number[],
): { from: number; to: number; carried: boolean }[] {
  const carried = new Set(gaps);
  const out: { from: number; to: number; carried: boolean }[] = [];
  for (let i = 0; i + 1 < length; i++) {
    const c = carried.has(i) || carried.has(i + 1);
    const prev = out.at(-1);
    if (prev && prev.carried === c && prev.to === i) prev.to = i + 1;
    else out.push({ from: i, to: i + 1, carried: c });
  }
  return out;
}
