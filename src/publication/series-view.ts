import type { Filters, Series } from '../core/api-schemas.ts';
import { unpackSeriesInput } from '../core/packed-samples.ts';
import { providerColor, providerName } from '../core/providers.ts';
import { evaluateSeries, SERIES_GRIDS, type SeriesRange, seriesGrid } from '../core/series.ts';
import type { BenchmarkSpec } from '../core/spec-schema.ts';
import { type SampleStore, selectPacked } from '../store/sample-store.ts';
import { selection, WINDOW_MS } from './compute.ts';
import type { SeriesEvaluator } from './types.ts';

/** The grid evaluated on the calling thread (tests, tools, and a service without workers). */
export const evaluateSeriesInline: SeriesEvaluator = async (providers, input, timestamps, windowMs) =>
  evaluateSeries(providers, unpackSeriesInput(input), timestamps, windowMs);

export interface SeriesRequest {
  readonly spec: BenchmarkSpec;
  readonly filters: Filters | null;
  readonly range: SeriesRange;
  /** Providers to return (already validated against the spec); null for every one of the view. */
  readonly providers: readonly string[] | null;
  readonly evalTime: number;
  readonly simulated: boolean;
}

/**
 * GET /api/series/{slug}: one store read for the whole range (plus one window before its first
 * point, which that point's statistic covers), then every grid point evaluated in memory by
 * core/series.ts with the Stat's own row functions, by `evaluate` (in the service, a worker thread:
 * a cold 90-day series held the event loop up to 41 ms on the 2-core VM).
 */
export async function computeSeries(
  store: SampleStore,
  r: SeriesRequest,
  evaluate: SeriesEvaluator = evaluateSeriesInline,
): Promise<Series> {
  const { spec, range, evalTime } = r;
  const timestamps = seriesGrid(range, evalTime);
  const { providers, labelMatchers, providerMatcher } = selection(spec, r.filters);
  const d = spec.derivation;
  let values = new Map<string, (number | null)[]>();
  if (providers.length > 0) {
    // Packed as read (no Sample object per row on the event loop): a worker evaluates them.
    const samples = await selectPacked(store, {
      metric: d.metric,
      matchers: [providerMatcher, ...labelMatchers],
      after: (timestamps[0] ?? evalTime) - WINDOW_MS,
      until: evalTime,
    });
    const cellLabels = d.mode === 'latest' ? [] : d.cellLabels;
    const statistic = d.mode === 'window' ? d.rankBy : 'p50';
    values = await evaluate(
      providers,
      { mode: d.mode, cellLabels, samples, statistic },
      timestamps,
      WINDOW_MS,
    );
  }
  const wanted = r.providers === null ? null : new Set(r.providers);
  return {
    slug: spec.slug,
    title: spec.title,
    metric: spec.metric,
    unit: spec.unit,
    higherIsBetter: spec.higherIsBetter,
    range,
    filters: r.filters,
    stepMs: SERIES_GRIDS[range].stepMs,
    timestamps,
    // A provider the filters exclude has no row in that Stat, so it has no series either.
    providers: providers
      .filter((p) => wanted === null || wanted.has(p.slug))
      .map((p) => ({
        slug: p.slug,
        name: providerName(p.slug),
        color: providerColor(p.slug),
        values: values.get(p.slug) ?? timestamps.map(() => null),
      })),
    simulated: r.simulated,
  };
}
