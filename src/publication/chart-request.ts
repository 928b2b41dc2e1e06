import type { Filters } from '../core/api-schemas.ts';
import { CHART_RANGES, type ChartRange, DEFAULT_CHART_RANGE, isChartRange } from '../core/history-svg.ts';
import { resolveSeriesRequest } from './series-request.ts';
import type { PublicationApi } from './types.ts';

export interface ChartArgs {
  readonly range?: string | undefined;
  readonly chain?: string | undefined;
  readonly region?: string | undefined;
  readonly kind?: string | undefined;
  readonly venue?: string | undefined;
}

export type ChartResolution =
  | { ok: true; filters: Filters | null; range: ChartRange }
  | { ok: false; status: 400 | 404; error: string; message: string };

/**
 * Validates a chart request (GET /api/chart/{slug} and the benchmark page's History section) in
 * /api/series's order and words: 404 for an unknown slug, 400 for a range outside the chart's
 * (7d, 30d, 90d; 24 h is the sparkline's), then the series' own filter rules (404 for an unknown
 * dimension value), which resolveSeriesRequest applies.
 */
export function resolveChartRequest(pub: PublicationApi, slug: string, a: ChartArgs): ChartResolution {
  const range = a.range ?? DEFAULT_CHART_RANGE;
  if (!isChartRange(range)) {
    // An unknown benchmark is named first, as /api/series names it.
    const known = resolveSeriesRequest(pub, slug, {});
    if (!known.ok && known.error === 'unknown_benchmark') return known;
    return {
      ok: false,
      status: 400,
      error: 'bad_range',
      message: `Unknown range "${range.slice(0, 20)}". Allowed: ${CHART_RANGES.join(', ')}.`,
    };
  }
  const r = resolveSeriesRequest(pub, slug, { ...a, range });
  return r.ok ? { ok: true, filters: r.filters, range } : r;
}
