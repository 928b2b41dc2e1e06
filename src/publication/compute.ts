import type { Filters, Stat } from '../core/api-schemas.ts';
import { DAY_MS } from '../core/dates.ts';
import {
  comparablePairs,
  latestRows,
  pairKeyOf,
  type RankedRow,
  rankRows,
  windowRows,
} from '../core/rows.ts';
import { labelsKey, type Matcher, type Sample } from '../core/samples.ts';
import { sparklineSeries } from '../core/sparkline.ts';
import { type BenchmarkSpec, DIMENSION_NAMES, durationMs, type ProviderEntry } from '../core/spec-schema.ts';
import { buildStat } from '../core/stat.ts';
import type { Site } from '../core/urls.ts';
import type { SampleStore } from '../store/sample-store.ts';

const WINDOW_MS = DAY_MS;

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Metric names whose new samples change this benchmark's views. */
export function specMetrics(spec: BenchmarkSpec): string[] {
  const d = spec.derivation;
  return d.mode === 'latest'
    ? [d.metric]
    : [d.metric, d.probeMetric, d.countMetric, d.unionMetric, d.cycle5xxMetric];
}

function selection(spec: BenchmarkSpec, filters: Filters | null) {
  let providers: readonly ProviderEntry[] = spec.providers;
  const labelMatchers: Matcher[] = [];
  for (const d of DIMENSION_NAMES) {
    const v = filters?.[d];
    const dim = spec.dimensions[d];
    if (v === undefined || !dim) continue;
    if (dim.appliesTo === 'provider') {
      providers = providers.filter((p) => (p as Record<string, unknown>)[d] === v);
    } else {
      labelMatchers.push({ name: d, op: '=', value: v });
      // A provider not measured on this chain is excluded, never scored as zero.
      if (d === 'chain') providers = providers.filter((p) => !p.chains || p.chains.includes(v));
    }
  }
  const providerMatcher: Matcher = {
    name: 'provider',
    op: '=~',
    value: providers.map((p) => escapeRegex(p.slug)).join('|'),
  };
  return { providers, labelMatchers, providerMatcher };
}

function maxT(...lists: (readonly Sample[])[]): number | null {
  let m: number | null = null;
  for (const l of lists) for (const s of l) if (m === null || s.t > m) m = s.t;
  return m;
}

export interface ComputeOptions {
  /**
   * A frozen day: evaluated at the day's last millisecond from that day's samples only (no value
   * carried in from the day before), every link pinned to the day.
   */
  readonly pinDay?: string;
}

/** Builds the Stat of one benchmark (optionally filtered) evaluated at `evalTime`. */
export async function computeStat(
  store: SampleStore,
  spec: BenchmarkSpec,
  filters: Filters | null,
  evalTime: number,
  site: Site,
  opts: ComputeOptions = {},
): Promise<Stat> {
  const strict = opts.pinDay !== undefined;
  const { providers, labelMatchers, providerMatcher } = selection(spec, filters);
  const bounds = await store.timeBounds(specMetrics(spec));
  const neverRun = bounds === null || bounds.min > evalTime;
  const d = spec.derivation;
  const windowStart = evalTime - WINDOW_MS;
  let rankings: RankedRow[] = [];
  let sparkline: number[] = [];
  let asOf: number | null = null;

  if (providers.length > 0 && !neverRun) {
    if (d.mode === 'latest') {
      // A count stands until replaced, but no longer than the window: an older one is not published.
      const latest = await store.latest({
        metric: d.metric,
        matchers: [providerMatcher, ...labelMatchers],
        at: evalTime,
        notBefore: windowStart,
      });
      rankings = rankRows(latestRows(providers, latest), spec.higherIsBetter);
      asOf = maxT(latest);
      const leader = rankings[0]?.rank === 1 ? rankings[0].slug : null;
      if (leader) {
        const m = [{ name: 'provider', op: '=' as const, value: leader }, ...labelMatchers];
        const [seed, inWindow] = await Promise.all([
          strict
            ? Promise.resolve([])
            : store.latest({
                metric: d.metric,
                matchers: m,
                at: windowStart,
                notBefore: windowStart - WINDOW_MS,
              }),
          store.select({ metric: d.metric, matchers: m, after: windowStart, until: evalTime }),
        ]);
        // A count stands until it is replaced, so the series carries its last value forward.
        sparkline = sparklineSeries(
          [...seed, ...inWindow],
          (s) => labelsKey(s.labels),
          evalTime,
          Number.POSITIVE_INFINITY,
        );
      }
    } else {
      const lookback = 2 * durationMs(spec.cadence);
      const matchers = [providerMatcher, ...labelMatchers];
      const win = { matchers, after: windowStart, until: evalTime };
      const [values, probes, counts, unions, cycle5xx] = await Promise.all([
        store.select({
          metric: d.metric,
          matchers,
          after: strict ? windowStart : windowStart - lookback,
          until: evalTime,
        }),
        store.select({ metric: d.probeMetric, ...win }),
        store.select({ metric: d.countMetric, ...win }),
        store.select({ metric: d.unionMetric, matchers: labelMatchers, after: windowStart, until: evalTime }),
        store.select({
          metric: d.cycle5xxMetric,
          matchers: [providerMatcher, { name: 'benchmark', op: '=', value: spec.slug }],
          after: windowStart,
          until: evalTime,
        }),
      ]);
      const inWindow = values.filter((s) => s.t > windowStart);
      rankings = rankRows(
        windowRows(providers, {
          cellLabels: d.cellLabels,
          values: inWindow,
          probes,
          counts,
          unions,
          cycle5xx,
        }),
        spec.higherIsBetter,
      );
      asOf = maxT(inWindow, probes);
      const leader = rankings[0]?.rank === 1 ? rankings[0].slug : null;
      if (leader) {
        // The sparkline aggregates cells too, so it follows the same fair-aggregation rule.
        const comparable = comparablePairs(values, d.cellLabels);
        const pair = pairKeyOf(d.cellLabels);
        const cell = (s: Sample) => d.cellLabels.map((l) => s.labels[l] ?? '').join('\u0000');
        sparkline = sparklineSeries(
          values.filter((s) => s.labels.provider === leader && comparable.has(pair(s))),
          cell,
          evalTime,
          lookback,
        );
      }
    }
  }
  return buildStat({
    spec,
    filters,
    rankings,
    sparkline,
    asOf,
    neverRun,
    evalTime,
    site,
    pinDay: opts.pinDay ?? null,
  });
}
