import type { Filters } from './api-schemas.ts';
import { DIMENSION_NAMES } from './spec-schema.ts';

export interface Site {
  readonly name: string;
  /** Origin without trailing slash, e.g. http://localhost:8080. */
  readonly baseUrl: string;
  /** True when the published samples come from simulated providers (the demo, `--simulate`). */
  readonly simulated?: boolean;
  /**
   * SOURCE_URL as configured, `{family}` unreplaced (src/core/source-url.ts); absent: the
   * methodology's harness section, the demo's and `--simulate`'s default.
   */
  readonly sourceUrl?: string;
}

/**
 * The query string of a view: its dimension filters, and `date` for a view pinned to a frozen day
 * (a link inside a day snapshot must resolve to that day's numbers, not today's).
 */
export function filterQuery(filters: Filters | null, day: string | null = null): string {
  const parts: string[] = [];
  for (const d of DIMENSION_NAMES) {
    const v = filters?.[d];
    if (v !== undefined) parts.push(`${d}=${encodeURIComponent(v)}`);
  }
  if (day !== null) parts.push(`date=${day}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

export interface WindowAuditLink {
  readonly window: string;
  readonly filters: Filters | null;
}

export const urls = {
  page: (s: Site, slug: string, f: Filters | null = null, day: string | null = null) =>
    `${s.baseUrl}/benchmarks/${slug}${filterQuery(f, day)}`,
  stat: (s: Site, slug: string, f: Filters | null = null, day: string | null = null) =>
    `${s.baseUrl}/api/stat/${slug}${filterQuery(f, day)}`,
  // A filtered view points at the image of that view, never at the unfiltered one.
  og: (s: Site, slug: string, f: Filters | null = null, day: string | null = null) =>
    `${s.baseUrl}/api/og/${slug}${filterQuery(f, day)}`,
  sparkline: (s: Site, slug: string, f: Filters | null = null, day: string | null = null) =>
    `${s.baseUrl}/api/sparkline/${slug}${filterQuery(f, day)}`,
  /**
   * A latest-mode row's audit is its latest listing; a window-mode row links the answer it can be
   * recomputed from: every cycle of the Stat's window, narrowed by the same filters.
   */
  audit: (
    s: Site,
    slug: string,
    provider: string,
    day: string | null = null,
    window: WindowAuditLink | null = null,
  ) =>
    window === null
      ? `${s.baseUrl}/api/audit/${slug}/${provider}${filterQuery(null, day)}`
      : `${s.baseUrl}/api/audit/${slug}/${provider}?window=${window.window}${filterQuery(window.filters, day).replace('?', '&')}`,
  compare: (s: Site, a: string, b: string) => `${s.baseUrl}/compare/${a}-vs-${b}`,
  providerPage: (s: Site, slug: string, day: string | null = null) =>
    `${s.baseUrl}/providers/${slug}${filterQuery(null, day)}`,
  providerApi: (s: Site, slug: string, day: string | null = null) =>
    `${s.baseUrl}/api/providers/${slug}${filterQuery(null, day)}`,
};
