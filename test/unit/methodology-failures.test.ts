/**
 * Methodology, second pass (issue 20): the aggregation rules must not hide a failure, and each
 * rule lives in one place. Each test builds the case that showed the defect, as the harness stores
 * it, and checks the published number.
 */
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { AuditEntry, RankingRow } from '../../src/core/api-schemas.ts';
import { percentOf, publishedPct } from '../../src/core/percent.ts';
import { windowRows } from '../../src/core/rows.ts';
import type { Sample } from '../../src/core/samples.ts';
import { evaluateSeries, seriesGrid } from '../../src/core/series.ts';
import { quantileSorted, round6 } from '../../src/core/stats.ts';
import { startHarnessDemo } from '../../src/demo/harness-demo.ts';
import { METRICS } from '../../src/harness/families/metric-names.ts';
import { fixture, H, NOW } from '../helpers/fixture.ts';

const BENCH = 'token-trade-coverage';

type Outcome = { provider: string; count: number } | { provider: string; failed: true; fiveXx?: boolean };

/**
 * What one harness cycle stores for one cell: count, probe and capped per scored provider, a capture
 * sample only when the baseline (largest count) is above zero, and the cell's union.
 */
function cell(chain: string, token: string, t: number, outcomes: Outcome[], region?: string): Sample[] {
  const r: Record<string, string> = region === undefined ? {} : { region };
  const counts = outcomes.map((o) => ('count' in o ? o.count : 0));
  const max = Math.max(0, ...counts);
  const out: Sample[] = [];
  outcomes.forEach((o, i) => {
    const labels = { provider: o.provider, chain, token, ...r };
    const count = counts[i] as number;
    out.push(
      { metric: METRICS.tokenTradeCount, labels, t, v: count },
      { metric: METRICS.tokenTradeProbeOk, labels, t, v: 'failed' in o ? 0 : 1 },
      { metric: METRICS.tokenTradeCapped, labels, t, v: 0 },
    );
    const pct = percentOf(count, max);
    if (pct !== null) out.push({ metric: METRICS.tokenTradeCapturePct, labels, t, v: pct });
  });
  out.push({ metric: METRICS.tokenTradeUnionCount, labels: { chain, token, ...r }, t, v: max });
  return out;
}

/** The per-provider, per-cycle 5xx sample (1 = a cycle of 5xx). */
function cycle5xx(provider: string, t: number, v: 0 | 1, region?: string): Sample {
  return {
    metric: METRICS.providerCycle5xx,
    labels: { benchmark: BENCH, provider, ...(region === undefined ? {} : { region }) },
    t,
    v,
  };
}

describe('rule 1: a lone provider failure counts in successRate', () => {
  // Mobula is alone on Stellar; its second cycle there is a 503: count 0, failed probe, no
  // capture sample (0/0). Solana has a comparable pair so the unfiltered ranking has rows.
  const samples = [
    ...cell('stellar', 'yXLM', NOW - 2 * H, [{ provider: 'mobula', count: 50 }]),
    ...cell('stellar', 'yXLM', NOW - H, [{ provider: 'mobula', failed: true, fiveXx: true }]),
    ...cell('solana', 'BONK', NOW - 2 * H, [
      { provider: 'mobula', count: 100 },
      { provider: 'bitquery', count: 90 },
    ]),
    ...cell('solana', 'BONK', NOW - H, [
      { provider: 'mobula', count: 100 },
      { provider: 'bitquery', count: 90 },
    ]),
  ];

  it('?chain=stellar publishes 50, not 100', async () => {
    const f = await fixture({ samples });
    const { value: stat } = await f.publication.stat(BENCH, { chain: 'stellar' });
    expect(stat.rankings).toHaveLength(1);
    // Both probes count in successRate; neither capture was compared, so no sample counts.
    expect(stat.rankings[0]).toMatchObject({
      slug: 'mobula',
      noComparison: true,
      successRate: 50,
      sampleSize: 0,
    });
    await f.close();
  });

  it('the unfiltered row counts the lone failed probe too (3 of 4 ok)', async () => {
    const f = await fixture({ samples });
    const { value: stat } = await f.publication.stat(BENCH, null);
    const mobula = stat.rankings.find((r) => r.slug === 'mobula');
    expect(mobula).toMatchObject({ successRate: 75, sampleSize: 2, ms: { p50: 100 } });
    await f.close();
  });
});

describe('rule 2: a failure on a cell where everyone else returned zero counts', () => {
  it('Codex 504 while Mobula and Bitquery return [] gives Codex 50% success, not 100', async () => {
    const samples = [
      ...cell('solana', 'BONK', NOW - 2 * H, [
        { provider: 'mobula', count: 100 },
        { provider: 'bitquery', count: 90 },
        { provider: 'codex', count: 80 },
      ]),
      ...cell('solana', 'BONK', NOW - H, [
        { provider: 'mobula', count: 0 },
        { provider: 'bitquery', count: 0 },
        { provider: 'codex', failed: true, fiveXx: true },
      ]),
    ];
    const f = await fixture({ samples });
    const { value: stat } = await f.publication.stat(BENCH, null);
    expect(stat.rankings.map((r) => [r.slug, r.successRate, r.sampleSize])).toEqual([
      ['mobula', 100, 1],
      ['bitquery', 100, 1],
      ['codex', 50, 1],
    ]);
    await f.close();
  });

  it('windowRows: successRate is over every probe of the view, with or without a capture value', () => {
    const labels = { provider: 'codex', chain: 'solana', token: 'BONK' };
    const rows = windowRows([{ slug: 'codex', endpoint: 'x' }], {
      cellLabels: ['chain', 'token'],
      values: [{ metric: 'c', labels, t: 1, v: 100 }],
      probes: [
        { metric: 'p', labels, t: 1, v: 1 },
        { metric: 'p', labels, t: 2, v: 0 },
        { metric: 'p', labels, t: 3, v: 0 },
      ],
    });
    expect(rows[0]?.successRate).toBe(33.3333);
  });
});

describe('rule 4: the sparkline draws no lone samples', () => {
  // Mobula alone on Stellar (100% by construction) from 36 h to 13 h ago; from 12 h ago on it
  // shares Solana with Bitquery and scores 80. The 24 h grid's first 36 points see only lone pairs.
  const samples: Sample[] = [];
  for (let h = 36; h >= 13; h--) samples.push(...capture('mobula', 'stellar', 'yXLM', NOW - h * H, 100));
  for (let h = 12; h >= 0; h--) {
    samples.push(...capture('mobula', 'solana', 'BONK', NOW - h * H, 80));
    samples.push(...capture('bitquery', 'solana', 'BONK', NOW - h * H, 70));
  }

  it('a window without a comparable pair is a gap, never 100', async () => {
    const f = await fixture({ samples });
    const { value: stat } = await f.publication.stat(BENCH, null);
    expect(stat.value).toBe(80);
    expect(stat.sparkline).toHaveLength(73);
    expect(stat.sparkline.filter((v) => v === 100)).toHaveLength(0);
    expect(stat.sparklineGaps).toEqual(Array.from({ length: 36 }, (_, i) => i));
    await f.close();
  });

  it('evaluateSeries gives null there, for every provider', () => {
    const grid = seriesGrid('24h', NOW);
    const values = samples.filter((s) => s.metric === METRICS.tokenTradeCapturePct);
    const series = evaluateSeries(
      [
        { slug: 'mobula', endpoint: 'x' },
        { slug: 'bitquery', endpoint: 'x' },
      ],
      { mode: 'window', cellLabels: ['chain', 'token'], values },
      grid,
      24 * H,
    );
    const mobula = series.get('mobula') ?? [];
    expect(mobula.slice(0, 36).every((v) => v === null)).toBe(true);
    expect(mobula.slice(36).every((v) => v === 80)).toBe(true);
  });
});

function capture(provider: string, chain: string, token: string, t: number, v: number): Sample[] {
  const labels = { provider, chain, token };
  return [
    { metric: METRICS.tokenTradeCapturePct, labels, t, v },
    { metric: METRICS.tokenTradeCount, labels, t, v },
    { metric: METRICS.tokenTradeProbeOk, labels, t, v: 1 },
  ];
}

describe('rule 5: compare uses the pair rule, and never pools lone cells', () => {
  // Mobula and Bitquery never share a (cell, cycle): each shares Solana with Codex in alternate
  // cycles. Mobula is also alone on Stellar (100s) in its cycles: pooled, its p50 would be 85.
  const samples: Sample[] = [];
  for (const h of [1, 2, 3, 4]) {
    const t = NOW - h * H;
    if (h % 2 === 1) {
      samples.push(
        ...capture('mobula', 'solana', 'BONK', t, 70),
        ...capture('codex', 'solana', 'BONK', t, 100),
      );
      samples.push(...capture('mobula', 'stellar', 'yXLM', t, 100));
    } else {
      samples.push(
        ...capture('bitquery', 'solana', 'BONK', t, 60),
        ...capture('codex', 'solana', 'BONK', t, 100),
      );
    }
  }

  it('without a shared pair each side is its Stat row value and the row is not comparable', async () => {
    const f = await fixture({ samples });
    const { value: stat } = await f.publication.stat(BENCH, null);
    expect(stat.rankings.find((r) => r.slug === 'mobula')?.ms.p50).toBe(70);
    const r = await f.publication.compare('mobula', 'bitquery');
    if (!r.ok) throw new Error(r.message);
    const row = (r.served.value as { shared: Array<Record<string, unknown>> }).shared.find(
      (x) => x.slug === BENCH,
    );
    expect(row).toMatchObject({
      aValue: 70,
      bValue: 60,
      comparable: false,
      reason: 'no-shared-pairs',
      winner: 'tie',
      delta: null,
    });
    await f.close();
  });

  it('with shared pairs, only those pairs count (the lone Stellar 100s stay out)', async () => {
    const shared: Sample[] = [];
    // Ten cycles: enough shared samples (minSamples) and paired cycles for the sign test to decide.
    for (let h = 1; h <= 10; h++) {
      const t = NOW - h * H;
      shared.push(
        ...capture('mobula', 'solana', 'BONK', t, 70),
        ...capture('bitquery', 'solana', 'BONK', t, 100),
      );
      shared.push(
        ...capture('mobula', 'stellar', 'yXLM', t, 100),
        ...capture('mobula', 'stellar', 'SHX', t, 100),
      );
    }
    const f = await fixture({ samples: shared });
    const r = await f.publication.compare('mobula', 'bitquery');
    if (!r.ok) throw new Error(r.message);
    const row = (r.served.value as { shared: Array<Record<string, unknown>> }).shared.find(
      (x) => x.slug === BENCH,
    );
    expect(row).toMatchObject({ aValue: 70, bValue: 100, comparable: true, winner: 'b' });
    await f.close();
  });
});

describe('rule 8: the unresponsive marker follows the region filter', () => {
  // Bitquery gets 503 on every cell in eu for three cycles and is healthy in us.
  const samples: Sample[] = [];
  for (const h of [3, 2, 1]) {
    const t = NOW - h * H;
    samples.push(
      ...cell(
        'solana',
        'BONK',
        t,
        [
          { provider: 'mobula', count: 100 },
          { provider: 'bitquery', failed: true, fiveXx: true },
        ],
        'eu',
      ),
      ...cell(
        'solana',
        'BONK',
        t,
        [
          { provider: 'mobula', count: 100 },
          { provider: 'bitquery', count: 95 },
        ],
        'us',
      ),
      cycle5xx('mobula', t, 0, 'eu'),
      cycle5xx('bitquery', t, 1, 'eu'),
      cycle5xx('mobula', t, 0, 'us'),
      cycle5xx('bitquery', t, 0, 'us'),
    );
  }

  it('?region=eu marks Bitquery unresponsive; ?region=us and the aggregate do not', async () => {
    // Three cycles: the marker, not the minimum sample count, is under test.
    const f = await fixture({ samples, minSamples: 1 });
    const marker = async (region: string | null) => {
      const { value } = await f.publication.stat(BENCH, region === null ? null : { region });
      const row = value.rankings.find((r) => r.slug === 'bitquery');
      return [row?.unresponsive, row?.rank];
    };
    expect(await marker('eu')).toEqual([true, null]);
    expect(await marker('us')).toEqual([false, 2]);
    // Dead in one region only: not unresponsive across regions.
    expect(await marker(null)).toEqual([false, 2]);
    await f.close();
  });
});

describe('rule 10: one formula and one rounding rule for every published percentage', () => {
  it('percentOf is part / whole × 100 with no score for 0/0; publishedPct rounds once to 6 digits', () => {
    expect(percentOf(2, 3)).toBe((2 / 3) * 100);
    expect(percentOf(0, 0)).toBeNull();
    expect(percentOf(5, 0)).toBeNull();
    expect(publishedPct(2, 3)).toBe(66.6667);
  });

  it('the audit publishes capturePct with the same rounding as unionCapturePct', async () => {
    const t = NOW - H;
    const f = await fixture({
      samples: cell('solana', 'BONK', t, [
        { provider: 'mobula', count: 3 },
        { provider: 'codex', count: 2 },
      ]).map((s) => (s.metric === METRICS.tokenTradeUnionCount ? { ...s, v: 7 } : s)),
    });
    const audit = await f.publication.audit(BENCH, 'codex');
    expect(audit?.value.cells?.[0]).toMatchObject({ capturePct: 66.6667, unionCapturePct: 28.5714 });
    await f.close();
  });
});

/** An entry's capture, as the row computes it: count / cellMax × 100. */
const captureOf = (e: AuditEntry) => ((e.count as number) / (e.cellMax as number)) * 100;

/** What a window audit's entries say a ranking row is, by the one rule both follow (usedSamples). */
function recomputed(entries: readonly AuditEntry[], entryValue = captureOf) {
  const comparable = entries.filter((e) => e.comparable);
  const values = comparable.map(entryValue).sort((a, b) => a - b);
  const ok = entries.filter((e) => e.probeOk).length;
  return {
    sampleSize: comparable.length,
    successRate: round6((ok / entries.length) * 100),
    noComparison: comparable.length === 0,
    // A row with no comparable entry has no value to recompute.
    p50: comparable.length === 0 ? null : round6(quantileSorted(values, 0.5)),
  };
}

/** The same four facts of a published row (its p50 only where it has a comparison). */
function published(row: RankingRow) {
  return {
    sampleSize: row.sampleSize,
    successRate: row.successRate,
    noComparison: row.noComparison,
    p50: row.noComparison ? null : row.ms.p50,
  };
}

describe('rule 12b: a row alone on its cells is reproducible from its window audit too', () => {
  // The demo dataset: Mobula is the only provider with a Stellar endpoint, so on ?chain=stellar it
  // is alone on every cell and cycle; on the other views every row has comparable entries.
  it('sampleSize, successRate, noComparison and p50 of every row of every view, from entries alone', async () => {
    const f = await fixture();
    let alone = 0;
    for (const chain of [null, 'solana', 'ethereum', 'bsc', 'base', 'stellar']) {
      const filters = chain === null ? null : { chain };
      const { value: stat } = await f.publication.stat(BENCH, filters);
      expect(stat.rankings.length, String(chain)).toBeGreaterThan(0);
      for (const row of stat.rankings) {
        const audit = await f.publication.audit(BENCH, row.slug, undefined, { filters });
        const entries = audit?.value.entries ?? [];
        expect(entries.length).toBeGreaterThan(0);
        expect(recomputed(entries), `${row.slug} ${chain}`).toEqual(published(row));
        if (row.noComparison) alone++;
      }
      expect(stat.sampleSize).toBe(stat.rankings.reduce((n, r) => n + r.sampleSize, 0));
    }
    // The case is only a test if a row is alone on its cells: Mobula on Stellar.
    expect(alone).toBe(1);
    // The recall benchmark follows the same rule, its value being each entry's recall.
    const recallOf = (e: AuditEntry) => e.groundTruth?.recallPct as number;
    for (const chain of [null, 'ethereum', 'bsc', 'base']) {
      const filters = chain === null ? null : { chain };
      const { value: stat } = await f.publication.stat('token-trade-recall', filters);
      expect(stat.rankings.length, String(chain)).toBeGreaterThan(0);
      for (const row of stat.rankings) {
        const audit = await f.publication.audit('token-trade-recall', row.slug, undefined, { filters });
        const entries = audit?.value.entries ?? [];
        const { p50, ...counts } = recomputed(entries, recallOf);
        const { p50: rowP50, ...rowCounts } = published(row);
        expect(counts, `recall ${row.slug} ${chain}`).toEqual(rowCounts);
        // An entry's recall is published rounded (6 significant digits): their median may differ
        // from the row's, computed unrounded, in the last digit.
        expect(Math.abs((p50 ?? 0) - (rowP50 ?? 0))).toBeLessThan(2e-4);
      }
    }
    const { value: stellar } = await f.publication.stat(BENCH, { chain: 'stellar' });
    expect(stellar.rankings[0]).toMatchObject({
      slug: 'mobula',
      noComparison: true,
      sampleSize: 0,
      successRate: 100,
      insufficientData: true,
      ci95: { p50: null, p90: null, p99: null },
      unionCapture: null,
    });
    await f.close();
  });
});

describe('rule 12: a row is reproducible from its window audit', () => {
  const DEMO_NOW = Date.UTC(2026, 10, 20, 12, 7);
  // 16 h before the demo's end: the window holds the seeded 503 outage (40–38 h before) and
  // the refused key (20–19.5 h before), so some rows have failed probes.
  const EVAL = DEMO_NOW - 16 * H;

  it('sampleSize, successRate and p50 of every row, filtered and unfiltered, from entries alone', async () => {
    const f = await fixture({ samples: [] });
    const demo = await startHarnessDemo({
      store: f.store,
      // The trade benchmark's audit is what this checks; the json-rpc demo has tests of its own.
      specs: f.specs.filter((s) => s.family !== 'json-rpc'),
      groundTruth: false,
      metrics: new Registry(),
      seed: 42,
      days: 2,
      now: DEMO_NOW,
    });
    await demo.stop();
    f.clock.now = EVAL;
    let failedRows = 0;
    for (const chain of [null, 'solana', 'ethereum', 'bsc', 'base', 'stellar']) {
      const filters = chain === null ? null : { chain };
      const { value: stat } = await f.publication.stat(BENCH, filters);
      expect(stat.rankings.length).toBeGreaterThan(0);
      for (const row of stat.rankings) {
        const audit = await f.publication.audit(BENCH, row.slug, undefined, { filters });
        const entries = audit?.value.entries ?? [];
        expect(entries.length).toBeGreaterThan(0);
        expect(recomputed(entries)).toEqual(published(row));
        if (row.successRate < 100) failedRows++;
      }
    }
    // The case is only a test if some rows carry failures.
    expect(failedRows).toBeGreaterThan(0);
    await f.close();
  }, 120_000);
});
