import { DAY_MS } from './dates.ts';
import { comparablePairs, latestRows } from './rows.ts';
import type { Sample } from './samples.ts';
import type { ProviderEntry } from './spec-schema.ts';
import { quantileUnsorted, round6 } from './stats.ts';

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
  | { readonly mode: 'window'; readonly cellLabels: readonly string[]; readonly values: readonly Sample[] };

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
    : windowSeries(providers, input.cellLabels, input.values, timestamps, windowMs);
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
    const series: (number | null)[] = [];
    let lo = 0;
    let hi = 0;
    for (const t of timestamps) {
      while (hi < own.length && (own[hi] as { t: number }).t <= t) hi++;
      while (lo < hi && (own[lo] as { t: number }).t <= t - windowMs) lo++;
      const sorted: number[] = [];
      for (let i = lo; i < hi; i++) {
        const s = own[i] as { v: number; shared: boolean };
        if (s.shared) sorted.push(s.v);
      }
      // No comparable pair in this window: a gap, never the lone samples' 100%. Selection, not a
      // sort: a day of 1-minute RPC samples is 65k values per point, 73 points per sparkline.
      series.push(sorted.length === 0 ? null : round6(quantileUnsorted(sorted, 0.5)));
    }
    out.set(p.slug, series);
  }
  return out;
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
