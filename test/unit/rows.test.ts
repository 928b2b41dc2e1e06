import { beforeAll, describe, expect, it } from 'vitest';
import { rankRows } from '../../src/core/rank-rows.ts';
import { latestRows, windowRows } from '../../src/core/rows.ts';
import type { Sample } from '../../src/core/samples.ts';
import type { ProviderEntry } from '../../src/core/spec-schema.ts';
import { unresponsiveProviders } from '../../src/core/unresponsive.ts';
import { loadProviderCatalogue } from '../../src/publication/load-specs.ts';
import { BENCHMARKS_DIR } from '../helpers/fixture.ts';

// Provider names come from the catalogue (benchmarks/providers.yml).
beforeAll(async () => {
  await loadProviderCatalogue(BENCHMARKS_DIR);
});

const p = (slug: string, extra: Partial<ProviderEntry> = {}): ProviderEntry => ({
  slug,
  endpoint: 'GET /x',
  ...extra,
});
const s = (metric: string, labels: Record<string, string>, t: number, v: number): Sample => ({
  metric,
  labels,
  t,
  v,
});

describe('latestRows (chain-listing)', () => {
  it('uses the latest sample per provider and repeats the count in every slot', () => {
    const rows = latestRows(
      [p('geckoterminal', { kind: 'dex-index' }), p('codex'), p('mobula')],
      [s('m', { provider: 'geckoterminal' }, 1000, 263), s('m', { provider: 'codex' }, 900, 133)],
    );
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({
      slug: 'geckoterminal',
      name: 'GeckoTerminal',
      kind: 'dex-index',
      ms: { p50: 263, p90: 263, p99: 263, mean: 263 },
      successRate: 100,
      sampleSize: 263,
      unresponsive: false,
      lastSampleAt: new Date(1000).toISOString(),
    });
  });
});

const cycle = (provider: string, t: number, v: number) =>
  s('x', { benchmark: 'token-trade-coverage', provider }, t, v);

describe('windowRows (trade-capture extras)', () => {
  const cellLabels = ['chain', 'token'];

  it('computes quantiles, mean, success rate and sample size per provider over comparable cells', () => {
    const c = (provider: string, chain: string, token: string, t: number, v: number) =>
      s('c', { provider, chain, token }, t, v);
    const values = [
      c('mobula', 'solana', 'BONK', 1, 100),
      c('mobula', 'ethereum', 'PEPE', 2, 90),
      c('mobula', 'ethereum', 'PEPE', 3, 80),
      c('mobula', 'ethereum', 'PEPE', 4, 70),
      c('codex', 'solana', 'BONK', 1, 50),
      c('codex', 'ethereum', 'PEPE', 2, 100),
      c('codex', 'ethereum', 'PEPE', 3, 100),
      c('codex', 'ethereum', 'PEPE', 4, 100),
    ];
    const probes = [
      s('p', { provider: 'mobula', chain: 'solana', token: 'BONK' }, 1, 1),
      s('p', { provider: 'mobula', chain: 'ethereum', token: 'PEPE' }, 2, 1),
      s('p', { provider: 'mobula', chain: 'ethereum', token: 'PEPE' }, 3, 0),
      s('p', { provider: 'mobula', chain: 'ethereum', token: 'PEPE' }, 4, 1),
    ];
    const rows = windowRows([p('mobula'), p('codex'), p('bitquery')], {
      cellLabels,
      values,
      probes,
    });
    expect(rows.map((r) => r.slug)).toEqual(['mobula', 'codex']);
    // sorted [70,80,90,100]: p50 h=1.5 → 85; p90 h=2.7 → 97; p99 h=2.97 → 99.7; mean 85
    expect(rows[0]?.ms).toEqual({ p50: 85, p90: 97, p99: 99.7, mean: 85 });
    expect(rows[0]?.successRate).toBe(75);
    expect(rows[0]?.sampleSize).toBe(4);
    expect(rows[1]?.successRate).toBe(100);
  });

  it('marks a provider unresponsive only while its last three cycles were cycles of 5xx', () => {
    const values = [
      s('c', { provider: 'codex', chain: 'solana', token: 'BONK' }, 3, 0),
      s('c', { provider: 'mobula', chain: 'solana', token: 'BONK' }, 3, 100),
    ];
    const rows = (cycle5xx: Sample[]) =>
      windowRows(
        [p('codex')],
        { cellLabels, values, probes: [] },
        { unresponsive: unresponsiveProviders(cycle5xx) },
      )[0]?.unresponsive;
    expect(rows([cycle('codex', 1, 1), cycle('codex', 2, 1), cycle('codex', 3, 1)])).toBe(true);
    expect(rows([cycle('codex', 1, 1), cycle('codex', 2, 1)])).toBe(false);
    expect(
      rows([cycle('codex', 1, 1), cycle('codex', 2, 1), cycle('codex', 3, 1), cycle('codex', 4, 0)]),
    ).toBe(false);
    expect(
      rows([cycle('codex', 0, 1), cycle('codex', 1, 0), cycle('codex', 2, 1), cycle('codex', 3, 1)]),
    ).toBe(false);
  });
});

describe('rankRows', () => {
  const row = (slug: string, p50: number, successRate = 100, sampleSize = 10, unresponsive = false) => ({
    name: slug,
    slug,
    ms: { p50, p90: p50, p99: p50, mean: p50 },
    successRate,
    sampleSize,
    unresponsive,
    noComparison: false,
    lastSampleAt: new Date(0).toISOString(),
  });

  it('orders by p50 in the benchmark direction', () => {
    expect(rankRows([row('a', 1), row('b', 3), row('c', 2)], true).map((r) => r.slug)).toEqual([
      'b',
      'c',
      'a',
    ]);
    expect(rankRows([row('a', 1), row('b', 3), row('c', 2)], false).map((r) => r.slug)).toEqual([
      'a',
      'c',
      'b',
    ]);
  });

  it('breaks ties by success rate, then sample size, then slug', () => {
    const ranked = rankRows(
      [row('d', 5, 90, 10), row('c', 5, 100, 5), row('b', 5, 100, 10), row('a', 5, 100, 10)],
      true,
    );
    expect(ranked.map((r) => r.slug)).toEqual(['a', 'b', 'c', 'd']);
    expect(ranked.map((r) => r.rank)).toEqual([1, 2, 3, 4]);
  });

  it('lists unresponsive rows after ranked ones, unranked, never leading', () => {
    const ranked = rankRows([row('best', 100, 100, 10, true), row('ok', 50)], true);
    expect(ranked.map((r) => [r.slug, r.rank])).toEqual([
      ['ok', 1],
      ['best', null],
    ]);
    const allDead = rankRows([row('x', 100, 0, 1, true)], true);
    expect(allDead[0]?.rank).toBeNull();
  });
});
