import { resolve } from 'node:path';
import { testConfig } from '../../src/config.ts';
import type { Sample } from '../../src/core/samples.ts';
import type { BenchmarkSpec } from '../../src/core/spec-schema.ts';
import { buildDataset } from '../../src/demo/dataset.ts';
import { loadSpecs } from '../../src/publication/load-specs.ts';
import { createPublication, type Publication } from '../../src/publication/publication.ts';
import { type DuckDbStore, openDuckDbStore } from '../../src/store/duckdb-store.ts';

export const BENCHMARKS_DIR = resolve(import.meta.dirname, '../../benchmarks');
/** 2026-11-20T12:00:00Z: a fixed "now" so expectations are exact. */
export const NOW = Date.UTC(2026, 10, 20, 12, 0, 0);
export const H = 3_600_000;

export interface Fixture {
  readonly specs: BenchmarkSpec[];
  readonly store: DuckDbStore;
  readonly publication: Publication;
  readonly clock: { now: number };
  close(): Promise<void>;
}

/**
 * `minSamples` overrides every window spec's (schema minimum 6): for tests of another rule on a
 * cycle or two; the minimum-sample rule has its own tests (test/unit/uncertainty-rules.test.ts).
 */
export async function fixture(
  opts: { samples?: readonly Sample[]; days?: number; seed?: number; minSamples?: number } = {},
): Promise<Fixture> {
  const specs = withMinSamples(await loadSpecs(BENCHMARKS_DIR), opts.minSamples);
  const store = await openDuckDbStore({ path: ':memory:' });
  const samples = opts.samples ?? buildDataset({ seed: opts.seed ?? 7, days: opts.days ?? 3, end: NOW });
  if (samples.length) await store.append(samples);
  const clock = { now: NOW };
  const publication = createPublication({
    specs,
    store,
    config: testConfig({ baseUrl: 'http://bench.test', siteName: 'Citebench' }),
    clock: () => clock.now,
  });
  return {
    specs,
    store,
    publication,
    clock,
    close: async () => {
      publication.close();
      await store.close();
    },
  };
}

/** The specs with every window derivation's minSamples set to `n` (unchanged without one). */
export function withMinSamples(specs: BenchmarkSpec[], n: number | undefined): BenchmarkSpec[] {
  if (n === undefined) return specs;
  return specs.map((s) =>
    s.derivation.mode === 'window' ? { ...s, derivation: { ...s.derivation, minSamples: n } } : s,
  );
}
