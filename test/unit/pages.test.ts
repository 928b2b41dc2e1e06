import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Running, startServer } from '../helpers/server.ts';

let srv: Running;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(() => srv.close());

const path = (u: string) => {
  const url = new URL(u);
  return `${url.pathname}${url.search}`;
};

describe('HTML pages behind every published URL', () => {
  it('serves the pageUrl of every benchmark and filtered view, with the headline and quote', async () => {
    for (const q of [
      '/api/stat/network-coverage',
      '/api/stat/network-coverage?kind=dex-index',
      '/api/stat/token-trade-coverage?chain=stellar',
    ]) {
      const stat = await (await srv.get(q)).json();
      const res = await srv.get(path(stat.pageUrl));
      expect(res.status, stat.pageUrl).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('etag')).toMatch(/^"/);
      const html = await res.text();
      expect(html).toContain(`<link rel="canonical" href="${stat.pageUrl.replaceAll('&', '&amp;')}">`);
      expect(html).toContain(
        stat.quote.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll("'", '&#39;'),
      );
      expect(html).toContain(`<meta property="og:image" content="${stat.ogImage}">`);
      // In-site links are root-relative, so they resolve behind any BASE_URL (issue 15).
      for (const r of stat.rankings) expect(html).toContain(new URL(r.audit).pathname);
      // No third-party asset: the only script and stylesheet are the site's own content-hashed files.
      const external = [...html.matchAll(/<script src="([^"]*)"|<link rel="stylesheet" href="([^"]*)"/g)];
      expect(external.map((m) => m[1] ?? m[2])).toEqual([
        expect.stringMatching(/^\/assets\/site\.[0-9a-f]{12}\.css$/),
        expect.stringMatching(/^\/assets\/site\.[0-9a-f]{12}\.js$/),
      ]);
    }
  });

  it('serves the comparePageUrl and the home page', async () => {
    const cmp = await (await srv.get('/api/compare/mobula/codex')).json();
    const res = await srv.get(path(cmp.comparePageUrl));
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('Mobula vs Codex');
    expect(html).toContain(`Mobula ${cmp.totalWins.a} · Codex ${cmp.totalWins.b}`);
    const home = await srv.get('/');
    expect(home.status).toBe(200);
    expect(await home.text()).toContain('/benchmarks/token-trade-coverage');
  });

  it('answers unknown pages with an HTML 404 and bad comparisons with 400, never 5xx', async () => {
    const cases: [string, number][] = [
      ['/benchmarks/nope', 404],
      ['/benchmarks/network-coverage?kind=oracle', 404],
      ['/benchmarks/%3Cscript%3E', 404],
      ['/compare/mobula', 400],
      ['/compare/mobula-vs-mobula', 400],
      ['/compare/mobula-vs-nobody', 404],
      ['/providers/nobody', 404],
      ['/providers/%3Cscript%3E', 404],
      ['/providers/mobula?date=2026-13-01', 400],
    ];
    for (const [p, status] of cases) {
      const res = await srv.get(p);
      const html = await res.text();
      expect(res.status, p).toBe(status);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(html).not.toContain('<script>alert');
      expect(html).not.toMatch(/<h1>[^<]*<script/);
    }
  });
});

// Issue 28, items 15 and 18: what "as of" means, and the small things a page said wrong.
describe('pages say what the data says', () => {
  it('/methodology has a section id="as-of" saying what a headline\'s "as of <time>" is', async () => {
    const html = await (await srv.get('/methodology')).text();
    const section = /<section id="as-of"[^>]*>([\s\S]*?)<\/section>/.exec(html)?.[1] ?? '';
    expect(section).toContain('as of &lt;time&gt;');
    expect(section).toContain('own sample');
    expect(section).toContain('p50 over 24h');
  });

  it('shows a kind as its label, never its slug', async () => {
    const html = await (await srv.get('/benchmarks/network-coverage?kind=asset-registry')).text();
    const rankings = html.slice(
      html.indexOf('<h2>Rankings'),
      html.indexOf('</table>', html.indexOf('<h2>Rankings')),
    );
    expect(rankings).toContain('Asset registry');
    expect(rankings).not.toContain('asset-registry');
  });

  it('links the CSL citation, live and pinned to a frozen day', async () => {
    const live = await (await srv.get('/benchmarks/network-coverage')).text();
    expect(live).toContain('href="/api/cite/network-coverage/csl"');
    expect((await srv.get('/api/cite/network-coverage/csl')).status).toBe(200);
    const day = (await (await srv.get('/api/citable/2026-11-19')).json()).site.snapshotDate;
    const frozen = await (await srv.get(`/benchmarks/network-coverage?date=${day}`)).text();
    expect(frozen).toContain(`href="/api/cite/network-coverage/csl?date=${day}"`);
  });

  it('says nothing like "updated never measured" for a draft', async () => {
    const empty = await startServer({ samples: [] });
    try {
      const html = await (await empty.get('/')).text();
      expect(html).toContain('Waiting for its first measurement');
      expect(html).not.toMatch(/updated\s*(<[^>]*>\s*)*never measured/);
      expect(html).not.toContain('never measured');
    } finally {
      await empty.close();
    }
  });
});

describe("the pages' stylesheet and script are files cached forever", () => {
  it('every page links them by a content-hashed name and carries neither inline', async () => {
    for (const path of [
      '/',
      '/benchmarks/token-trade-coverage',
      '/compare/mobula-vs-codex',
      '/providers/mobula',
      '/methodology',
    ]) {
      const html = await (await srv.get(path)).text();
      expect(html, path).not.toMatch(/<style>/);
      expect(html, path).not.toMatch(/<script>/);
      const css = /<link rel="stylesheet" href="(\/assets\/site\.[0-9a-f]{12}\.css)">/.exec(html)?.[1];
      const js = /<script src="(\/assets\/site\.[0-9a-f]{12}\.js)"><\/script>/.exec(html)?.[1];
      expect(css, path).toBeDefined();
      expect(js, path).toBeDefined();
      for (const [href, type] of [
        [css, 'text/css'],
        [js, 'text/javascript'],
      ] as const) {
        const res = await srv.get(href ?? '');
        expect(res.status, href).toBe(200);
        expect(res.headers.get('content-type')).toContain(type);
        expect(res.headers.get('cache-control')).toContain('immutable');
        expect((await res.text()).length).toBeGreaterThan(1000);
      }
    }
    const stale = await srv.get('/assets/site.000000000000.css');
    expect(stale.status).toBe(404);
    await stale.text();
  });
});
