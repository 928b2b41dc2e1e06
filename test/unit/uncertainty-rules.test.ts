/**
 * Issue 24 rules 1, 2, 5, 6 and 9 through the publication: spec fields, insufficient data, intervals
 * on rows, ties with the leader in rankings and headlines, statistical ties in compare, and schemas
 * that still accept snapshots frozen before. Samples are written as the trade harness writes them.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { compareSchema, statSchema } from '../../src/core/api-schemas.ts';
import { compareVerdict } from '../../src/core/compare.ts';
import { prng } from '../../src/core/prng.ts';
import type { Sample } from '../../src/core/samples.ts';
import { parseSpec } from '../../src/core/spec-schema.ts';
import { quantileSorted, round6 } from '../../src/core/stats.ts';
import { orderStatRanks } from '../../src/core/uncertainty.ts';
import { METRICS } from '../../src/harness/families/metric-names.ts';
import { loadProviderCatalogue } from '../../src/publication/load-specs.ts';
import { BENCHMARKS_DIR, fixture, H, NOW } from '../helpers/fixture.ts';
import { type Running, startServer } from '../helpers/server.ts';

const BENCH = 'token-trade-coverage';
const CYCLE = H / 2;

beforeAll(async () => {
  await loadProviderCatalogue(BENCHMARKS_DIR);
});

/** One provider's capture on one cell and cycle, as the harness writes it. */
function capture(provider: string, chain: string, token: string, t: number, pct: number): Sample[] {
  const labels = { provider, chain, token };
  return [
    { metric: METRICS.tokenTradeCapturePct, labels, t, v: pct },
    { metric: METRICS.tokenTradeCount, labels, t, v: Math.round(pct * 10) },
    { metric: METRICS.tokenTradeProbeOk, labels, t, v: 1 },
  ];
}

/** `cycles` 30-minute cycles before NOW on solana/BONK, each provider's capture from `value`. */
function cycles(n: number, value: Record<string, (i: number) => number>): Sample[] {
  const out: Sample[] = [];
  for (let i = 0; i < n; i++) {
    for (const [provider, v] of Object.entries(value)) {
      out.push(...capture(provider, 'solana', 'BONK', NOW - (i + 1) * CYCLE + 1, v(i)));
    }
  }
  return out;
}

async function shipped(slug: string): Promise<Record<string, unknown>> {
  return parse(await readFile(join(BENCHMARKS_DIR, `${slug}.yml`), 'utf8')) as Record<string, unknown>;
}

describe('rule 1: spec fields', () => {
  it('tieMargin is required, a number ≥ 0; minSamples an integer ≥ 6, default 10', async () => {
    const data = await shipped(BENCH);
    const d = data.derivation as Record<string, unknown>;
    const { tieMargin: _, ...without } = d;
    expect(() => parseSpec(`${BENCH}.yml`, { ...data, derivation: without })).toThrow(
      /field "derivation.tieMargin"/,
    );
    expect(() => parseSpec(`${BENCH}.yml`, { ...data, derivation: { ...d, tieMargin: -1 } })).toThrow(
      /field "derivation.tieMargin"/,
    );
    expect(() => parseSpec(`${BENCH}.yml`, { ...data, derivation: { ...d, minSamples: 5 } })).toThrow(
      /field "derivation.minSamples"/,
    );
    expect(() => parseSpec(`${BENCH}.yml`, { ...data, derivation: { ...d, minSamples: 6.5 } })).toThrow(
      /field "derivation.minSamples"/,
    );
    const spec = parseSpec(`${BENCH}.yml`, data);
    expect(spec.derivation).toMatchObject({ tieMargin: 0.5, minSamples: 10 });
    expect(
      parseSpec(`${BENCH}.yml`, { ...data, derivation: { ...d, minSamples: 6 } }).derivation,
    ).toMatchObject({
      minSamples: 6,
    });
  });

  it('each window benchmark states its margin, and justifies it in a methodology line', async () => {
    const margins: Record<string, [number, RegExp]> = {
      'token-trade-coverage': [0.5, /0\.5-point margin/],
      'token-trade-recall': [0.5, /0\.5-point margin/],
      'rpc-latency': [2, /2 ms margin/],
      'rpc-head-lag': [1000, /1,000 ms margin/],
    };
    for (const [slug, [margin, phrase]] of Object.entries(margins)) {
      const spec = parseSpec(`${slug}.yml`, await shipped(slug));
      if (spec.derivation.mode !== 'window') throw new Error(slug);
      expect(spec.derivation.tieMargin, slug).toBe(margin);
      expect(
        spec.methodology.some((l) => l.startsWith('Ties:') && phrase.test(l)),
        slug,
      ).toBe(true);
      expect(
        spec.methodology.some((l) => /^The margin is/.test(l)),
        slug,
      ).toBe(true);
      expect(
        spec.methodology.some((l) => /at least 95% coverage/.test(l)),
        slug,
      ).toBe(true);
    }
  });

  it('a row below minSamples is listed, never ranked or the leader, even with the best p50', async () => {
    const samples = [
      ...cycles(20, { mobula: () => 80, bitquery: () => 70 }),
      // Codex measured on 9 cycles only, at 100%.
      ...cycles(9, { codex: () => 100 }),
    ];
    const f = await fixture({ samples });
    const { value: stat } = await f.publication.stat(BENCH, null);
    expect(stat.rankings.map((r) => [r.slug, r.rank, r.sampleSize, r.insufficientData])).toEqual([
      ['mobula', 1, 20, false],
      ['bitquery', 2, 20, false],
      ['codex', null, 9, true],
    ]);
    expect(stat.leader?.slug).toBe('mobula');
    const codex = stat.rankings.find((r) => r.slug === 'codex');
    expect(codex?.vsLeader).toBeUndefined();
    expect(codex?.tiedWithLeader).toBeUndefined();
    await f.close();
  });

  it('with nothing ranked for lack of samples, the headline says so', async () => {
    const f = await fixture({ samples: cycles(9, { mobula: () => 80, codex: () => 70 }) });
    const { value: stat } = await f.publication.stat(BENCH, null);
    expect(stat.leader).toBeNull();
    expect(stat.rankings.every((r) => r.rank === null && r.insufficientData === true)).toBe(true);
    expect(stat.headline).toBe(
      `${stat.title}. Too few samples in the last 24h to rank (fewer than 10 per provider).`,
    );
    const { value: solana } = await f.publication.stat(BENCH, { chain: 'solana' });
    expect(solana.headline).toMatch(/ \(Solana\)\. Too few samples in the last 24h to rank \(fewer than 10/);
    await f.close();
  });

  it('a compare row with fewer shared samples than minSamples is not comparable: insufficient-data', async () => {
    const f = await fixture({
      samples: [...cycles(9, { mobula: () => 90, codex: () => 50 }), ...cycles(30, { mobula: () => 90 })],
    });
    const r = await f.publication.compare('mobula', 'codex');
    if (!r.ok) throw new Error(r.message);
    const row = r.served.value.shared.find((x) => x.slug === BENCH);
    expect(row).toMatchObject({ comparable: false, winner: 'tie', delta: null, reason: 'insufficient-data' });
    expect(row?.significance).toBeUndefined();
    expect(r.served.value.notComparable).toBeGreaterThanOrEqual(1);
    await f.close();
  });
});

describe('rule 2: every window row carries ci95', () => {
  it('from the order statistics of the row’s samples; latest-mode rows carry null', async () => {
    const rand = prng(5);
    const values = Array.from({ length: 48 }, () => round6(60 + rand() * 40));
    const f = await fixture({
      samples: [
        ...cycles(48, { mobula: (i) => values[i] as number, codex: () => 50 }),
        { metric: METRICS.networksSupported, labels: { provider: 'codex' }, t: NOW - H, v: 133 },
      ],
    });
    const { value: stat } = await f.publication.stat(BENCH, null);
    const row = stat.rankings.find((r) => r.slug === 'mobula');
    const sorted = [...values].sort((a, b) => a - b);
    // n = 48: ranks 17 and 32 for the median; p90 needs 36 (ranks of orderStatRanks), p99 368.
    const p90 = orderStatRanks(48, 0.9);
    expect(row?.ci95).toEqual({
      p50: [sorted[16], sorted[31]],
      p90: p90 && [sorted[p90.lo - 1], sorted[p90.hi - 1]],
      p99: null,
    });
    expect(row?.ms.p50).toBe(round6(quantileSorted(sorted, 0.5)));
    const { value: networks } = await f.publication.stat('network-coverage', null);
    expect(networks.rankings.length).toBeGreaterThan(0);
    for (const r of networks.rankings) {
      expect(r.ci95).toBeNull();
      expect(r.insufficientData).toBeUndefined();
      expect(r.vsLeader).toBeUndefined();
    }
    await f.close();
  });
});

describe('rule 5: ties with the leader are said, ranks unchanged', () => {
  // Mobula and Codex drawn from one distribution; Bitquery clearly lower.
  const rand = prng(9);
  const draws = Array.from({ length: 48 }, () => [85 + rand() * 10, 85 + rand() * 10, 60 + rand() * 10]);
  const samples = cycles(48, {
    mobula: (i) => round6(draws[i]?.[0] as number),
    codex: (i) => round6(draws[i]?.[1] as number),
    bitquery: (i) => round6(draws[i]?.[2] as number),
  });

  it('rows below the leader carry vsLeader and tiedWithLeader; the leader carries neither', async () => {
    const f = await fixture({ samples });
    const { value: stat } = await f.publication.stat(BENCH, null);
    const [first, second, third] = stat.rankings;
    if (!first || !second || !third) throw new Error('three rows');
    expect([first.rank, second.rank, third.rank]).toEqual([1, 2, 3]);
    expect(first.ms.p50).toBeGreaterThanOrEqual(second.ms.p50);
    expect(first.vsLeader).toBeUndefined();
    expect(first.tiedWithLeader).toBeUndefined();
    expect(second.vsLeader).toMatchObject({ test: 'sign-test', pairs: 48, margin: 0.5 });
    expect(second.vsLeader?.pValue).toBeGreaterThanOrEqual(0.05);
    expect(second.tiedWithLeader).toBe(true);
    expect(third.slug).toBe('bitquery');
    expect(third.vsLeader?.pValue).toBeLessThan(0.05);
    expect(third.tiedWithLeader).toBe(false);
    // The leader and value keep today's rule.
    expect(stat.leader?.slug).toBe(first.slug);
    expect(stat.value).toBe(first.ms.p50);
    await f.close();
  });

  it('the headline and quote say the top is statistically tied, with the sign test', async () => {
    const f = await fixture({ samples });
    const { value: stat } = await f.publication.stat(BENCH, null);
    const [first, second] = stat.rankings;
    const p = Number(second?.vsLeader?.pValue.toPrecision(2));
    const expected = `${stat.title}: ${first?.name} and ${second?.name} are statistically tied at the top (${first?.ms.p50.toFixed(1)}% and ${second?.ms.p50.toFixed(1)}%, p50 over 24h; sign test p = ${p}).`;
    expect(stat.headline).toBe(expected);
    expect(stat.quote.startsWith(expected)).toBe(true);
    await f.close();
  });

  it('a tie within the margin says so', async () => {
    // Mobula 0.2 points above Codex every cycle: significant, but within 0.5 points.
    const f = await fixture({
      samples: cycles(48, { mobula: (i) => 90.2 + (i % 5), codex: (i) => 90 + (i % 5) }),
    });
    const { value: stat } = await f.publication.stat(BENCH, null);
    expect(stat.rankings[1]?.vsLeader?.pValue).toBeLessThan(0.05);
    expect(stat.rankings[1]?.tiedWithLeader).toBe(true);
    expect(stat.headline).toMatch(
      /: Mobula and Codex are statistically tied at the top \(92\.2% and 92\.0%, p50 over 24h; within the 0\.5-point margin\)\.$/,
    );
    await f.close();
  });
});

describe('rule 6: compare needs the same test and margin', () => {
  it('a statistical tie is comparable, keeps its delta, says why; a clear gap wins', async () => {
    const rand = prng(3);
    const draws = Array.from({ length: 48 }, () => [85 + rand() * 10, 85 + rand() * 10]);
    const f = await fixture({
      samples: [
        ...cycles(48, {
          mobula: (i) => round6(draws[i]?.[0] as number),
          codex: (i) => round6(draws[i]?.[1] as number),
          bitquery: () => 40,
        }),
      ],
    });
    const tie = await f.publication.compare('mobula', 'codex');
    if (!tie.ok) throw new Error(tie.message);
    const row = tie.served.value.shared.find((x) => x.slug === BENCH);
    if (!row) throw new Error('no row');
    expect(row).toMatchObject({ comparable: true, winner: 'tie', reason: 'not-significant' });
    expect(row.delta).toBe(Number(((row.aValue as number) - (row.bValue as number)).toPrecision(12)));
    expect(row.significance).toMatchObject({ test: 'sign-test', pairs: 48, margin: 0.5 });
    // Each side's p50 comes with its interval from the same shared samples (order statistics).
    const sortedA = draws.map((d) => round6(d[0] as number)).sort((x, y) => x - y);
    const r48 = orderStatRanks(48, 0.5);
    expect(row.aCi95).toEqual([sortedA[(r48?.lo ?? 0) - 1], sortedA[(r48?.hi ?? 0) - 1]]);
    expect(row.bCi95?.[0]).toBeLessThanOrEqual(row.bValue as number);
    expect(compareVerdict(row, 'Mobula', 'Codex')).toBe(
      `statistically tied (sign test p = ${Number(row.significance?.pValue.toPrecision(2))}, 48 cycles)`,
    );
    const c = tie.served.value;
    // Every tie counts: a + b + tie = shared; notComparable only the comparable: false rows.
    expect(c.totalWins.a + c.totalWins.b + c.totalWins.tie).toBe(c.shared.length);
    expect(c.notComparable).toBe(c.shared.filter((r) => !r.comparable).length);
    expect(c.totalWins.tie).toBeGreaterThan(c.notComparable);

    const gap = await f.publication.compare('mobula', 'bitquery');
    if (!gap.ok) throw new Error(gap.message);
    const won = gap.served.value.shared.find((x) => x.slug === BENCH);
    expect(won).toMatchObject({ comparable: true, winner: 'a', reason: null });
    expect(won?.significance?.pValue).toBeLessThan(0.05);
    expect(compareVerdict(won ?? row, 'Mobula', 'Bitquery')).toBe('Mobula ahead');
    await f.close();
  });

  it('within the margin: "tied within the 0.5-point margin"; latest-mode rows keep any difference', async () => {
    const f = await fixture({
      samples: [
        ...cycles(20, { mobula: (i) => 90.2 + (i % 3), codex: (i) => 90 + (i % 3) }),
        // Two listings of the same kind (dex-index), one network apart.
        { metric: METRICS.networksSupported, labels: { provider: 'geckoterminal' }, t: NOW - H, v: 101 },
        { metric: METRICS.networksSupported, labels: { provider: 'codex' }, t: NOW - H, v: 100 },
      ],
    });
    const r = await f.publication.compare('mobula', 'codex');
    if (!r.ok) throw new Error(r.message);
    const row = r.served.value.shared.find((x) => x.slug === BENCH);
    expect(row).toMatchObject({ comparable: true, winner: 'tie', reason: 'within-margin' });
    expect(row && compareVerdict(row, 'Mobula', 'Codex')).toBe('tied within the 0.5-point margin');
    const listings = await f.publication.compare('geckoterminal', 'codex');
    if (!listings.ok) throw new Error(listings.message);
    const listing = listings.served.value.shared.find((x) => x.slug === 'network-coverage');
    expect(listing).toMatchObject({ winner: 'a', delta: 1, comparable: true, reason: null });
    expect(listing?.significance).toBeUndefined();
    await f.close();
  });
});

describe('rule 9: schemas', () => {
  let run: Running;
  beforeAll(async () => {
    run = await startServer();
  }, 60_000);
  afterAll(async () => {
    await run?.close();
  });

  it('a Stat and a Compare frozen before the issue still validate, byte-identical', async () => {
    const stat = (await (await fetch(`${run.url}/api/stat/${BENCH}`)).json()) as Record<string, unknown>;
    const rows = (stat.rankings as Record<string, unknown>[]).map((r) => {
      const { ci95: _a, insufficientData: _b, vsLeader: _c, tiedWithLeader: _d, ...old } = r;
      return old;
    });
    const before = { ...stat, rankings: rows };
    expect(JSON.stringify(statSchema.parse(before))).toBe(JSON.stringify(before));
    const cmp = (await (await fetch(`${run.url}/api/compare/mobula/codex`)).json()) as Record<
      string,
      unknown
    >;
    const shared = (cmp.shared as Record<string, unknown>[]).map((r) => {
      const { significance: _, ...old } = r;
      return old;
    });
    const oldCompare = { ...cmp, shared };
    expect(JSON.stringify(compareSchema.parse(oldCompare))).toBe(JSON.stringify(oldCompare));
  });

  it('the OpenAPI document declares the new fields, the test and the reasons', async () => {
    const doc = (await (await fetch(`${run.url}/api/openapi.json`)).json()) as {
      components: { schemas: Record<string, { properties?: Record<string, { description?: string }> }> };
    };
    const ranking = doc.components.schemas.Ranking?.properties ?? {};
    for (const f of ['ci95', 'insufficientData', 'vsLeader', 'tiedWithLeader'])
      expect(ranking[f], f).toBeDefined();
    const text = JSON.stringify(doc);
    expect(text).toContain('exact two-sided sign test on per-cycle median differences');
    for (const reason of ['insufficient-data', 'not-significant', 'within-margin', 'conflicting']) {
      expect(text).toContain(reason);
    }
    expect(JSON.stringify(doc.components.schemas)).toContain('significance');
  });
});
