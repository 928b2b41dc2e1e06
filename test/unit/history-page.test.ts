/**
 * The History section of the benchmark page (issue 25 part 2): the chart inline, server-rendered,
 * byte for byte the /api/chart SVG of the same query; range links that keep the view's filters and
 * work without JavaScript; a bad range is the page's 400.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Running, startServer } from '../helpers/server.ts';

let srv: Running;
beforeAll(async () => {
  srv = await startServer({ simulated: true });
});
afterAll(() => srv.close());

const page = async (path: string) => {
  const res = await srv.get(path, { headers: { accept: 'text/html' } });
  return { res, html: await res.text() };
};

/** The page's inline chart, put back as the standalone document it was embedded from. */
function embedded(html: string): string | undefined {
  const svg = /<figure [^>]*data-testid="history">(<svg [\s\S]*?<\/svg>)/.exec(html)?.[1];
  return svg?.replace('<svg class="spark" preserveAspectRatio="xMidYMid meet" ', '<svg ');
}

const rangeLinks = (html: string) => {
  const nav = /<nav [^>]*data-testid="history-ranges">([\s\S]*?)<\/nav>/.exec(html)?.[1] ?? '';
  return [...nav.matchAll(/<a href="([^"]*)"( aria-current="true")?>([^<]*)<\/a>/g)].map((m) => ({
    href: (m[1] ?? '').replaceAll('&amp;', '&'),
    current: m[2] !== undefined,
    text: m[3],
  }));
};

describe('History on the benchmark page', () => {
  it('embeds the /api/chart SVG of the same view and range, simulated data marked', async () => {
    for (const [q, chart] of [
      ['', ''],
      ['?chain=base', '?chain=base'],
      ['?chain=base&range=30d', '?range=30d&chain=base'],
      ['?range=90d', '?range=90d'],
    ] as const) {
      const { res, html } = await page(`/benchmarks/token-trade-coverage${q}`);
      expect(res.status, q).toBe(200);
      expect(html, q).toContain('<h2 id="history">History</h2>');
      const api = await (await srv.get(`/api/chart/token-trade-coverage${chart}`)).text();
      expect(embedded(html), q).toBe(api.replace(/^<\?xml[^>]*>\n/, '').trimEnd());
      expect(api, q).toContain('data-testid="chart-simulated">Simulated</text>');
    }
  });

  it('range links are plain links to this page that keep the filters; the current one is marked', async () => {
    const { html } = await page('/benchmarks/token-trade-coverage?chain=base&range=30d');
    expect(rangeLinks(html)).toEqual([
      { href: '/benchmarks/token-trade-coverage?chain=base#history', current: false, text: '7 days' },
      {
        href: '/benchmarks/token-trade-coverage?chain=base&range=30d#history',
        current: true,
        text: '30 days',
      },
      {
        href: '/benchmarks/token-trade-coverage?chain=base&range=90d#history',
        current: false,
        text: '90 days',
      },
    ]);
    const plain = rangeLinks((await page('/benchmarks/network-coverage?kind=dex-index')).html);
    expect(plain.map((l) => [l.href, l.current])).toEqual([
      ['/benchmarks/network-coverage?kind=dex-index#history', true],
      ['/benchmarks/network-coverage?kind=dex-index&range=30d#history', false],
      ['/benchmarks/network-coverage?kind=dex-index&range=90d#history', false],
    ]);
    // Each link answers the page with that range's chart.
    for (const l of plain) {
      const { res, html: target } = await page(l.href.split('#')[0] ?? '');
      expect(res.status, l.href).toBe(200);
      expect(rangeLinks(target).find((x) => x.current)?.href, l.href).toBe(l.href);
    }
  });

  it('a range the chart does not draw is the page’s 400 (an unknown benchmark stays a 404)', async () => {
    for (const [path, status, words] of [
      ['/benchmarks/token-trade-coverage?range=24h', 400, 'Allowed: 7d, 30d, 90d.'],
      ['/benchmarks/token-trade-coverage?range=1y&chain=base', 400, 'Unknown range &quot;1y&quot;'],
      ['/benchmarks/token-trade-coverage?range=7d&range=30d', 400, '&quot;range&quot; is given 2 times'],
      ['/benchmarks/nope?range=1y', 404, 'There is no benchmark'],
    ] as const) {
      const { res, html } = await page(path);
      expect(res.status, path).toBe(status);
      expect(res.headers.get('content-type'), path).toMatch(/^text\/html/);
      expect(html, path).toContain(words);
    }
  });

  it('a page pinned to a frozen day has no live chart; the live page revalidates per range', async () => {
    const { res, html } = await page('/benchmarks/network-coverage?date=2026-11-19');
    expect(res.status).toBe(200);
    expect(html).not.toContain('id="history"');
    const week = await page('/benchmarks/network-coverage');
    const month = await page('/benchmarks/network-coverage?range=30d');
    const etag = week.res.headers.get('etag') ?? '';
    expect(etag).not.toBe(month.res.headers.get('etag'));
    const again = await srv.get('/benchmarks/network-coverage', { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
  });
});
