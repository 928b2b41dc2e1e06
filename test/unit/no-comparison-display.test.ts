/**
 * A row with noComparison has no score: it is the only provider measured on the view's cells, so
 * its capture is 100% by construction. Every door that prints a row prints a dash and the reason
 * instead of its p50, p90, p99 and mean: the benchmark page, the Markdown of /api/llm-context (and
 * the MCP resource, the same function) and the MCP summary. The JSON row keeps its four `ms`
 * numbers, which the row schema (spec 2.5) requires. The demo dataset has the case: Mobula is the
 * only provider with a Stellar endpoint.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RankingRow, Stat } from '../../src/core/api-schemas.ts';
import { benchmarkMarkdown, llmContextMarkdown } from '../../src/core/markdown.ts';
import type { Site } from '../../src/core/urls.ts';
import { summaryOf } from '../../src/mcp/tools/get-benchmark.ts';
import { type Running, startServer } from '../helpers/server.ts';

const STELLAR = '/benchmarks/token-trade-coverage?chain=stellar';

let srv: Running;
let stellar: Stat;
beforeAll(async () => {
  srv = await startServer();
  stellar = (await (await srv.get('/api/stat/token-trade-coverage?chain=stellar')).json()) as Stat;
});
afterAll(() => srv.close());

/** The page's text of an HTML fragment: tags dropped, entities of the page's escaping read back. */
function text(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replaceAll('&amp;', '&')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The Rankings table as a person reads it: header texts, and each row's cell texts. */
function rankingsTable(html: string): { heads: string[]; rows: string[][] } {
  const start = html.indexOf('<h2>Rankings');
  const table = html.slice(start, html.indexOf('</table>', start));
  const heads = [...table.matchAll(/<th[^>]*>([\s\S]*?)<\/th>/g)].map((m) => text(m[1] ?? ''));
  const body = table.slice(table.indexOf('<tbody>'));
  const rows = [...body.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].map((r) =>
    [...(r[1] ?? '').matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((c) => text(c[1] ?? '')),
  );
  return { heads, rows };
}

const alone = (): RankingRow => {
  const row = stellar.rankings[0];
  if (!row) throw new Error('no Stellar row');
  return row;
};

describe('a row with no comparison shows no score', () => {
  it('the case: Mobula alone on Stellar, its JSON ms still four numbers', () => {
    expect(stellar.rankings).toHaveLength(1);
    expect(alone()).toMatchObject({ slug: 'mobula', noComparison: true, rank: null });
    expect(Object.values(alone().ms).every((v) => typeof v === 'number')).toBe(true);
  });

  it('the benchmark page: a dash and the reason, no percentage, and no interval note', async () => {
    const html = await (await srv.get(STELLAR)).text();
    const { heads, rows } = rankingsTable(html);
    const row = rows.find((r) => r[1]?.startsWith('Mobula')) ?? [];
    const at = (h: string) => row[heads.indexOf(h)] ?? '';
    expect(at('p50 (%)')).toBe('– no comparison');
    // Union and recall columns are shown only where some row has them.
    const scores = ['p90 (%)', 'p99 (%)', 'Mean (%)', 'p50 vs union (%)', 'p50 recall vs chain (%)'];
    for (const h of scores.filter((x) => heads.includes(x))) expect(at(h), h).toBe('–');
    expect(heads).toContain('p90 (%)');
    // No number in the row but its probes: they count whether or not anyone else was measured.
    const probes = ['Probes OK (%)', 'Samples (count)'];
    const others = row.filter((_, i) => !probes.includes(heads[i] ?? ''));
    expect(others.join(' | '), 'no score anywhere in the row').not.toMatch(/\d/);
    // One reason: a row with no comparable sample is not "too few samples" as well.
    expect(row.join(' | ')).not.toContain('too few samples');
    expect(html).not.toContain('data-testid="too-few-note"');
    // The 95% CI note explains intervals the table shows: this table shows none.
    expect(html).not.toContain('data-testid="ci-note"');
    expect(html).toContain('data-testid="no-comparison-note"');
  });

  it('the Markdown of /api/llm-context and the MCP resource: a dash, the probes, the reason', () => {
    const md = benchmarkMarkdown(stellar);
    const line = md.split('\n').find((l) => l.includes('(`mobula`)')) ?? '';
    expect(line).toBe(
      `- Mobula (\`mobula\`): – (success ${alone().successRate.toFixed(1)}%, sample ${alone().sampleSize}) **no comparison** (no other provider measured here; not ranked)`,
    );
    const site: Site = { name: 'Citebench', baseUrl: 'http://bench.test' };
    const doc = llmContextMarkdown([stellar], site);
    expect(doc).toContain(line);
    expect(doc).not.toMatch(/\(`mobula`\): 100/);
  });

  it('the MCP summary: no value and no interval for the row', () => {
    const row = summaryOf(stellar).rankings[0];
    expect(row).toMatchObject({ slug: 'mobula', value: null, ci95: null, note: 'no comparison' });
  });
});
