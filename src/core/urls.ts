import type { Filters } from './api-schemas.ts';
import { DIMENSION_NAMES } from './spec-schema.ts';

export interface Site {
  readonly name: string;
  /** Origin without trailing slash, e.g. http://localhost:8080. */
  readonly baseUrl: string;
}

export function filterQuery(filters: Filters | null): string {
  if (!filters) return '';
  const parts: string[] = [];
  for (const d of DIMENSION_NAMES) {
    const v = filters[d];
    if (v !== undefined) parts.push(`${d}=${encodeURIComponent(v)}`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

export const urls = {
  page: (s: Site, slug: string, f: Filters | null = null) =>
    `${s.baseUrl}/benchmarks/${slug}${filterQuery(f)}`,
  stat: (s: Site, slug: string, f: Filters | null = null) => `${s.baseUrl}/api/stat/${slug}${filterQuery(f)}`,
  og: (s: Site, slug: string) => `${s.baseUrl}/api/og/${slug}`,
  sparkline: (s: Site, slug: string) => `${s.baseUrl}/api/sparkline/${slug}`,
  audit: (s: Site, slug: string, provider: string) => `${s.baseUrl}/api/audit/${slug}/${provider}`,
  compare: (s: Site, a: string, b: string) => `${s.baseUrl}/compare/${a}-vs-${b}`,
};
