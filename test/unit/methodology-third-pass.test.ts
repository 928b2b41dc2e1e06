import { beforeAll, describe, expect, it } from 'vitest';
import { rankRows } from '../../src/core/rank-rows.ts';
import { ProbeGrid } from '../../src/core/reliability.ts';
import type { UnrankedRow } from '../../src/core/rows.ts';
import type { Sample } from '../../src/core/samples.ts';
import type { BenchmarkSpec } from '../../src/core/spec-schema.ts';
import { JSON_RPC_METRICS as M } from '../../src/harness/families/json-rpc/metrics.ts';
import { keyRefusals, samplesOf } from '../../src/harness/families/json-rpc/probe.ts';
import { seriesOffset } from '../../src/harness/families/json-rpc/series.ts';
import { createMemoryStore } from '../../src/harness/memory-store.ts';
import { compareRowFor } from '../../src/publication/compare-rows.ts';
import { computeStat } from '../../src/publication/compute.ts';
import { loadSpecs } from '../../src/publication/load-specs.ts';
import { BENCHMARKS_DIR } from '../helpers/fixture.ts';

let latency: BenchmarkSpec;
let headLag: BenchmarkSpec;
beforeAll(async () => {
  const specs = await loadSpecs(BENCHMARKS_DIR);
  latency = specs.find((s) => s.slug === 'rpc-latency') as BenchmarkSpec;
  headLag = specs.find((s) => s.slug === 'rpc-head-lag') as BenchmarkSpec;
});

const MIN = 60_000;
const T0 = Date.UTC(2026, 10, 20, 0, 0);
const SITE = { baseUrl: 'http://x', name: 'x' };
type Kind = 'block-number' | 'balance' | 'call' | 'logs' | 'block';
const series = (provider: string, chain = 'ethereum', kind: Kind = 'block-number') => ({
  provider,
  chain,
  kind,
  offsetMs: seriesOffset(provider, chain, kind, 0),
});

/** Deterministic uniform draws in [0, 1). */
function draws(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

type Outcome = Parameters<typeof samplesOf>[0][number];

/** `slots` one-minute slots of rpc-latency probes, each slot's outcomes from `slot(i)`. */
async function latencyStore(slots: number, slot: (i: number) => Outcome[]) {
  const store = createMemoryStore();
  for (let i = 0; i < slots; i++) await store.append(samplesOf(slot(i), T0 + i * MIN, 10_000, 60_000));
  return { store, at: T0 + slots * MIN };
}

describe('rule 1: reliability ranks before speed', () => {
  it('a provider failing 20% of its probes at random never leads one answering all of them 10 ms slower', async () => {
    const r = draws(3);
    const { store, at } = await latencyStore(200, () => [
      r() < 0.2
        ? { series: series('alchemy'), ok: false, reason: 'timeout' }
        : { series: series('alchemy'), ok: true, ms: 40 },
      { series: series('infura'), ok: true, ms: 50 },
    ]);
    const stat = await computeStat(store, latency, null, at, SITE);
    const [first, second] = stat.rankings;
    // Before, the failures did not move Alchemy's p50 (40 ms) and it led at p < 1e-50.
    expect(first?.slug).toBe('infura');
    expect(stat.leader?.slug).toBe('infura');
    expect(second).toMatchObject({ slug: 'alchemy', rank: 2, lessReliableThan: ['infura'] });
    expect(second?.ms.p50).toBe(40);
    expect(second?.tiedWithLeader).toBe(false);
    // Compare agrees: the more reliable side wins, and says why.
    const row = await compareRowFor(store, latency, stat, 'alchemy', 'infura', at);
    expect(row.winner).toBe('b');
    expect(row.reliability?.moreReliable).toBe('b');
    expect(row.reliability?.failureGap).toBeGreaterThan(10);
    expect(row.reliability?.pValue).toBeLessThan(0.05);
  });

  it('a provider that never answers its slowest method (a fifth of its probes) does not lead either', async () => {
    const kinds: Kind[] = ['block-number', 'balance', 'call', 'logs', 'block'];
    const slow = (k: Kind) => (k === 'logs' ? 300 : 30);
    const { store, at } = await latencyStore(60, () =>
      kinds.flatMap((k): Outcome[] => [
        k === 'logs'
          ? { series: series('alchemy', 'ethereum', k), ok: false, reason: 'timeout' }
          : { series: series('alchemy', 'ethereum', k), ok: true, ms: slow(k) },
        { series: series('infura', 'ethereum', k), ok: true, ms: slow(k) + 10 },
      ]),
    );
    const stat = await computeStat(store, latency, null, at, SITE);
    expect(stat.rankings.map((x) => x.slug)).toEqual(['infura', 'alchemy']);
  });

  it('within the margin, failures do not reorder: speed decides', async () => {
    const r = draws(9);
    // 0.5% failures against none: under the 1-point margin however many probes.
    const { store, at } = await latencyStore(400, () => [
      r() < 0.005
        ? { series: series('alchemy'), ok: false, reason: 'timeout' }
        : { series: series('alchemy'), ok: true, ms: 40 },
      { series: series('infura'), ok: true, ms: 50 },
    ]);
    const stat = await computeStat(store, latency, null, at, SITE);
    expect(stat.rankings[0]?.slug).toBe('alchemy');
    expect(stat.rankings[1]?.lessReliableThan).toBeUndefined();
  });

  it('the order does not depend on the order providers are listed in, and cannot cycle', () => {
    // Three providers on three cells: a beats b, b beats c, c beats a on failures (each on the
    // cell pair they share), so "more reliable than" cycles; the count-then-statistic order is
    // still one order, whatever the input order.
    const probes: Sample[] = [];
    const push = (provider: string, cell: string, t: number, ok: boolean) =>
      probes.push({ metric: 'p', labels: { provider, chain: cell }, t, v: ok ? 1 : 0 });
    for (let i = 0; i < 100; i++) {
      const t = T0 + i * MIN;
      push('a', 'x', t, true);
      push('b', 'x', t, i % 2 === 0);
      push('b', 'y', t, true);
      push('c', 'y', t, i % 2 === 0);
      push('c', 'z', t, true);
      push('a', 'z', t, i % 2 === 0);
    }
    const grid = ProbeGrid.ofSamples(probes, ['chain']);
    const row = (slug: string, p50: number): UnrankedRow => ({
      name: slug,
      slug,
      ms: { p50, p90: p50, p99: p50, mean: p50 },
      successRate: 75,
      sampleSize: 200,
      unresponsive: false,
      noComparison: false,
      lastSampleAt: new Date(T0).toISOString(),
    });
    const rows = [row('a', 10), row('b', 20), row('c', 30)];
    const order = { lessReliableThan: (e: readonly string[]) => grid.lessReliableThan(e, 1) };
    const permutations = [
      [0, 1, 2],
      [0, 2, 1],
      [1, 0, 2],
      [1, 2, 0],
      [2, 0, 1],
      [2, 1, 0],
    ];
    const orders = permutations.map((p) =>
      rankRows(
        p.map((i) => rows[i] as UnrankedRow),
        false,
        order,
      ).map((r) => r.slug),
    );
    for (const o of orders) expect(o).toEqual(orders[0]);
    // Each is less reliable than exactly one other: the counts tie, the p50 decides.
    expect(orders[0]).toEqual(['a', 'b', 'c']);
  });
});

describe('rule 2: one Δ per pair', () => {
  it('a provider without the slow chain is tested against the leader on the chains both serve, as compare tests it', async () => {
    // Alchemy: 40 ms on Ethereum and Base, 200 ms on three BSC methods. Tenderly: 45 ms on
    // Ethereum and Base, and no BSC. Unfiltered, Alchemy's p50 is a BSC one (200 ms) and Tenderly
    // leads; on the pairs both were measured on, Alchemy is 5 ms faster.
    const bsc = (['balance', 'call', 'logs'] as const).flatMap((k): Outcome[] => [
      { series: series('alchemy', 'bsc', k), ok: true, ms: 200 },
      { series: series('infura', 'bsc', k), ok: true, ms: 210 },
    ]);
    const { store, at } = await latencyStore(60, (i) => [
      { series: series('alchemy', 'ethereum'), ok: true, ms: 40 + (i % 3) },
      { series: series('alchemy', 'base'), ok: true, ms: 40 + (i % 3) },
      ...bsc,
      { series: series('tenderly', 'ethereum'), ok: true, ms: 45 + (i % 3) },
      { series: series('tenderly', 'base'), ok: true, ms: 45 + (i % 3) },
    ]);
    const stat = await computeStat(store, latency, null, at, SITE);
    const leader = stat.rankings[0];
    const tenderly = stat.rankings.find((r) => r.slug === 'tenderly');
    expect(leader?.slug).toBe('tenderly');
    const alchemy = stat.rankings.find((r) => r.slug === 'alchemy');
    // Δ on shared pairs (Ethereum and Base): Tenderly − Alchemy = +5 ms, the same as compare's.
    expect(alchemy?.vsLeader?.delta).toBe(5);
    const row = await compareRowFor(store, latency, stat, 'tenderly', 'alchemy', at);
    expect(row.delta).toBe(5);
    // Both say the same thing: Alchemy is faster on what they share, so the lead is not a lead.
    expect(row.winner).toBe('b');
    expect(alchemy?.tiedWithLeader).toBe(true);
    expect(stat.headline).toMatch(/cannot be separated at the top/);
    expect(stat.headline).not.toMatch(/statistically tied/);
    expect(tenderly?.vsLeader).toBeUndefined();
    // The leader's statistic pools other cells than the rest: flagged, with the cells it lacks.
    expect(tenderly?.partialCoverage).toEqual([
      'chain=bsc,kind=balance',
      'chain=bsc,kind=call',
      'chain=bsc,kind=logs',
    ]);
    expect(alchemy?.partialCoverage).toBeUndefined();
  });
});

describe('rule 4: a degenerate statistic is never ranked', () => {
  it('head lag ranks on the mean: a provider fresher in most slots leads though both p50s are 0', async () => {
    const store = createMemoryStore();
    const r = draws(5);
    for (let i = 0; i < 100; i++) {
      const t = T0 + i * MIN;
      // Alchemy is a block behind in 40% of slots, PublicNode in 5%: both p50s are 0.
      const lagA = r() < 0.4 ? 12_000 : 0;
      const lagP = r() < 0.05 ? 12_000 : 0;
      const samples: Sample[] = [];
      for (const [provider, lag] of [
        ['alchemy', lagA],
        ['publicnode', lagP],
      ] as const) {
        const labels = { provider, chain: 'ethereum', region: 'us-east' };
        samples.push({ metric: M.headLagMs, labels, t, v: lag });
        samples.push({ metric: M.probeOk, labels: { ...labels, kind: 'block' }, t, v: 1 });
      }
      await store.append(samples);
    }
    const at = T0 + 100 * MIN;
    const stat = await computeStat(store, headLag, null, at, SITE);
    const [first, second] = stat.rankings;
    expect(first?.ms.p50).toBe(0);
    expect(second?.ms.p50).toBe(0);
    // Before, both p50s were 0 and the slug decided: Alchemy led, "tied".
    expect(first?.slug).toBe('publicnode');
    expect(stat.value).toBe(first?.ms.mean);
    expect(stat.headline).toMatch(/PublicNode is freshest at .* \(mean over 24h\)/);
    expect(second?.tiedWithLeader).toBe(false);
    const row = await compareRowFor(store, headLag, stat, 'alchemy', 'publicnode', at);
    expect(row.aValue).toBe(0);
    expect(row.ranked?.statistic).toBe('mean');
    expect(row.winner).toBe('b');
  });

  it('rows equal on the ranked statistic are ordered by their paired wins, never by slug', () => {
    const row = (slug: string): UnrankedRow => ({
      name: slug,
      slug,
      ms: { p50: 0, p90: 0, p99: 0, mean: 0 },
      successRate: 100,
      sampleSize: 100,
      unresponsive: false,
      noComparison: false,
      lastSampleAt: new Date(T0).toISOString(),
    });
    // 'zeta' wins most paired cycles against 'alpha': it ranks first despite its slug.
    const evidence = (a: string, b: string) => (a === 'zeta' ? 30 : b === 'zeta' ? -30 : 0);
    const ranked = rankRows([row('alpha'), row('zeta')], false, { evidence });
    expect(ranked.map((r) => r.slug)).toEqual(['zeta', 'alpha']);
  });
});

describe('rule 12: recomputable from the dataset', () => {
  it('a live Stat publishes its evaluation time, and the samples in the window before it give its value', async () => {
    const store = createMemoryStore();
    const lags: number[] = [];
    for (let i = 0; i < 30; i++) {
      const labels = { provider: 'alchemy', chain: 'ethereum', region: 'us-east' };
      const lag = (i % 4) * 2000;
      lags.push(lag);
      await store.append([
        { metric: M.headLagMs, labels, t: T0 + i * MIN, v: lag },
        { metric: M.probeOk, labels: { ...labels, kind: 'block' }, t: T0 + i * MIN, v: 1 },
      ]);
    }
    const at = T0 + 29 * MIN;
    // A sample after the evaluation time is not part of the view it publishes.
    await store.append([
      {
        metric: M.headLagMs,
        labels: { provider: 'alchemy', chain: 'ethereum', region: 'us-east' },
        t: at + MIN,
        v: 1e6,
      },
    ]);
    const stat = await computeStat(store, headLag, null, at, SITE);
    expect(stat.evaluatedAt).toBe(new Date(at).toISOString());
    const inWindow = lags.filter((_, i) => T0 + i * MIN > Date.parse(stat.evaluatedAt) - 24 * 60 * MIN);
    const mean = inWindow.reduce((a, b) => a + b, 0) / inWindow.length;
    expect(stat.rankings[0]?.ms.mean).toBeCloseTo(mean, 2);
  });
});

describe('rule 7: every exclusion is stored per provider, and a 401/403 is ours only when refused everywhere', () => {
  const kinds: Kind[] = ['block-number', 'balance', 'call', 'logs', 'block'];
  const slow = (k: Kind) => (k === 'logs' ? 300 : 30);

  it('a provider answering 403 instead of its slow answers fails those probes, and does not lead', async () => {
    const { store, at } = await latencyStore(60, () =>
      keyRefusals(
        kinds.flatMap((k): Outcome[] => [
          k === 'logs'
            ? { series: series('alchemy', 'ethereum', k), ok: false, reason: 'refused' }
            : { series: series('alchemy', 'ethereum', k), ok: true, ms: slow(k) },
          { series: series('infura', 'ethereum', k), ok: true, ms: slow(k) + 10 },
        ]),
      ),
    );
    const stat = await computeStat(store, latency, null, at, SITE);
    // Before, the 403s were our key refused: skipped, and Alchemy led with 100% success.
    expect(stat.rankings.map((x) => x.slug)).toEqual(['infura', 'alchemy']);
    expect(stat.rankings[1]?.successRate).toBe(80);
    const reasons = (await store.select({ metric: M.probeOk, after: 0, until: at })).filter(
      (s) => s.labels.provider === 'alchemy' && s.v === 0,
    );
    expect(new Set(reasons.map((s) => s.labels.reason))).toEqual(new Set(['refused']));
  });

  it('a key refused on every probe of the slot is ours: nothing scored, one exclusion sample per probe with its reason', () => {
    const outcomes = keyRefusals([
      ...kinds.map((k): Outcome => ({ series: series('ankr', 'ethereum', k), ok: false, reason: 'refused' })),
      { series: series('drpc', 'ethereum', 'logs'), skipped: 'stale_reference' },
      { series: series('drpc', 'ethereum', 'block'), ok: true, ms: 20 },
    ]);
    const samples = samplesOf(outcomes, T0, 10_000, 60_000);
    expect(samples.filter((s) => s.labels.provider === 'ankr' && s.metric !== M.probeExcluded)).toEqual([]);
    const excluded = samples.filter((s) => s.metric === M.probeExcluded);
    expect(excluded.map((s) => [s.labels.provider, s.labels.kind, s.labels.reason])).toEqual([
      ...kinds.map((k) => ['ankr', k, 'key_refused']),
      ['drpc', 'logs', 'stale_reference'],
    ]);
    expect(excluded.every((s) => s.v === 1 && s.labels.chain === 'ethereum')).toBe(true);
  });
});
