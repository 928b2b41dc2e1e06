import type { Filters, Series } from '../core/api-schemas.ts';
import { providerColor, providerName } from '../core/providers.ts';
import { evaluateSeries, SERIES_GRIDS, type SeriesRange, seriesGrid } from '../core/series.ts';
import type { BenchmarkSpec } from '../core/spec-schema.ts';
import type { SampleStore } from '../store/sample-store.ts';
import { selection, WINDOW_MS } from './compute.ts';

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
 * core/series.ts with the Stat's own row functions.
 */
export async function computeSeries(store: SampleStore, r: SeriesRequest): Promise<Series> {
  const { spec, range, evalTime } = r;
  const timestamps = seriesGrid(range, evalTime);
  const { providers, labelMatchers, providerMatcher } = selection(spec, r.filters);
  const d = spec.derivation;
  let values = new Map<string, (number | null)[]>();
  if (providers.length > 0) {
    const samples = await store.select({
      metric: d.metric,
      matchers: [providerMatcher, ...labelMatchers],
      after: (timestamps[0] ?? evalTime) - WINDOW_MS,
      until: evalTime,
    });
    values = evaluateSeries(
      providers,
      d.mode === 'latest'
        ? { mode: 'latest', samples }
        : { mode: 'window', cellLabels: d.cellLabels, values: samples },
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
