import type { Filters } from '../core/api-schemas.ts';
import { isSeriesRange, SERIES_RANGES, type SeriesRange } from '../core/series.ts';
import type { PublicationApi } from './types.ts';

export interface SeriesArgs {
  readonly range?: string | undefined;
  /** Comma-separated provider slugs, e.g. "mobula,codex". */
  readonly providers?: string | undefined;
  readonly chain?: string | undefined;
  readonly region?: string | undefined;
  readonly kind?: string | undefined;
  readonly venue?: string | undefined;
}

export type SeriesResolution =
  | {
      ok: true;
      filters: Filters | null;
      range: SeriesRange;
      /** Sorted and deduplicated, so equal requests share one cached view; null: every provider. */
      providers: string[] | null;
    }
  | { ok: false; status: 400 | 404; error: string; message: string };

/**
 * Validates a series request for both front doors (HTTP and the get_series tool), so they answer
 * the same errors: 404 for an unknown slug, dimension value or provider, 400 for a bad range or an
 * empty provider list.
 */
export function resolveSeriesRequest(pub: PublicationApi, slug: string, a: SeriesArgs): SeriesResolution {
  const spec = pub.spec(slug);
  if (!spec) {
    return {
      ok: false,
      status: 404,
      error: 'unknown_benchmark',
      message: `Unknown benchmark "${slug.slice(0, 100)}". Valid slugs: ${pub.specs.map((s) => s.slug).join(', ')}.`,
    };
  }
  const range = a.range ?? '24h';
  if (!isSeriesRange(range)) {
    return {
      ok: false,
      status: 400,
      error: 'bad_range',
      message: `Unknown range "${range.slice(0, 20)}". Allowed: ${SERIES_RANGES.join(', ')}.`,
    };
  }
  const f = pub.resolveFilters(slug, { chain: a.chain, region: a.region, kind: a.kind, venue: a.venue });
  if (!f.ok) return f;
  let providers: string[] | null = null;
  if (a.providers !== undefined) {
    const list = a.providers.split(',').map((p) => p.trim().toLowerCase());
    if (list.some((p) => p === '')) {
      return {
        ok: false,
        status: 400,
        error: 'bad_providers',
        message: 'providers is a comma-separated list of provider slugs, e.g. providers=mobula,codex.',
      };
    }
    const known = spec.providers.map((p) => p.slug);
    const unknown = list.find((p) => !known.includes(p));
    if (unknown !== undefined) {
      return {
        ok: false,
        status: 404,
        error: 'unknown_provider',
        message: `"${unknown.slice(0, 64)}" is not measured by ${slug}. Valid: ${known.join(', ')}.`,
      };
    }
    providers = [...new Set(list)].sort();
  }
  return { ok: true, filters: f.filters, range, providers };
}
