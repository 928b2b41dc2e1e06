import { Registry } from 'prom-client';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HARNESS_CYCLE_METRIC } from '../../src/core/family.ts';
import { type BenchmarkSpec, type BenchmarkSpecInput, parseSpec } from '../../src/core/spec-schema.ts';
import { loadHarnessConfig, simulatorEnv } from '../../src/harness/config.ts';
import { METRICS } from '../../src/harness/families/metric-names.ts';
import { startHarness } from '../../src/harness/service.ts';
import { loadSpecs } from '../../src/publication/load-specs.ts';
import { startSimulator } from '../../src/sim/server.ts';
import { type CountingStore, openTestStore } from '../helpers/memory-store.ts';

/**
 * One probe per family per slot: the probe runs over the union of the providers and cells of the
 * family's benchmarks, a provider is asked each question once per slot however many benchmarks
 * read the answer, samples are stored once, and each benchmark gets its cycle marker and a report
 * of its own providers and cells.
 */
const T = Date.UTC(2026, 6, 23, 0, 0, 0);
let specs: BenchmarkSpec[];
const bySlug = (s: string) => specs.find((x) => x.slug === s) as BenchmarkSpec;

/** A second benchmark of a family: a copy of `base` narrowed to some providers (and chains). */
function narrowed(base: BenchmarkSpec, slug: string, number: string, providers: BenchmarkSpec['providers']) {
  const input: BenchmarkSpecInput = { ...base, slug, number, providers };
  return parseSpec(`${slug}.yml`, input);
}

beforeAll(async () => {
  specs = await loadSpecs(new URL('../../benchmarks', import.meta.url).pathname);
});

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
});

async function measure(benchmarks: readonly BenchmarkSpec[], run: (slug: string) => string[]) {
  const sim = await startSimulator({ seed: 7 });
  const store: CountingStore = await openTestStore();
  const harness = startHarness({
    store,
    specs: benchmarks,
    metrics: new Registry(),
    harnessConfig: loadHarnessConfig(simulatorEnv(sim.baseUrls, sim.keys, { HARNESS_TIMEOUT_MS: '2000' })),
    autoStart: false,
    sleep: async () => {},
  });
  cleanup.push(async () => {
    await harness.stop();
    await sim.close();
    await store.close();
  });
  const reports = [];
  for (const slug of run('')) reports.push(await harness.runCycle(slug, T));
  return { requests: sim.stats().byProvider, store, reports };
}

describe('one probe per family per slot', () => {
  it('chain-listing: two benchmarks, each provider listed once, one append, a marker per benchmark', async () => {
    const net = bySlug('network-coverage');
    const evm = narrowed(net, 'network-coverage-evm', '006', net.providers.slice(0, 3));
    const alone = await measure([net], () => ['network-coverage']);
    const both = await measure([net, evm], () => ['network-coverage', 'network-coverage-evm']);
    // The same requests as network-coverage alone: the narrower benchmark adds none.
    expect(both.requests).toEqual(alone.requests);
    expect(both.store.appendCalls).toBe(1);
    const markers = await both.store.select({ metric: HARNESS_CYCLE_METRIC, after: T - 1, until: T });
    expect(markers.map((s) => s.labels.benchmark).sort()).toEqual([
      'network-coverage',
      'network-coverage-evm',
    ]);
    const [netReport, evmReport] = both.reports;
    expect(netReport?.providers.map((p) => p.provider)).toEqual(net.providers.map((p) => p.slug));
    expect(evmReport?.providers.map((p) => p.provider)).toEqual(evm.providers.map((p) => p.slug));
    // The samples are stored once: the same ones as network-coverage alone wrote.
    const all = async (s: CountingStore) =>
      (await s.select({ metric: METRICS.networksSupported, after: T - 1, until: T }))
        .map((x) => `${x.labels.provider}=${x.v}`)
        .sort();
    expect(await all(both.store)).toEqual(await all(alone.store));
  });

  it('trade-capture: a narrower benchmark adds no request; each benchmark tallies its own cells', async () => {
    const trade = bySlug('token-trade-coverage');
    const solana = narrowed(
      trade,
      'token-trade-solana',
      '091',
      trade.providers.slice(0, 2).map((p) => ({ ...p, chains: ['solana'] })),
    );
    const alone = await measure([trade], () => ['token-trade-coverage']);
    const both = await measure([trade, solana], () => ['token-trade-coverage', 'token-trade-solana']);
    expect(both.requests).toEqual(alone.requests);
    expect(both.store.appendCalls).toBe(1);
    const [tradeReport, solanaReport] = both.reports;
    expect(tradeReport?.cells?.length).toBeGreaterThan(2);
    expect(solanaReport?.cells?.map((c) => c.chain)).toEqual(['solana', 'solana']);
    for (const c of solanaReport?.cells ?? []) {
      expect(c.providers.map((p) => p.provider).sort()).toEqual(solana.providers.map((p) => p.slug).sort());
    }
    // The cycle-of-5xx marker is per benchmark, over its own cells.
    const fiveXx = await both.store.select({ metric: METRICS.providerCycle5xx, after: T - 1, until: T });
    expect(
      fiveXx
        .filter((s) => s.labels.benchmark === 'token-trade-solana')
        .map((s) => s.labels.provider)
        .sort(),
    ).toEqual(solana.providers.map((p) => p.slug).sort());
    expect(fiveXx.filter((s) => s.labels.benchmark === 'token-trade-coverage')).toHaveLength(
      trade.providers.length,
    );
  });

  it('a second runCycle of the same family and slot returns that slot’s report without probing again', async () => {
    const net = bySlug('network-coverage');
    const r = await measure([net], () => ['network-coverage', 'network-coverage']);
    const once = await measure([net], () => ['network-coverage']);
    expect(r.requests).toEqual(once.requests);
    expect(r.reports[0]).toBe(r.reports[1]);
  });
});
