import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../../src/config.ts';
import type { Filters } from '../../src/core/api-schemas.ts';
import { HARNESS_CYCLE_METRIC } from '../../src/core/family.ts';
import { withLeaderTests, withLeaderTestsBy } from '../../src/core/leader-tests.ts';
import { packSamples } from '../../src/core/packed-samples.ts';
import { pairedAgainst } from '../../src/core/paired.ts';
import { prng } from '../../src/core/prng.ts';
import { ProbeColumns } from '../../src/core/probe-columns.ts';
import { rankRows } from '../../src/core/rank-rows.ts';
import { comparablePairs, windowRows, windowRowsOf } from '../../src/core/rows.ts';
import type { Sample } from '../../src/core/samples.ts';
import { evaluateSeries } from '../../src/core/series.ts';
import type { BenchmarkSpec } from '../../src/core/spec-schema.ts';
import { quantileOfOrder, quantileSorted, quantileUnsorted, sortFloat64 } from '../../src/core/stats.ts';
import { signTest } from '../../src/core/uncertainty.ts';
import { WindowColumns } from '../../src/core/window-columns.ts';
import { JSON_RPC_METRICS as M } from '../../src/harness/families/json-rpc/metrics.ts';
import { computeStat } from '../../src/publication/compute.ts';
import { loadSpecs } from '../../src/publication/load-specs.ts';
import { siteOfConfig } from '../../src/publication/site-of-config.ts';
import { type DuckDbStore, openDuckDbStore } from '../../src/store/duckdb-store.ts';
import { countingReads } from '../helpers/counting-store.ts';
import { BENCHMARKS_DIR } from '../helpers/fixture.ts';
import { writeRpcSlots } from '../helpers/rpc-dataset.ts';

/**
 * The window derivation in columns (core/window-columns.ts, what a cold Stat of the json-rpc family
 * runs) gives the bytes the same derivation gives over Sample objects, on the family's own shape of
 * data with the cases the rules single out, and its pieces agree with the Sample functions on
 * random samples.
 */

const MIN = 60_000;
/** 2026-11-20T12:00Z, minute-aligned. */
const END = Date.UTC(2026, 10, 20, 12, 0, 0);
const SLOTS = 90;
const site = siteOfConfig(testConfig({ baseUrl: 'http://bench.test' }));

let specs: BenchmarkSpec[];
let store: DuckDbStore;
const spec = (slug: string) => specs.find((s) => s.slug === slug) as BenchmarkSpec;

/**
 * The cases beside the harness's regular slots: a region where one provider alone was measured (a
 * noComparison row under ?region=lonely), a provider with samples on a chain it does not declare
 * (in the aggregate's pairs, not in that chain's), and one provider's second series on the same
 * cells (another origin) at the same times.
 */
function edgeSamples(from: number): Sample[] {
  const out: Sample[] = [];
  for (let slot = 0; slot < SLOTS; slot++) {
    const t = from + slot * MIN;
    for (const kind of ['block-number', 'logs'] as const) {
      const labels = { provider: 'ankr', chain: 'ethereum', kind, region: 'lonely', origin: 'simulated' };
      out.push({ metric: M.latencyMs, labels, t, v: 40 + (slot % 7) });
      out.push({ metric: M.probeOk, labels, t, v: slot % 11 === 0 ? 0 : 1 });
    }
    const onBsc = {
      provider: 'tenderly',
      chain: 'bsc',
      kind: 'call',
      region: 'us-east',
      origin: 'simulated',
    };
    out.push({ metric: M.latencyMs, labels: onBsc, t, v: 20 + (slot % 5) });
    out.push({ metric: M.probeOk, labels: onBsc, t, v: 1 });
    out.push({
      metric: M.headLagMs,
      labels: { provider: 'tenderly', chain: 'bsc', region: 'us-east' },
      t,
      v: 0,
    });
    if (slot % 3 === 0) {
      const twin = {
        provider: 'alchemy',
        chain: 'base',
        kind: 'balance',
        region: 'eu-west',
        origin: 'measured',
      };
      out.push({ metric: M.latencyMs, labels: twin, t, v: 5 + (slot % 13) });
      out.push({ metric: M.probeOk, labels: twin, t, v: 1 });
    }
  }
  return out;
}

beforeAll(async () => {
  specs = await loadSpecs(BENCHMARKS_DIR);
  store = await openDuckDbStore({ path: ':memory:' });
  const from = END - (SLOTS - 1) * MIN;
  // Appended in batches of slots, not one append per region and slot: the same rows, faster.
  const batch: Sample[] = [];
  await writeRpcSlots(specs, from, SLOTS, async (s) => {
    batch.push(...s);
    return s.length;
  });
  batch.push(...edgeSamples(from));
  batch.push({ metric: HARNESS_CYCLE_METRIC, labels: { benchmark: 'rpc-latency' }, t: END, v: 1 });
  for (let i = 0; i < batch.length; i += 50_000) await store.append(batch.slice(i, i + 50_000));
}, 120_000);
afterAll(async () => {
  await store?.close();
});

const FILTERS: (Filters | null)[] = [
  null,
  { region: 'eu-west' },
  { region: 'lonely' },
  { chain: 'bsc' },
  { chain: 'base' },
  { kind: 'logs' },
  { kind: 'block' },
  { chain: 'ethereum', kind: 'block-number' },
  { region: 'lonely', chain: 'ethereum' },
  { region: 'us-east', chain: 'bsc' },
  { chain: 'base', kind: 'balance' },
];

describe('the window derivation in columns', () => {
  for (const slug of ['rpc-latency', 'rpc-head-lag']) {
    it(`gives the bytes of the Sample-object derivation: ${slug}, every filter, two points and a pinned day`, async () => {
      const s = spec(slug);
      let compared = 0;
      for (const filters of FILTERS) {
        if (filters?.kind !== undefined && !s.dimensions.kind) continue;
        for (const [evalTime, opts] of [
          [END, {}],
          [END - 37 * MIN, {}],
          [END, { pinDay: '2026-11-20' }],
        ] as const) {
          const objects = await computeStat(store, s, filters, evalTime, site, {
            ...opts,
            sampleObjects: true,
          });
          const columns = await computeStat(store, s, filters, evalTime, site, opts);
          expect(JSON.stringify(columns), `${slug} ${JSON.stringify(filters)} at ${evalTime}`).toBe(
            JSON.stringify(objects),
          );
          compared++;
        }
      }
      expect(compared).toBeGreaterThan(20);
    });
  }

  it('covers what the rules single out: a noComparison row, ties and separations, a sparkline', async () => {
    const lonely = await computeStat(store, spec('rpc-latency'), { region: 'lonely' }, END, site);
    expect(lonely.rankings.map((r) => [r.slug, r.noComparison])).toEqual([['ankr', true]]);
    const all = await computeStat(store, spec('rpc-latency'), null, END, site);
    expect(all.rankings.filter((r) => r.vsLeader !== undefined).length).toBeGreaterThan(3);
    expect(all.sparkline.length).toBeGreaterThan(0);
    expect(all.bestPerChain?.bsc).toBeDefined();
  });

  it('reads its values and probes packed: no Sample object per row for them', async () => {
    const counted = countingReads(store);
    // A point no view was computed at, so nothing is answered from a cache.
    await computeStat(counted.store, spec('rpc-latency'), { kind: 'call' }, END - 11 * MIN, site);
    // The json-rpc family's own extra (down slots, ~1 per provider, region and slot) is a select.
    expect(counted.calls).toEqual({ select: 1, selectPacked: 2 });
  });
});

/** Random samples of a window view: few providers, cells, regions and cycles, some series sparse. */
function randomView(seed: number): Sample[] {
  const r = prng(seed);
  const providers = ['p1', 'p2', 'p3', 'p4'].slice(0, 1 + Math.floor(r() * 4));
  const cells = ['a', 'b', 'c'].slice(0, 1 + Math.floor(r() * 3));
  const regions = ['r1', 'r2'].slice(0, 1 + Math.floor(r() * 2));
  const cycles = 1 + Math.floor(r() * 12);
  const out: Sample[] = [];
  for (const provider of providers)
    for (const cell of cells)
      for (const region of regions) {
        // One labels object per series, as a store hands them out; some series twice (origins).
        for (const origin of r() < 0.2 ? ['x', 'y'] : ['x']) {
          const labels = { provider, cell, region, origin };
          for (let c = 0; c < cycles; c++) {
            if (r() < 0.35) continue;
            const v = r() < 0.2 ? Math.floor(r() * 3) : Math.round(r() * 1e4) / 100;
            out.push({ metric: 'm', labels, t: 1_800_000_000_000 + c * MIN, v });
          }
        }
      }
  return out;
}

describe('window columns against the Sample functions, on random views', () => {
  it('marks the comparable pairs comparablePairs marks, and gives windowRows and the leader tests', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const values = randomView(seed);
      const packed = packSamples(values);
      const columns = WindowColumns.of(packed, ['cell']);
      expect(columns).not.toBeNull();
      if (!columns) continue;
      const pairs = comparablePairs(values, ['cell']);
      const flags = columns.comparable(null, Number.NEGATIVE_INFINITY);
      expect(Array.from(flags, (f) => f === 1)).toEqual(values.map((s) => pairs.has(s)));
      const providers = ['p1', 'p2', 'p3', 'p4'].map((slug) => ({ slug, endpoint: 'none' }));
      const probes = values.map((s) => ({ ...s, v: s.v > 50 ? 1 : 0 }));
      const own = columns.own(null, Number.NEGATIVE_INFINITY);
      const fromColumns = rankRows(
        windowRowsOf(
          providers,
          columns.windowSamples(own, flags, new ProbeColumns(packSamples(probes)).counts(null)),
          {
            minSamples: 3,
          },
        ),
        false,
      );
      const fromSamples = rankRows(
        windowRows(providers, { cellLabels: ['cell'], values, probes, minSamples: 3 }),
        false,
      );
      expect(fromColumns).toEqual(fromSamples);
      const margin = { margin: 1, higherIsBetter: false };
      expect(withLeaderTestsBy(structuredClone(fromColumns), margin, columns.pairWith(own))).toEqual(
        withLeaderTests(structuredClone(fromSamples), { ...margin, values, cellLabels: ['cell'] }),
      );
    }
  });

  it('pairs each cycle as pairedAgainst pairs it: the same sign test for every pair of providers', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const values = randomView(seed);
      const columns = WindowColumns.of(packSamples(values), ['cell']);
      if (!columns) continue;
      const pairWith = columns.pairWith(columns.own(null, Number.NEGATIVE_INFINITY));
      for (const a of ['p1', 'p2', 'p3'])
        for (const b of ['p2', 'p3', 'p4']) {
          const bySamples = pairedAgainst(
            values.filter((s) => s.labels.provider === a),
            ['cell'],
          )(values.filter((s) => s.labels.provider === b)).diffs;
          expect(signTest(pairWith(a)(b).diffs)).toEqual(signTest(bySamples));
          expect(pairWith(a)(b).diffs.length).toBe(bySamples.length);
        }
    }
  });

  it('draws the series evaluateSeries draws', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const values = randomView(seed);
      const columns = WindowColumns.of(packSamples(values), ['cell']);
      if (!columns) continue;
      const flags = columns.comparable(null, Number.NEGATIVE_INFINITY);
      const grid = Array.from({ length: 9 }, (_, k) => 1_800_000_000_000 + (k * 3 - 4) * MIN);
      const entry = { slug: 'p1', endpoint: 'none' };
      expect(columns.seriesFor('p1', flags, grid, 5 * MIN)).toEqual(
        evaluateSeries([entry], { mode: 'window', cellLabels: ['cell'], values }, grid, 5 * MIN).get('p1'),
      );
    }
  });
});

describe('the selection and sorting the columns use', () => {
  it('sortFloat64 orders as Float64Array sort does: signs, zeros, infinities, repeats, any size', () => {
    const r = prng(5);
    const pools = [
      () => (r() - 0.5) * 1e6,
      () =>
        [0, -0, 1, -1, 1e-300, -1e-300, 1e300, -1e300, Number.MIN_VALUE, Number.POSITIVE_INFINITY][
          Math.floor(r() * 10)
        ] as number,
      () => Math.floor(r() * 4) * 12_000,
      () => Math.round((15 + 150 * r() ** 3) * 1000) / 1000,
    ];
    for (let trial = 0; trial < 200; trial++) {
      const draw = pools[trial % pools.length] as () => number;
      const xs = Float64Array.from({ length: Math.floor(r() * 4000) }, draw);
      expect(sortFloat64(xs.slice())).toEqual(xs.slice().sort());
    }
  });

  it('quantileUnsorted and quantileOfOrder give quantileSorted to the bit, repeated values included', () => {
    const r = prng(3);
    for (let trial = 0; trial < 5000; trial++) {
      const distinct = 1 + Math.floor(r() * 5);
      const xs = Array.from({ length: 1 + Math.floor(r() * 80) }, () =>
        r() < 0.6 ? Math.floor(r() * distinct) * 1000 : r() * 100,
      );
      const q = [0, 0.5, 0.9, 0.99, 1, r()][Math.floor(r() * 6)] as number;
      const sorted = Float64Array.from(xs).sort();
      const want = quantileSorted(sorted, q);
      expect(quantileUnsorted([...xs], q)).toBe(want);
      expect(quantileUnsorted(Float64Array.from(xs), q)).toBe(want);
      expect(quantileOfOrder(xs.length, q, (k) => sorted[k] as number)).toBe(want);
    }
  });
});
