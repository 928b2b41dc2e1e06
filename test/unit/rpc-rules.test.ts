import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { headline } from '../../src/core/headline.ts';
import { rankRows } from '../../src/core/rank-rows.ts';
import { windowRows } from '../../src/core/rows.ts';
import type { Sample } from '../../src/core/samples.ts';
import type { BenchmarkSpec } from '../../src/core/spec-schema.ts';
import { jsonRpcExtras } from '../../src/harness/families/json-rpc/derivation.ts';
import type { BlockRef } from '../../src/harness/families/json-rpc/methods.ts';
import { JSON_RPC_METRICS as M } from '../../src/harness/families/json-rpc/metrics.ts';
import { samplesOf } from '../../src/harness/families/json-rpc/probe.ts';
import { seriesOffset } from '../../src/harness/families/json-rpc/series.ts';
import { createMemoryStore } from '../../src/harness/memory-store.ts';
import { computeStat } from '../../src/publication/compute.ts';
import { FilterResolver } from '../../src/publication/filter-resolver.ts';
import { loadSpecs } from '../../src/publication/load-specs.ts';
import { BENCHMARKS_DIR } from '../helpers/fixture.ts';

const SRC = join(import.meta.dirname, '../../src');
let specs: BenchmarkSpec[];
let latency: BenchmarkSpec;
let headLag: BenchmarkSpec;
beforeAll(async () => {
  specs = await loadSpecs(BENCHMARKS_DIR);
  latency = specs.find((s) => s.slug === 'rpc-latency') as BenchmarkSpec;
  headLag = specs.find((s) => s.slug === 'rpc-head-lag') as BenchmarkSpec;
});

const MIN = 60_000;
const T0 = Date.UTC(2026, 10, 20, 0, 0);
const series = (provider: string, chain = 'ethereum', kind = 'block-number' as const) => ({
  provider,
  chain,
  kind,
  offsetMs: seriesOffset(provider, chain, kind, 0),
});
const block = (number: number, ts: number): BlockRef => ({
  number,
  hash: `0x${number.toString(16).padStart(64, '0')}`,
  timestampMs: ts * 1000,
});

/** Deterministic uniform draws in [lo, hi). */
function uniform(seed: number, lo: number, hi: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return lo + ((hi - lo) * x) / 2 ** 32;
  };
}

describe('rule 4: failures count as slow', () => {
  it('B answering every probe in 55 ms leads A, which fails every probe that would take over 40 ms', () => {
    const drawA = uniform(7, 10, 100);
    const samples: Sample[] = [];
    for (let i = 0; i < 200; i++) {
      const a = drawA();
      const outcomes = [
        a > 40
          ? { series: series('alchemy'), ok: false as const, reason: 'http_5xx' as const }
          : { series: series('alchemy'), ok: true as const, ms: a },
        { series: series('infura'), ok: true as const, ms: 55 },
      ];
      samples.push(...samplesOf(outcomes, T0 + i * MIN, 10_000, 60_000));
    }
    const values = samples.filter((s) => s.metric === M.latencyMs);
    const probes = samples.filter((s) => s.metric === M.probeOk);
    const rank = (vs: Sample[]) =>
      rankRows(windowRows(latency.providers, { cellLabels: ['chain', 'kind'], values: vs, probes }), false);
    const rows = rank(values);
    expect(rows[0]?.slug).toBe('infura');
    expect(rows[0]?.ms.p50).toBe(55);
    expect(rows.find((r) => r.slug === 'alchemy')?.ms.p50).toBe(10_000);
    // The plausible wrong version, dropping failed probes, would crown A.
    const okKeys = new Set(probes.filter((s) => s.v === 1).map((s) => `${s.labels.provider}|${s.t}`));
    const dropped = values.filter((s) => okKeys.has(`${s.labels.provider}|${s.t}`));
    expect(rank(dropped)[0]?.slug).toBe('alchemy');
  });

  it('a failed probe stores the timeout and its reason; a correct one its time', () => {
    const out = samplesOf(
      [
        { series: series('ankr'), ok: false, reason: 'wrong_result' },
        { series: series('drpc'), ok: true, ms: 12.5 },
      ],
      T0,
      10_000,
      60_000,
    );
    expect(out.filter((s) => s.metric === M.latencyMs).map((s) => [s.labels.provider, s.v])).toEqual([
      ['ankr', 10_000],
      ['drpc', 12.5],
    ]);
    expect(out.filter((s) => s.metric === M.probeOk).map((s) => s.labels)).toEqual([
      { provider: 'ankr', chain: 'ethereum', kind: 'block-number', reason: 'wrong_result' },
      { provider: 'drpc', chain: 'ethereum', kind: 'block-number' },
    ]);
  });
});

describe('rule 1: slots', () => {
  it("each series' offset in a slot is under 30 s, from its key and the slot alone", () => {
    const slot = 1_780_000_000_000;
    const offsets = ['alchemy', 'infura', 'ankr'].flatMap((p) =>
      (['block-number', 'balance', 'call', 'logs', 'block'] as const).map((k) =>
        seriesOffset(p, 'base', k, slot),
      ),
    );
    for (const o of offsets) expect(o).toBeGreaterThanOrEqual(0);
    for (const o of offsets) expect(o).toBeLessThan(30_000);
    expect(new Set(offsets).size).toBeGreaterThan(10);
    expect(seriesOffset('alchemy', 'base', 'logs', slot)).toBe(seriesOffset('alchemy', 'base', 'logs', slot));
  });

  it('skipped probes are never scored against the provider: each writes only its exclusion', () => {
    const out = samplesOf(
      [
        { series: series('ankr'), skipped: 'event_loop_lag' },
        { series: series('ankr', 'base'), skipped: 'no_reference' },
      ],
      T0,
      10_000,
      60_000,
    );
    expect(out.map((x) => [x.metric, x.labels.chain, x.labels.reason, x.v])).toEqual([
      [M.probeExcluded, 'ethereum', 'event_loop_lag', 1],
      [M.probeExcluded, 'base', 'no_reference', 1],
    ]);
  });
});

describe('rule 5: head lag from the block probes', () => {
  it('is the best head timestamp minus the provider block timestamp, 0 at the head; a failed probe counts as the worst lag or the cap', () => {
    const head = block(100, 1_200);
    const b = (p: string) => ({ ...series(p), kind: 'block' as const });
    const slot = (cap: number) =>
      samplesOf(
        [
          { series: b('alchemy'), ok: true, ms: 20, block: block(100, 1_200), head },
          { series: b('infura'), ok: true, ms: 20, block: block(98, 1_176), head },
          { series: b('ankr'), ok: false, reason: 'not_canonical' },
          // Far behind: wrong as a head answer, and its own lag is worse than anyone's.
          { series: b('drpc'), ok: false, reason: 'wrong_result', block: block(20, 240), head },
        ],
        T0,
        10_000,
        cap,
      )
        .filter((s) => s.metric === M.headLagMs)
        .map((s) => [s.labels.provider, s.v]);
    expect(slot(60_000)).toEqual([
      ['alchemy', 0],
      ['infura', 24_000],
      ['ankr', 60_000],
      ['drpc', 960_000],
    ]);
    // Below the cap's floor, the chain's worst answered lag: failing never scores better than answering.
    expect(slot(0)).toEqual([
      ['alchemy', 0],
      ['infura', 24_000],
      ['ankr', 24_000],
      ['drpc', 960_000],
    ]);
  });

  it('successRate of head lag counts the block probes only (probeMatch)', async () => {
    const store = createMemoryStore();
    const b = (p: string) => ({ ...series(p), kind: 'block' as const });
    const head = block(100, 1_200);
    // Ten slots: the minimum a row needs to be ranked (minSamples).
    for (let i = 0; i < 10; i++) {
      await store.append(
        samplesOf(
          [
            { series: b('alchemy'), ok: true, ms: 20, block: block(100, 1_200), head },
            { series: b('infura'), ok: true, ms: 20, block: block(99, 1_188), head },
            // Failed non-block probes do not touch head lag's success rate.
            { series: series('infura'), ok: false, reason: 'timeout' },
          ],
          T0 + i * MIN,
          10_000,
          60_000,
        ),
      );
    }
    const stat = await computeStat(store, headLag, null, T0 + 15 * MIN, { baseUrl: 'http://x', name: 'x' });
    expect(stat.rankings.map((r) => [r.slug, r.ms.p50, r.successRate])).toEqual([
      ['alchemy', 0, 100],
      ['infura', 12_000, 100],
    ]);
    expect(stat.headline).toMatch(/: Alchemy is freshest at 0 ms \(mean over 24h\)\.$/);
  });
});

describe('rule 6: unresponsive after 10 down slots', () => {
  it('a down slot is one where at least half of the probes failed as down', () => {
    const out = samplesOf(
      [
        { series: series('ankr'), ok: false, reason: 'timeout' },
        { series: { ...series('ankr'), kind: 'balance' }, ok: true, ms: 5 },
        { series: series('drpc'), ok: false, reason: 'wrong_result' },
        { series: { ...series('drpc'), kind: 'balance' }, ok: false, reason: 'http_5xx' },
        { series: { ...series('drpc'), kind: 'call' }, ok: true, ms: 5 },
      ],
      T0,
      10_000,
      60_000,
    );
    expect(out.filter((s) => s.metric === M.slotDown).map((s) => [s.labels.provider, s.v])).toEqual([
      ['ankr', 1],
      ['drpc', 0],
    ]);
  });

  async function markedAfter(downSlots: number, upAfter = false): Promise<boolean> {
    const store = createMemoryStore();
    for (let i = 0; i < downSlots; i++) {
      await store.append([
        { metric: M.slotDown, labels: { provider: 'ankr', region: 'us-east' }, t: T0 + i * MIN, v: 1 },
      ]);
    }
    if (upAfter) {
      await store.append([
        {
          metric: M.slotDown,
          labels: { provider: 'ankr', region: 'us-east' },
          t: T0 + downSlots * MIN,
          v: 0,
        },
      ]);
    }
    const extras = await jsonRpcExtras({
      store,
      spec: latency,
      providerMatcher: { name: 'provider', op: '=~', value: '.*' },
      labelMatchers: [],
      windowStart: T0 - MIN,
      evalTime: T0 + 60 * MIN,
    });
    return extras(() => true).unresponsive?.has('ankr') ?? false;
  }

  it('9 consecutive down slots do not mark a provider; 10 do; the next up slot clears it', async () => {
    expect(latency.unresponsiveAfter).toBe(10);
    expect(await markedAfter(9)).toBe(false);
    expect(await markedAfter(10)).toBe(true);
    expect(await markedAfter(10, true)).toBe(false);
  });
});

describe('rule 7: data-valued regions resolve per benchmark', () => {
  it('a region only RPC samples carry is 404 for network-coverage and 200 for rpc-latency', async () => {
    const store = createMemoryStore();
    await store.append([
      {
        metric: M.latencyMs,
        labels: { provider: 'alchemy', chain: 'base', kind: 'block', region: 'us-east' },
        t: T0,
        v: 5,
      },
      {
        metric: M.probeOk,
        labels: { provider: 'alchemy', chain: 'base', kind: 'block', region: 'us-east' },
        t: T0,
        v: 1,
      },
      { metric: 'networks_supported', labels: { provider: 'codex', region: 'eu-west' }, t: T0, v: 5 },
    ]);
    const r = new FilterResolver({ specs, bySlug: new Map(specs.map((s) => [s.slug, s])), store });
    await r.loadDataValues();
    expect(r.resolve('rpc-latency', { region: 'us-east' })).toMatchObject({
      ok: true,
      filters: { region: 'us-east' },
    });
    expect(r.resolve('network-coverage', { region: 'us-east' })).toMatchObject({
      ok: false,
      status: 404,
      error: 'unknown_dimension_value',
    });
    expect(r.resolve('network-coverage', { region: 'eu-west' })).toMatchObject({ ok: true });
    expect(r.resolve('rpc-latency', { region: 'eu-west' })).toMatchObject({ ok: false, status: 404 });
  });

  it('a region first stored after start is known to the first reader that asks for it', async () => {
    const store = createMemoryStore();
    const r = new FilterResolver({ specs, bySlug: new Map(specs.map((s) => [s.slug, s])), store });
    store.onAppend(() => r.markStale());
    // The reload the append plans (200 ms later) runs on a fake clock moved past it, so it has run
    // (its reads are in memory) before the lookup, however slow the machine.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      await store.append([
        {
          metric: M.probeOk,
          labels: { provider: 'ankr', chain: 'bsc', kind: 'call', region: 'ap-southeast' },
          t: T0,
          v: 1,
        },
      ]);
      await vi.advanceTimersByTimeAsync(400);
    } finally {
      vi.useRealTimers();
    }
    // No lookup came before: this is the first one, and it is answered from the stored values.
    expect(r.resolve('rpc-latency', { region: 'ap-southeast' })).toMatchObject({ ok: true });
    r.close();
  });
});

describe('headline word from the YAML', () => {
  it('no superlative is written in src/: each comes from its spec', () => {
    const words = specs.flatMap((sp) => (sp.superlative ? [sp.superlative] : []));
    expect(words.sort()).toEqual(['fastest', 'freshest']);
    const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    for (const f of files) {
      const text = readFileSync(join(SRC, f), 'utf8').toLowerCase();
      for (const w of words) expect(text.includes(w), `${f} says "${w}"`).toBe(false);
    }
  });

  it('reads "<leader> is <superlative> at <value>", and specs without one keep "leads with"', () => {
    const base = {
      title: 'T',
      metric: 'RPC latency',
      unit: 'ms',
      leaderName: 'Alchemy',
      value: 41,
      allUnresponsive: false,
      filterLabel: null,
      neverRun: false,
    };
    expect(headline({ ...base, superlative: 'fastest' })).toBe(
      'T: Alchemy is fastest at 41 ms (p50 over 24h).',
    );
    expect(headline(base)).toBe('T: Alchemy leads with a RPC latency of 41 ms (p50 over 24h).');
  });
});
