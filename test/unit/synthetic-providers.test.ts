import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { catalogueSpec, writeCatalogue } from '../../bench/catalogue.ts';
import { ConfigError, loadConfig, testConfig } from '../../src/config.ts';
import {
  isSyntheticProvider,
  PROVIDERS,
  type ProviderInfo,
  providerName,
  registerSyntheticProviders,
} from '../../src/core/providers.ts';
import { parseSpec, SpecError } from '../../src/core/spec-schema.ts';
import { loadProviderCatalogue, loadSpecs } from '../../src/publication/load-specs.ts';
import { createPublication } from '../../src/publication/publication.ts';
import { readOrigins } from '../../src/publication/sample-origins.ts';
import { openDuckDbStore } from '../../src/store/duckdb-store.ts';
import { BENCHMARKS_DIR } from '../helpers/fixture.ts';

// Registration is process-wide; vitest runs each test file in its own module graph, so the checks
// of the unregistered state come first and nothing leaks into other files.
describe('synthetic providers (scale benchmarks only)', () => {
  it('are absent unless registered: the registry is the eighteen real providers', async () => {
    // The registry is the catalogue (benchmarks/providers.yml) once loaded, nothing before.
    expect(PROVIDERS.size).toBe(0);
    await loadProviderCatalogue(BENCHMARKS_DIR);
    expect(PROVIDERS.size).toBe(18);
    expect([...PROVIDERS.keys()].some((s) => s.startsWith('synthetic-'))).toBe(false);
    expect(isSyntheticProvider('synthetic-01')).toBe(false);
    expect(() =>
      parseSpec(
        'synthetic-0001.yml',
        catalogueSpec(1, [{ ...(PROVIDERS.get('codex') as ProviderInfo), slug: 'synthetic-01' }]),
      ),
    ).toThrow(/unknown provider "synthetic-01"/);
    expect(loadConfig({}).syntheticProviders).toBe(0);
  });

  it('are requested by CITEBENCH_SYNTHETIC_PROVIDERS, validated like every variable', () => {
    expect(loadConfig({ CITEBENCH_SYNTHETIC_PROVIDERS: '20' }).syntheticProviders).toBe(20);
    for (const bad of ['abc', '100', '-1', '2.5']) {
      expect(() => loadConfig({ CITEBENCH_SYNTHETIC_PROVIDERS: bad })).toThrow(ConfigError);
    }
  });

  it('register as synthetic-NN, named "Synthetic NN", with distinct colors and no real website', () => {
    const list = registerSyntheticProviders(20);
    expect(list.map((p) => p.slug)).toEqual(
      Array.from({ length: 20 }, (_, i) => `synthetic-${String(i + 1).padStart(2, '0')}`),
    );
    expect(providerName('synthetic-07')).toBe('Synthetic 07');
    expect(list.every((p) => new URL(p.website).hostname.endsWith('.invalid'))).toBe(true);
    const colors = [...PROVIDERS.values()].map((p) => p.color);
    expect(new Set(colors).size).toBe(colors.length);
    expect(colors.every((c) => /^#[0-9a-f]{6}$/.test(c))).toBe(true);
    expect(isSyntheticProvider('synthetic-01')).toBe(true);
    expect(isSyntheticProvider('codex')).toBe(false);
    // Idempotent; the real providers are untouched.
    expect(registerSyntheticProviders(20)).toHaveLength(20);
    expect(PROVIDERS.size).toBe(38);
    expect(PROVIDERS.get('codex')?.name).toBe('Codex');
    expect(() => registerSyntheticProviders(100)).toThrow(RangeError);
    expect(parseSpec('synthetic-0001.yml', catalogueSpec(1, list)).providers).toHaveLength(20);
  });

  it('the catalogue generator writes valid specs and a store the service reads as simulated', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'catalogue-'));
    try {
      const now = Date.UTC(2026, 10, 20, 12, 5);
      const c = await writeCatalogue({ dir, n: 3, providers: 4, hours: 2, stepMinutes: 20, now });
      expect(await readdir(c.benchmarksDir)).toEqual([
        'synthetic-0001.yml',
        'synthetic-0002.yml',
        'synthetic-0003.yml',
      ]);
      const specs = await loadSpecs(c.benchmarksDir);
      expect(specs.map((s) => [s.slug, s.number, s.derivation.metric])).toEqual([
        ['synthetic-0001', '000', 'synthetic_0001_value'],
        ['synthetic-0002', '001', 'synthetic_0002_value'],
        ['synthetic-0003', '002', 'synthetic_0003_value'],
      ]);
      // 3 specs × 4 providers × 6 cycles, plus a harness_cycle marker per spec and cycle.
      expect(c.valueSamples).toBe(72);
      expect(c.samples).toBe(72 + 18);
      expect(c.lastCycle).toBe(Date.UTC(2026, 10, 20, 12, 0));
      const store = await openDuckDbStore({ path: join(c.dataDir, 'citebench.duckdb') });
      const valuesOf = async (s: typeof store) =>
        (await s.select({ metric: 'synthetic_0003_value', after: 0, until: now })).map((x) => x.v);
      let first: number[];
      try {
        first = await valuesOf(store);
        expect(await readOrigins(store)).toEqual({ simulated: true, measured: false });
        const latest = await store.latest({ metric: 'synthetic_0002_value', at: now });
        expect(latest.map((s) => [s.labels.provider, s.labels.origin, s.t])).toEqual(
          ['01', '02', '03', '04'].map((n) => [`synthetic-${n}`, 'simulated', c.lastCycle]),
        );
      } finally {
        await store.close();
      }
      // Deterministic: the same options give the same values.
      const again = await writeCatalogue({ dir, n: 3, providers: 4, hours: 2, stepMinutes: 20, now });
      const reopened = await openDuckDbStore({ path: join(again.dataDir, 'citebench.duckdb') });
      const second = await valuesOf(reopened);
      await reopened.close();
      expect(first).toHaveLength(24);
      expect(second).toEqual(first);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('window mode: specs of family synthetic-window that the shared window derivation ranks', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'catalogue-window-'));
    try {
      const now = Date.UTC(2026, 10, 20, 12, 5);
      const c = await writeCatalogue({
        dir,
        n: 2,
        providers: 4,
        hours: 4,
        stepMinutes: 20,
        now,
        mode: 'window',
      });
      const specs = await loadSpecs(c.benchmarksDir);
      expect(specs.map((s) => [s.slug, s.family, s.derivation.mode, s.derivation.metric])).toEqual([
        ['synthetic-0001', 'synthetic-window', 'window', 'synthetic_0001_ms'],
        ['synthetic-0002', 'synthetic-window', 'window', 'synthetic_0002_ms'],
      ]);
      // 2 specs × 4 providers × 12 cycles of probes, a latency for each that succeeded, 24 markers.
      expect(c.samples).toBe(96 + c.valueSamples + 24);
      expect(c.valueSamples).toBeGreaterThan(90);
      const store = await openDuckDbStore({ path: join(c.dataDir, 'citebench.duckdb') });
      const pub = createPublication({ specs, store, config: testConfig(), clock: () => now });
      try {
        const { value: stat } = await pub.stat('synthetic-0001', null);
        expect(stat.rankings.map((r) => r.rank)).toEqual([1, 2, 3, 4]);
        expect(stat.rankings.every((r) => r.sampleSize >= 10 && r.sampleSize <= 12)).toBe(true);
        expect(stat.unit).toBe('ms');
        const p50s = stat.rankings.map((r) => r.ms.p50);
        expect(p50s).toEqual([...p50s].sort((a, b) => a - b));
        // Intervals and the leader tests come with the derivation (issue 24).
        expect(stat.rankings.every((r) => r.ci95?.p50 !== null && r.ci95?.p99 === null)).toBe(true);
        expect(stat.rankings.slice(1).every((r) => r.vsLeader?.margin === 2)).toBe(true);
      } finally {
        pub.close();
        await store.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a spec naming an unregistered synthetic provider is still refused', () => {
    expect(() =>
      parseSpec('synthetic-0001.yml', {
        ...catalogueSpec(1, registerSyntheticProviders(20)),
        providers: [{ slug: 'synthetic-50', endpoint: 'none', kind: 'dex-index' }],
      }),
    ).toThrow(SpecError);
  });
});
