/**
 * Browser checks that a page shows what its data says (issue 28, items 8–12), shared by the
 * widths test/e2e/pages-browser.test.ts runs them at. Cells are found by their column header, so the
 * checks read the page as a person does, whatever the column order.
 */
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import type { Compare, CompareRow } from '../../src/core/api-schemas.ts';
import { comparePage } from '../../src/pages/index-pages.ts';

const WINDOW_NOTE = 'p50 over the (cell, cycle) pairs both providers measured in the last 24 h';
const LISTING_NOTE = 'latest listing count';

/** The text of every cell of a table, row by row, with the header texts. */
async function readTable(page: Page, selector: string) {
  return page.locator(selector).evaluate((table) => {
    const heads = [...table.querySelectorAll('thead th')].map((th) => (th.textContent ?? '').trim());
    const rows = [...table.querySelectorAll('tbody tr')].map((tr) =>
      [...tr.querySelectorAll('td')].map((td) => (td.textContent ?? '').trim()),
    );
    return { heads, rows };
  });
}

/** Item 8 (mode from the spec) and item 9 (no score beside "no comparison"). */
export async function checkStellar(page: Page, base: string): Promise<void> {
  await page.goto(`${base}/benchmarks/token-trade-coverage?chain=stellar`);
  const { heads, rows } = await readTable(page, 'table >> nth=0');
  // A window benchmark with one provider at 100% is still a window benchmark.
  expect(heads).not.toContain('Last listing (UTC)');
  const p50 = heads.indexOf('p50 (%)');
  expect(p50, heads.join('|')).toBeGreaterThan(0);
  const row = rows[0] ?? [];
  expect(row[p50]).toMatch(/^–/);
  expect(row[p50]).toContain('no comparison');
  expect(row.join(' '), 'a no-comparison row shows no score').not.toMatch(/\d%/);

  await page.goto(`${base}/benchmarks/network-coverage`);
  expect((await readTable(page, 'table >> nth=0')).heads).toContain('Last listing (UTC)');

  await page.goto(`${base}/benchmarks/token-trade-coverage`);
  const matrix = await readTable(page, '[data-testid="matrix"] table');
  const stellar = matrix.heads.indexOf('Stellar');
  const mobula = matrix.rows.find((r) => r[0] === 'Mobula') ?? [];
  expect(stellar).toBeGreaterThan(0);
  expect(mobula[stellar]).toMatch(/^–/);
  expect(mobula[stellar]).toContain('no comparison');
  expect(mobula[stellar]).not.toMatch(/\d/);
}

const row = (slug: string, over: Partial<CompareRow>): CompareRow => ({
  slug,
  title: `Benchmark ${slug}`,
  metric: 'Trade capture rate',
  unit: 'pct',
  higherIsBetter: true,
  aValue: 100,
  bValue: 90,
  winner: 'tie',
  delta: null,
  comparable: false,
  reason: null,
  pageUrl: `http://bench.test/benchmarks/${slug}`,
  asOf: '2026-11-20T12:00:00.000Z',
  ...over,
});

/** Not comparable for missing data or an unresponsive side: no values; different kinds: both counts. */
const FIXTURE: Compare = {
  a: { slug: 'mobula', name: 'Mobula' },
  b: { slug: 'codex', name: 'Codex' },
  totalWins: { a: 1, b: 0, tie: 3 },
  notComparable: 3,
  shared: [
    row('no-data', { bValue: null, reason: 'no-data:codex' }),
    row('unresponsive', { aValue: 97.5, bValue: 12.5, reason: 'unresponsive:codex' }),
    row('kinds', {
      metric: 'Networks supported',
      unit: 'count',
      aValue: 78,
      bValue: 133,
      reason: 'different-kinds',
    }),
    row('ok', { winner: 'a', delta: 10, comparable: true }),
  ],
  comparePageUrl: 'http://bench.test/compare/mobula-vs-codex',
  license: 'CC-BY-4.0',
};

/** Item 9 (compare rows) and item 10 (what a compare value is). */
export async function checkCompareValues(page: Page, base: string): Promise<void> {
  await page.goto(`${base}/compare/mobula-vs-codex`);
  const live = await readTable(page, 'table >> nth=0');
  const trade = live.rows.find((r) => r[0]?.startsWith('Most complete onchain trade data API')) ?? [];
  const listing = live.rows.find((r) => r[0]?.startsWith('Onchain data API with most networks')) ?? [];
  expect(trade.join(' ')).toContain(WINDOW_NOTE);
  expect(listing.join(' ')).toContain(LISTING_NOTE);
  expect(await page.locator('main').textContent()).not.toContain("each benchmark's p50 over 24 h");

  const modes: Record<string, 'latest' | 'window'> = { kinds: 'latest' };
  await page.setContent(
    comparePage(FIXTURE, { siteName: 'Citebench', modeOf: (slug) => modes[slug] ?? 'window' }),
  );
  const { heads, rows } = await readTable(page, 'table >> nth=0');
  const [a, b] = [heads.indexOf('Mobula'), heads.indexOf('Codex')];
  expect(a).toBeGreaterThan(0);
  const values = (slug: string) => {
    const r = rows.find((x) => x[0]?.startsWith(`Benchmark ${slug}`)) ?? [];
    return [r[a], r[b]];
  };
  expect(values('no-data')).toEqual(['–', '–']);
  expect(values('unresponsive')).toEqual(['–', '–']);
  expect(values('kinds')).toEqual(['78', '133']);
  expect(values('ok')).toEqual(['100.0%', '90.0%']);
}

/** Item 11: on the home page a bar's length is its value's share of the best, within 3%. */
export async function checkBarLengths(page: Page, base: string): Promise<void> {
  await page.goto(`${base}/`);
  const lists = await page.locator('ol.tops').evaluateAll((ols) =>
    ols.map((ol) =>
      [...ol.querySelectorAll('li')].map((li) => {
        const bar = li.querySelector('.bar');
        const spans = li.querySelectorAll(':scope > span');
        return {
          name: (spans[0]?.textContent ?? '').trim(),
          value: (spans[spans.length - 1]?.textContent ?? '').trim(),
          role: bar?.getAttribute('role'),
          label: bar?.getAttribute('aria-label'),
          width: bar?.getBoundingClientRect().width ?? 0,
        };
      }),
    ),
  );
  expect(lists.length).toBeGreaterThan(0);
  for (const items of lists) {
    const best = items[0];
    if (!best) continue;
    const num = (s: string) => Number(s.replace(/[^0-9.]/g, ''));
    for (const it of items) {
      expect(it.role).toBe('img');
      expect(it.label).toBe(`${it.name}: ${it.value}`);
      const share = Math.min(num(it.value), num(best.value)) / Math.max(num(it.value), num(best.value));
      expect(Math.abs(it.width / best.width - share), `${it.label} vs ${best.label}`).toBeLessThanOrEqual(
        0.03,
      );
    }
  }
}

/** Where a cell lies against what its scrolling box and the viewport show. */
async function hiddenCells(page: Page, selector: string, pick: string): Promise<string[]> {
  return page.locator(selector).evaluate((table, spec) => {
    const { columns, skipRow } = JSON.parse(spec) as { columns: string[]; skipRow: string };
    const heads = [...table.querySelectorAll('thead th')].map((th) => (th.textContent ?? '').trim());
    const idx = columns.map((c) => heads.indexOf(c));
    const box = (table.closest('.wrap') ?? table).getBoundingClientRect();
    const right = Math.min(box.right, window.innerWidth);
    const out: string[] = [];
    for (const tr of table.querySelectorAll('tbody tr')) {
      const tds = [...tr.querySelectorAll('td')];
      if (skipRow && (tr.matches(skipRow) || tr.querySelector(skipRow))) continue;
      for (const i of idx) {
        const td = tds[i];
        const r = td?.getBoundingClientRect();
        if (!td || !r || r.left < box.left - 0.5 || r.right > right + 0.5)
          out.push(
            `${tds[0]?.textContent?.trim()} / ${heads[i] ?? 'missing column'}: ${r?.left}–${r?.right} of ${box.left}–${right}`,
          );
      }
    }
    return out;
  }, pick);
}

/** Item 12: at 390 px each ranked row's value and both values of a comparable compare row show. */
export async function checkPhoneValues(page: Page, base: string): Promise<void> {
  const benches: [string, string][] = [
    ['/benchmarks/token-trade-coverage', 'p50 (%)'],
    ['/benchmarks/token-trade-coverage?chain=solana', 'p50 (%)'],
    ['/benchmarks/network-coverage', 'Networks supported (count)'],
    ['/benchmarks/network-coverage?kind=asset-registry', 'Networks supported (count)'],
  ];
  for (const [path, column] of benches) {
    await page.goto(`${base}${path}`);
    const spec = JSON.stringify({ columns: [column], skipRow: 'tr.off' });
    expect(await hiddenCells(page, 'table >> nth=0', spec), path).toEqual([]);
  }
  for (const [a, b] of [
    ['Mobula', 'Codex'],
    ['Mobula', 'Bitquery'],
  ]) {
    await page.goto(`${base}/compare/${a?.toLowerCase()}-vs-${b?.toLowerCase()}`);
    const spec = JSON.stringify({ columns: [a, b], skipRow: '[data-testid="not-comparable"]' });
    expect(await hiddenCells(page, 'table >> nth=0', spec), `${a} vs ${b}`).toEqual([]);
  }
}
