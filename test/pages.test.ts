import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Running, startServer } from './helpers/server.ts';

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
      expect(html).not.toMatch(/<script src=|<link rel="stylesheet"/);
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
