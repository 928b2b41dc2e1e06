import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildDataset } from '../../src/demo/dataset.ts';
import { METRICS } from '../../src/harness/families/metric-names.ts';
import { loadSpecs } from '../../src/publication/load-specs.ts';
import { createPublication } from '../../src/publication/publication.ts';
import { UnknownBenchmarkError } from '../../src/publication/types.ts';
import { openDuckDbStore } from '../../src/store/duckdb-store.ts';
import { BENCHMARKS_DIR, fixture, H, NOW } from '../helpers/fixture.ts';

const decode = (b: Uint8Array) => new TextDecoder().decode(b);

describe('publication: network-coverage', () => {
  it('ranks every provider by its latest count; the leader is rankings[0] everywhere', async () => {
    const f = await fixture();
    const { value: stat } = await f.publication.stat('network-coverage', null);
    expect(stat.status).toBe('live');
    expect(stat.filters).toBeNull();
    expect(stat.rankings.length).toBe(8);
    const leader = stat.rankings[0];
    expect(stat.leader).toEqual({ name: leader?.name, slug: leader?.slug, value: leader?.ms.p50 });
    expect(stat.value).toBe(leader?.ms.p50);
    for (const r of stat.rankings) {
      expect(r.ms.p90).toBe(r.ms.p50);
      expect(r.ms.mean).toBe(r.ms.p50);
      expect(r.successRate).toBe(100);
      expect(r.sampleSize).toBe(r.ms.p50);
    }
    expect(stat.sampleSize).toBe(stat.rankings.reduce((n, r) => n + r.sampleSize, 0));
    expect(stat.sparkline).toHaveLength(73);
    expect(stat.sparkline.at(-1)).toBe(stat.value);
    expect(stat.headline).toBe(
      `${stat.title}: ${leader?.name} leads with ${stat.value} networks supported (as of 2026-11-20 12:00 UTC).`,
    );
    expect(stat.quote).toBe(
      `${stat.headline} Source: Citebench (http://bench.test/benchmarks/network-coverage).`,
    );
    const citable = (await f.publication.citable()).value.benchmarks.find(
      (b) => b.slug === 'network-coverage',
    );
    expect(citable?.leader).toEqual(stat.leader);
    await f.close();
  });

  it('falls back to the last successful sample when a refresh fails (no sample written), within the window', async () => {
    const t0 = NOW - 20 * H;
    const f = await fixture({
      samples: [
        { metric: METRICS.networksSupported, labels: { provider: 'geckoterminal' }, t: t0, v: 263 },
        { metric: METRICS.networksSupported, labels: { provider: 'codex' }, t: t0, v: 133 },
        { metric: METRICS.networksSupported, labels: { provider: 'codex' }, t: NOW - H, v: 140 },
      ],
    });
    const { value: stat } = await f.publication.stat('network-coverage', null);
    expect(stat.rankings.map((r) => [r.slug, r.ms.p50, r.lastSampleAt])).toEqual([
      ['geckoterminal', 263, new Date(t0).toISOString()],
      ['codex', 140, new Date(NOW - H).toISOString()],
    ]);
    expect(stat.asOf).toBe(new Date(NOW - H).toISOString());
    // The leader's count stands from its sample 20 h ago: the 61 grid points since are measured
    // values (263); the 12 before it had no value in the Stat and carry 263, listed as gaps.
    expect(stat.sparkline).toEqual(Array(73).fill(263));
    expect(stat.sparklineGaps).toEqual(Array.from({ length: 12 }, (_, i) => i));
    expect(stat.sparklineStartMs).toBe(NOW - 24 * H);
    expect(stat.sparklineStepMs).toBe(20 * 60_000);
    await f.close();
  });

  it('filters by kind, echoes the filter, and rejects unknown dimensions and values', async () => {
    const f = await fixture();
    const r = f.publication.resolveFilters('network-coverage', { kind: 'DEX-Index' });
    expect(r).toEqual({ ok: true, filters: { kind: 'dex-index' } });
    if (!r.ok) throw new Error('unreachable');
    const { value: stat } = await f.publication.stat('network-coverage', r.filters);
    expect(stat.filters).toEqual({ kind: 'dex-index' });
    expect(stat.rankings.map((x) => x.slug).sort()).toEqual(['codex', 'geckoterminal']);
    expect(stat.headline).toContain('(as of 2026-11-20 12:00 UTC, DEX index)');
    expect(stat.pageUrl).toBe('http://bench.test/benchmarks/network-coverage?kind=dex-index');
    expect(f.publication.resolveFilters('network-coverage', { kind: 'all' })).toEqual({
      ok: true,
      filters: null,
    });
    expect(f.publication.resolveFilters('network-coverage', { kind: 'oracle' })).toMatchObject({
      ok: false,
      status: 404,
      error: 'unknown_dimension_value',
    });
    expect(f.publication.resolveFilters('network-coverage', { chain: 'solana' })).toMatchObject({
      ok: false,
      status: 404,
      error: 'unknown_dimension',
    });
    expect(f.publication.resolveFilters('nope', {})).toMatchObject({ ok: false, status: 404 });
    await expect(f.publication.stat('nope', null)).rejects.toBeInstanceOf(UnknownBenchmarkError);
    await f.close();
  });
});

describe('publication: token-trade-coverage', () => {
  const cell = (provider: string, chain: string, token: string, t: number, capture: number, ok = 1) => [
    { metric: METRICS.tokenTradeCapturePct, labels: { provider, chain, token }, t, v: capture },
    { metric: METRICS.tokenTradeProbeOk, labels: { provider, chain, token }, t, v: ok },
  ];

  it('computes per-provider quantiles over the selected cells, excluding Stellar for providers without it', async () => {
    const t1 = NOW - 2 * H;
    const t2 = NOW - H;
    const f = await fixture({
      samples: [
        ...cell('mobula', 'solana', 'BONK', t1, 100),
        ...cell('mobula', 'solana', 'BONK', t2, 90),
        ...cell('mobula', 'stellar', 'yXLM', t2, 100),
        ...cell('codex', 'solana', 'BONK', t1, 80),
        ...cell('codex', 'solana', 'BONK', t2, 0, 0),
        // Out of the window: ignored.
        ...cell('codex', 'solana', 'BONK', NOW - 25 * H, 100),
      ],
      // Two cycles: the quantiles and the cell rule, not the minimum sample count, are under test.
      minSamples: 1,
    });
    const { value: all } = await f.publication.stat('token-trade-coverage', null);
    const mobula = all.rankings.find((r) => r.slug === 'mobula');
    const codex = all.rankings.find((r) => r.slug === 'codex');
    // Stellar (mobula alone) stays out of the aggregate: mobula [90,100]: p50 95; codex [0,80]: p50 40.
    expect(mobula?.ms).toEqual({ p50: 95, p90: 99, p99: 99.9, mean: 95 });
    expect(mobula?.sampleSize).toBe(2);
    expect(mobula?.noComparison).toBe(false);
    expect(codex?.ms.p50).toBe(40);
    expect(codex?.successRate).toBe(50);
    expect(all.value).toBe(95);

    const { value: stellar } = await f.publication.stat('token-trade-coverage', { chain: 'stellar' });
    // Alone on Stellar: shown from its own samples, never ranked, no value to quote.
    expect(stellar.rankings.map((r) => [r.slug, r.rank, r.noComparison, r.ms.p50])).toEqual([
      ['mobula', null, true, 100],
    ]);
    expect(stellar.value).toBeNull();
    expect(stellar.headline).toContain(
      'Only Mobula was measured here, so there is no comparison to publish.',
    );
    const { value: base } = await f.publication.stat('token-trade-coverage', { chain: 'base' });
    // Measured, just not on Base in the last 24 h: stale, not a draft (which means never measured).
    expect(base.status).toBe('stale');
    expect(base.value).toBeNull();
    expect(base.headline).toContain('(Base). No measurements in the last 24h.');
    await f.close();
  });

  it('keeps an unresponsive provider as an unranked row after the ranked ones, never the leader', async () => {
    const t = NOW - H;
    const f = await fixture({
      samples: [
        ...cell('bitquery', 'solana', 'BONK', t, 100, 0),
        ...cell('codex', 'solana', 'BONK', t, 50),
        // Three cycles of 5xx for bitquery (the marker is derived from these samples alone).
        ...[t - 2 * H, t - H, t].flatMap((ct) => [
          {
            metric: METRICS.providerCycle5xx,
            labels: { benchmark: 'token-trade-coverage', provider: 'bitquery' },
            t: ct,
            v: 1,
          },
          {
            metric: METRICS.providerCycle5xx,
            labels: { benchmark: 'token-trade-coverage', provider: 'codex' },
            t: ct,
            v: 0,
          },
        ]),
      ],
      // One cycle: the unresponsive marker, not the minimum sample count, is under test.
      minSamples: 1,
    });
    const { value: stat } = await f.publication.stat('token-trade-coverage', null);
    expect(stat.rankings.map((r) => [r.slug, r.rank, r.unresponsive])).toEqual([
      ['codex', 1, false],
      ['bitquery', null, true],
    ]);
    expect(stat.leader?.slug).toBe('codex');
    await f.close();
  });
});

describe('publication: drafts, freshness, invalidation', () => {
  it('lists a benchmark without samples as a draft awaiting its first run', async () => {
    const f = await fixture({ samples: [] });
    const { value: idx } = await f.publication.citable();
    expect(idx.count).toBe(5);
    expect(idx.benchmarks.map((b) => b.slug)).toContain('token-trade-recall');
    for (const row of idx.benchmarks) {
      expect(row.status).toBe('draft');
      expect(row.value).toBeNull();
      expect(row.asOf).toBeNull();
      expect(row.headline).toMatch(/Awaiting its first run\.$/);
    }
    expect((await f.publication.freshness()).freshness).toEqual({});
    await f.close();
  });

  it('makes new samples visible at once and reports freshness equal to asOf', async () => {
    const f = await fixture();
    const before = await f.publication.stat('network-coverage', null);
    const again = await f.publication.stat('network-coverage', null);
    expect(again).toBe(before); // served from cache, no recomputation
    f.clock.now = NOW + 1000;
    await f.store.append([
      { metric: METRICS.networksSupported, labels: { provider: 'codex' }, t: NOW + 500, v: 9999 },
    ]);
    const after = await f.publication.stat('network-coverage', null);
    expect(after.value.leader).toEqual({ name: 'Codex', slug: 'codex', value: 9999 });
    expect(after.etag).not.toBe(before.etag);
    const fresh = await f.publication.freshness();
    expect(fresh.freshness['network-coverage']).toBe(NOW + 500);
    expect(fresh.freshness['network-coverage']).toBe(Date.parse(after.value.asOf ?? ''));
    await f.close();
  });
});

describe('publication: day snapshots', () => {
  it('validates dates: malformed, impossible, future, before the first day', async () => {
    const f = await fixture({ days: 3 });
    expect(await f.publication.snapshot('2026-1-01')).toMatchObject({ kind: 'bad_date' });
    expect(await f.publication.snapshot('2026-02-30')).toMatchObject({ kind: 'bad_date' });
    expect(await f.publication.snapshot('2026-11-21')).toMatchObject({ kind: 'bad_date', message: /future/ });
    expect(await f.publication.snapshot('2026-11-10')).toMatchObject({
      kind: 'bad_date',
      message: /before the first snapshot/,
    });
    expect((await f.publication.snapshot('2026-11-20')).kind).toBe('live');
    await f.close();
  });

  it('freezes a past day at end-of-day values and serves it byte-identical after late samples', async () => {
    const f = await fixture({ days: 3 });
    await f.publication.freezeClosedDays();
    const first = await f.publication.snapshot('2026-11-19');
    if (first.kind !== 'frozen') throw new Error(`expected frozen, got ${first.kind}`);
    const idx = JSON.parse(decode(first.served.body));
    expect(idx.site.snapshotDate).toBe('2026-11-19');
    const end = Date.UTC(2026, 10, 19, 23, 59, 59, 999);
    const expected = await f.publication.statAt('network-coverage', null, end);
    expect(idx.benchmarks[0].value).toBe(expected.value);
    expect(Date.parse(idx.benchmarks[0].asOf)).toBeLessThanOrEqual(end);

    await f.store.append([
      { metric: METRICS.networksSupported, labels: { provider: 'codex' }, t: end - 1000, v: 123456 },
    ]);
    const later = await f.publication.snapshot('2026-11-19');
    if (later.kind !== 'frozen') throw new Error('expected frozen');
    expect(decode(later.served.body)).toBe(decode(first.served.body));
    expect(later.served.etag).toBe(first.served.etag);
    // The day computed afresh would now differ: the stored bytes are what keeps it stable.
    expect((await f.publication.statAt('network-coverage', null, end)).value).toBe(123456);
    await f.close();
  });

  it('serves the same frozen bytes after a restart', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'snap-'));
    const path = join(dir, 'citebench.duckdb');
    const specs = await loadSpecs(BENCHMARKS_DIR);
    const open = async () => {
      const store = await openDuckDbStore({ path });
      const publication = createPublication({
        specs,
        store,
        site: { name: 'Citebench', baseUrl: 'http://b' },
        clock: () => NOW,
      });
      return { store, publication };
    };
    const a = await open();
    await a.store.append(buildDataset({ seed: 3, days: 3, end: NOW }));
    await a.publication.freezeClosedDays();
    const first = await a.publication.snapshot('2026-11-19');
    a.publication.close();
    await a.store.close();
    const b = await open();
    await b.store.append([
      {
        metric: METRICS.networksSupported,
        labels: { provider: 'codex' },
        t: Date.UTC(2026, 10, 19, 20),
        v: 1,
      },
    ]);
    const second = await b.publication.snapshot('2026-11-19');
    if (first.kind !== 'frozen' || second.kind !== 'frozen') throw new Error('expected frozen snapshots');
    expect(decode(second.served.body)).toBe(decode(first.served.body));
    b.publication.close();
    await b.store.close();
  });

  it('freezes yesterday at start-up and day close without a request', async () => {
    const f = await fixture({ days: 3 });
    expect(await f.store.getSnapshot('citable:2026-11-19')).toBeNull();
    f.publication.startFreezer();
    let stored = null;
    // Quiet, the freeze is stored within ~0.1 s; the bound (against a hang only) allows 30 s.
    for (const end = Date.now() + 30_000; !stored && Date.now() < end; ) {
      await new Promise((r) => setTimeout(r, 20));
      stored = await f.store.getSnapshot('citable:2026-11-19');
    }
    expect(stored).not.toBeNull();
    const served = await f.publication.snapshot('2026-11-19');
    if (served.kind !== 'frozen') throw new Error('expected frozen');
    expect(served.served.etag).toBe(stored?.etag);
    await f.close();
  });

  it('freezes once under concurrent freezes and never computes a past day on request', async () => {
    const f = await fixture({ days: 3 });
    expect((await f.publication.snapshot('2026-11-18')).kind).toBe('not_frozen');
    await Promise.all(Array.from({ length: 5 }, () => f.publication.freezeDay('2026-11-18')));
    const results = await Promise.all(Array.from({ length: 5 }, () => f.publication.snapshot('2026-11-18')));
    const bodies = new Set(results.map((r) => (r.kind === 'frozen' ? decode(r.served.body) : r.kind)));
    expect(bodies.size).toBe(1);
    await f.close();
  });
});

describe('publication: compare and featured', () => {
  it('compares two providers on every shared benchmark', async () => {
    const f = await fixture();
    const r = await f.publication.compare('mobula', 'codex');
    if (!r.ok) throw new Error(r.message);
    const c = r.served.value;
    expect(c.shared.map((s) => s.slug)).toEqual([
      'network-coverage',
      'token-trade-coverage',
      'token-trade-recall',
    ]);
    for (const row of c.shared) {
      if (row.comparable && row.aValue !== null && row.bValue !== null) {
        expect(row.delta).toBeCloseTo(row.aValue - row.bValue, 9);
        expect(row.winner).toBe(row.aValue > row.bValue ? 'a' : row.aValue < row.bValue ? 'b' : 'tie');
      }
    }
    // Mobula (asset registry) and Codex (DEX index) count different things on network-coverage.
    expect(c.shared[0]).toMatchObject({
      comparable: false,
      reason: 'different-kinds',
      winner: 'tie',
      delta: null,
    });
    expect(c.notComparable).toBe(1);
    expect(c.totalWins.a + c.totalWins.b + c.totalWins.tie).toBe(c.shared.length);
    expect(c.comparePageUrl).toBe('http://bench.test/compare/mobula-vs-codex');
    expect(await f.publication.compare('mobula', 'mobula')).toMatchObject({ ok: false, status: 400 });
    expect(await f.publication.compare('Mobula!', 'codex')).toMatchObject({ ok: false, status: 400 });
    expect(await f.publication.compare('mobula', 'nobody')).toMatchObject({
      ok: false,
      status: 404,
      error: 'unknown_provider',
    });
    expect(await f.publication.compare('geckoterminal', 'bitquery')).toMatchObject({
      ok: false,
      status: 404,
      error: 'no_shared_benchmark',
    });
    await f.close();
  });

  it('derives featured leaders and 24 h movers from data', async () => {
    const f = await fixture({ days: 3 });
    const { value } = await f.publication.featured();
    expect(value.featured.map((c) => c.slug)).toEqual([
      'network-coverage',
      'token-trade-coverage',
      'token-trade-recall',
    ]);
    for (const c of value.trending) {
      expect(c.change24h).not.toBeNull();
      const then = await f.publication.statAt(c.slug, null, NOW - 24 * H);
      expect(c.change24h?.from).toBe(then.value);
    }
    await f.close();
  });
});
