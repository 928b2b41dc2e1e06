import type { BenchmarkSpec, ProviderEntry } from '../../core/spec-schema.ts';

export interface UnionProvider {
  readonly slug: string;
  /** Slugs of the benchmarks that list the provider, in spec order. */
  readonly benchmarks: readonly string[];
  /** Its entry in each of those benchmarks, in the same order. */
  readonly entries: readonly ProviderEntry[];
}

/**
 * The providers of a family's benchmarks, each once, in order of first appearance (specs in
 * number order, providers in spec order): what one probe asks. With one benchmark this is its
 * provider list exactly, so the probe asks in the order it always did.
 */
export function providerUnion(benchmarks: readonly BenchmarkSpec[]): UnionProvider[] {
  const out = new Map<string, { slug: string; benchmarks: string[]; entries: ProviderEntry[] }>();
  for (const spec of benchmarks) {
    for (const p of spec.providers) {
      let u = out.get(p.slug);
      if (!u) {
        u = { slug: p.slug, benchmarks: [], entries: [] };
        out.set(p.slug, u);
      }
      u.benchmarks.push(spec.slug);
      u.entries.push(p);
    }
  }
  return [...out.values()];
}
