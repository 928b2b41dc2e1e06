/**
 * Issue 24, rule 7: every window p50 is shown with its interval, and a lead the data cannot support
 * is shown as a tie, wherever people read (benchmark page, home, compare page, llm-context, MCP, OG
 * image); /methodology states the rules and their caveats. One crafted day: Bitquery and Mobula
 * alternate above and below each other (sign test p = 1: tied), Codex has 7 samples (too few).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Compare, RankingRow, Stat } from '../../src/core/api-schemas.ts';
import { formatInterval, formatWithCi } from '../../src/core/format.ts';
import { llmContextMarkdown } from '../../src/core/markdown.ts';
import type { Sample } from '../../src/core/samples.ts';
import { METRICS } from '../../src/harness/families/metric-names.ts';
import { compareProvidersTool, compareSummary } from '../../src/mcp/tools/compare-providers.ts';
import type { ToolContext } from '../../src/mcp/tools/context.ts';
import { summaryOf } from '../../src/mcp/tools/get-benchmark.ts';
import { benchmarkPage } from '../../src/pages/benchmark-page.ts';
import { comparePage, homePage } from '../../src/pages/index-pages.ts';
import { methodologyPage } from '../../src/pages/methodology-page.ts';
import { cardTexts, ogElement } from '../../src/render/og-layout.ts';
import { ogModelFromStat } from '../../src/render/og-model.ts';
import { type Fixture, fixture, NOW } from '../helpers/fixture.ts';

const BENCH = 'token-trade-coverage';
const CYCLE = 30 * 60_000;

function scored(provider: string, t: number, v: number): Sample[] {
  const labels = { provider, chain: 'solana', token: 'BONK' };
  return [
    { metric: METRICS.tokenTradeCapturePct, labels, t, v },
    { metric: METRICS.tokenTradeCount, labels, t, v: Math.round(v * 10) },
    { metric: METRICS.tokenTradeProbeOk, labels, t, v: 1 },
  ];
}

/** 47 cycles over 24 h; Mobula 0.3 points above Bitquery in half of them, below in the other half. */
function samples(): Sample[] {
  const out: Sample[] = [];
  for (let i = 0; i < 48; i++) {
    const t = NOW - (i + 1) * CYCLE;
    const b = 93 + ((i * 7) % 11) / 5;
    out.push(...scored('bitquery', t, b), ...scored('mobula', t, b + (i % 2 === 0 ? 0.3 : -0.3)));
    if (i < 7) out.push(...scored('codex', t, 90 + i / 10));
    out.push({
      metric: METRICS.tokenTradeUnionCount,
      labels: { chain: 'solana', token: 'BONK' },
      t,
      v: 1000,
    });
  }
  return out;
}

/** The text a reader sees: tags dropped, entities a test writes literally decoded. */
function text(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replaceAll('&lt;', '<')
    .replaceAll('&#39;', "'")
    .replaceAll('&amp;', '&')
    .replace(/\s+/g, ' ');
}

let f: Fixture;
let stat: Stat;
let leader: RankingRow;
let tied: RankingRow;
let few: RankingRow;
let cmp: Compare;

beforeAll(async () => {
  f = await fixture({ samples: samples() });
  stat = (await f.publication.stat(BENCH, null)).value;
  const bySlug = (s: string) => stat.rankings.find((r) => r.slug === s) as RankingRow;
  leader = stat.rankings[0] as RankingRow;
  tied = bySlug(leader.slug === 'bitquery' ? 'mobula' : 'bitquery');
  few = bySlug('codex');
  const r = await f.publication.compare('bitquery', 'mobula');
  if (!r.ok) throw new Error(r.message);
  cmp = r.served.value;
});
afterAll(() => f.close());

describe('the crafted day', () => {
  it('has two rows tied at the top and one with too few samples', () => {
    expect(leader.rank).toBe(1);
    expect(leader.ci95?.p50).not.toBeNull();
    expect(tied).toMatchObject({ rank: 2, tiedWithLeader: true, vsLeader: { pValue: 1, pairs: 47 } });
    expect(few).toMatchObject({ rank: null, insufficientData: true, sampleSize: 7 });
    expect(cmp.shared.find((r) => r.slug === BENCH)).toMatchObject({
      winner: 'tie',
      comparable: true,
      reason: 'not-significant',
    });
  });
});

describe('benchmark page', () => {
  const page = () => benchmarkPage({ stat, siteName: 'Citebench', mode: 'window' });

  it('shows each window p50 with its interval', () => {
    const t = text(page());
    for (const r of [leader, tied, few]) {
      expect(r.ci95?.p50, r.slug).toBeTruthy();
      expect(t).toContain(formatWithCi(r.ms.p50, r.ci95?.p50, 'pct'));
    }
    expect(t).toContain(
      `95% CI ${formatInterval(leader.ci95?.p50 as [number, number], 'pct')} (the leader's p50`,
    );
  });

  it('marks the row tied with the leader, and the top as tied', () => {
    const html = page();
    expect(html).toContain('data-testid="tied" title="sign test p = 1, 47 cycles">tied with leader</span>');
    expect(text(html)).toContain(`statistically tied with ${tied.name}`);
    expect(text(html)).toContain(
      `Tied with the leader: the data cannot separate ${tied.name} (sign test p = 1, 47 cycles) from ${leader.name}`,
    );
  });

  it('shows a row with too few samples unranked, saying so', () => {
    const html = page();
    expect(html).toContain('data-testid="too-few"');
    expect(html).toContain('<td class="barcell muted small">too few samples</td>');
    expect(text(html)).toContain(`Too few samples: ${few.name} (7) had fewer samples`);
  });
});

describe('home and compare pages', () => {
  it('the home page calls the top a tie and gives the value its interval', () => {
    const t = text(
      homePage({ stats: [stat], siteName: 'Citebench', baseUrl: 'http://bench.test', simulated: false }),
    );
    expect(t).toContain(`${leader.name} and ${tied.name} are statistically tied at the top`);
    expect(t).toContain(`(95% CI ${formatInterval(leader.ci95?.p50 as [number, number], 'pct')})`);
    expect(t).not.toContain(`${leader.name} leads at`);
  });

  it('the compare page words a statistical tie with its test, never as a plain tie or a win', () => {
    const html = comparePage(cmp, { siteName: 'Citebench', modeOf: () => 'window' });
    expect(html).toContain(
      'data-testid="statistical-tie">Statistically tied (sign test p = 1, 47 cycles)</td>',
    );
    expect(text(html)).toContain('a side is better only when the paired sign test');
    expect(text(html)).toContain(
      'Each value is the p50 over the samples both were measured on, with its 95% interval',
    );
    // Each side's p50 over the shared samples, with the interval from those same samples.
    const row = cmp.shared.find((r) => r.slug === BENCH);
    if (!row?.aCi95 || !row.bCi95 || row.aValue === null || row.bValue === null)
      throw new Error('no intervals');
    expect(text(html)).toContain(text(formatWithCi(row.aValue, row.aCi95, 'pct')));
    expect(text(html)).toContain(text(formatWithCi(row.bValue, row.bCi95, 'pct')));
  });
});

describe('llm-context', () => {
  it('gives each p50 its interval and says who is tied and who has too few samples', () => {
    const doc = llmContextMarkdown([stat], { name: 'Citebench', baseUrl: 'http://bench.test' });
    for (const r of [leader, tied, few]) expect(doc).toContain(formatWithCi(r.ms.p50, r.ci95?.p50, 'pct'));
    expect(doc).toContain('**Rankings (p50 with its 95% CI, 24h):**');
    expect(doc).toMatch(
      new RegExp(
        `^2\\. ${tied.name} .*\\*\\*tied with the leader\\*\\* \\(sign test p = 1, 47 cycles\\)$`,
        'm',
      ),
    );
    expect(doc).toMatch(
      /^- Codex .*\*\*too few samples\*\* \(below the benchmark's minSamples; not ranked\)$/m,
    );
    expect(doc).toContain('call it tied, never behind');
  });
});

describe('MCP', () => {
  it('get_benchmark summary rows carry the p50 interval, tiedWithLeader and insufficientData', () => {
    const s = summaryOf(stat);
    expect(s.rankings.map((r) => [r.slug, r.ci95])).toEqual(stat.rankings.map((r) => [r.slug, r.ci95?.p50]));
    expect(s.rankings.find((r) => r.slug === tied.slug)).toMatchObject({ tiedWithLeader: true });
    expect(s.rankings.find((r) => r.slug === 'codex')).toMatchObject({
      insufficientData: true,
      note: 'too few samples',
    });
  });

  it('compare_providers tells an agent to call a statistical tie tied, never ahead', () => {
    const ctx = { publication: f.publication, clock: () => NOW } as unknown as ToolContext;
    const description = String(compareProvidersTool(ctx).listing.description);
    expect(description).toContain('is a statistical tie: call it tied, never say either side is "ahead"');
    // Worded by compareVerdict (already so before issue 24: a guard, not a new rule).
    const line =
      compareSummary(cmp)
        .split('\n')
        .find((l) => l.includes(stat.title)) ?? '';
    expect(line).toContain('statistically tied (sign test p = 1, 47 cycles)');
    expect(line).not.toContain('ahead');
  });
});

describe('OG image', () => {
  it("shows the leader's interval and a tie at the top, never a leader", () => {
    const m = ogModelFromStat(stat, 'Citebench');
    const ci = `95% CI ${formatInterval(leader.ci95?.p50 as [number, number], 'pct')}`;
    expect(m.ciText).toBe(ci);
    expect(m.leadLine).toBe(`Statistically tied at the top: ${leader.name} and ${tied.name} · ${stat.title}`);
    const drawn = cardTexts(ogElement(m));
    expect(drawn).toContain(ci);
    expect(drawn).toContain(m.leadLine);
    expect(drawn.join('\n')).not.toContain('leads');
  });
});

describe('/methodology', () => {
  const html = () => methodologyPage(f.specs, { name: 'Citebench', url: 'http://bench.test' }, 10);

  it('has an Uncertainty entry with the interval rule, minSamples and the caveats', () => {
    const entry = /<dt id="uncertainty">[\s\S]*?<dd>([\s\S]*?)<\/dd>/.exec(html())?.[1] ?? '';
    const t = text(entry);
    expect(t).toContain('at least 95%');
    expect(t).toContain('p50 below 6 samples, p90 below 36, p99 below 368');
    expect(t).toContain('minSamples (10 unless the spec says otherwise) is marked insufficientData');
    expect(t).toContain(
      'the intervals treat samples as independent, so they are narrower than the day-to-day spread',
    );
    expect(t).toContain('consecutive cycles can still be correlated');
    expect(t).toContain('comparisons with the leader are not corrected for multiplicity');
  });

  it('states the sign test, the verdict rule and each benchmark’s margin', () => {
    const t = text(html());
    expect(t).toContain('the median over those cells of a − b');
    expect(t).toContain('p = min(1, 2·P(Bin(m, ½) ≤ min(k+, k−))), p = 1 when m = 0');
    expect(t).toContain('the sign test gives p < 0.05');
    expect(t).toContain('not-significant or within-margin, a statistical tie; or conflicting');
    expect(t).toContain('token-trade-coverage 0.5-point (minSamples 10)');
    expect(t).toMatch(/rpc-latency 2\.0 ms \(minSamples \d+\)/);
    expect(t).toContain('a lead within the data');
    expect(t).toContain('is shown as a statistical tie');
  });
});
