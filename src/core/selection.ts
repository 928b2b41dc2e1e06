import type { Filters } from './api-schemas.ts';
import { DAY_MS } from './dates.ts';
import { type Matcher, oneOf } from './samples.ts';
import { type BenchmarkSpec, DIMENSION_NAMES, type ProviderEntry } from './spec-schema.ts';

/** The Stat's window: every statistic (and the staleness bound of a latest count) covers 24 h. */
export const WINDOW_MS = DAY_MS;

export interface Selection {
  /** The benchmark's providers the view keeps, in spec order. */
  readonly providers: readonly ProviderEntry[];
  /** Label matchers of the view's label dimensions (e.g. chain="solana"). */
  readonly labelMatchers: readonly Matcher[];
  /** provider=~ the kept providers: a benchmark reads only its own providers' samples. */
  readonly providerMatcher: Matcher;
}

/**
 * The providers and label matchers of a (filtered) view, as every view reads them. One probe per
 * family stores samples for the union of its benchmarks' providers; this is where each benchmark
 * narrows them to its own providers and cells.
 */
export function selection(spec: BenchmarkSpec, filters: Filters | null): Selection {
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
  const providerMatcher = oneOf(
    'provider',
    providers.map((p) => p.slug),
  );
  return { providers, labelMatchers, providerMatcher };
}
