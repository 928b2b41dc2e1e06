import type { Filters } from './api-schemas.ts';
import { DIMENSION_NAMES } from './spec-schema.ts';

export interface Site {
  readonly name: string;
  /** Origin without trailing slash, e.g. http://localhost:8080. */
  readonly baseUrl: string;
  /** True when the published samples come from simulated providers (the demo, `--simulate`). */
  readonly simulated?: boolean;
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
  audit: (s: Site, slug: string, provider: string, day: string | null = null) =>
    `${s.baseUrl}/api/audit/${slug}/${provider}${filterQuery(null, day)}`,
  compare: (s: Site, a: string, b: string) => `${s.baseUrl}/compare/${a}-vs-${b}`,
};
