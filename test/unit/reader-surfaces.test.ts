import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Stat } from '../../src/core/api-schemas.ts';
import { citeAs } from '../../src/core/citations.ts';
import { type Running, startServer } from '../helpers/server.ts';

/**
 * Numbers say what they are, and the things a reader of such a site reaches for exist: dated
 * citations without a retrieval date, the simulated marker on everything shown alone, a provider
 * badge, robots.txt and a sitemap.
 */

const CLOSED = '2026-11-19';
const NET = 'network-coverage';

describe('citations of a frozen day carry no retrieval date; live ones keep it', () => {
  const base = {
    siteName: 'Citebench',
    slug: NET,
    title: 'T',
    url: 'http://b/p',
    retrieved: Date.UTC(2026, 10, 19, 23),
  };

  it('in every format', () => {
    for (const f of ['bib', 'ris', 'apa', 'txt', 'csl'] as const) {
      const live = citeAs(f, base);
      const frozen = citeAs(f, { ...base, frozen: true });
      expect(live, f).toMatch(/Retrieved|Y2 {2}- |accessed/);
      expect(frozen, f).not.toMatch(/Retrieved|urldate|Y2 {2}- |accessed/);
      expect(frozen, f).toMatch(/2026[-/]11[-/]19|2026, November 19|\[2026, 11, 19\]|2026,\s*11,\s*19/);
    }
  });
});

describe('a simulated service says so wherever a value is shown alone', () => {
  let sim: Running;
  let measured: Running;
  beforeAll(async () => {
    [sim, measured] = await Promise.all([startServer({ simulated: true }), startServer()]);
  });
  afterAll(async () => {
    await Promise.all([sim.close(), measured.close()]);
  });
  const json = async <T>(s: Running, path: string) => (await (await s.get(path)).json()) as T;

  it('headline, <title> and meta descriptions, featured, providers, the dataset index and manifest', async () => {
    const stat = await json<Stat>(sim, `/api/stat/${NET}`);
    expect(stat.headline).toMatch(/\(simulated demo data\)$/);
    expect((await json<Stat>(measured, `/api/stat/${NET}`)).headline).not.toMatch(/simulated/i);
    const page = await (await sim.get(`/benchmarks/${NET}`)).text();
    expect(/<title>([^<]*)<\/title>/.exec(page)?.[1]).toMatch(/simulated/i);
    expect(/<meta name="description" content="([^"]*)"/.exec(page)?.[1]).toMatch(/simulated/i);
    expect(/<meta property="og:description" content="([^"]*)"/.exec(page)?.[1]).toMatch(/simulated/i);
    const home = await (await sim.get('/')).text();
    expect(/<title>([^<]*)<\/title>/.exec(home)?.[1]).toMatch(/simulated/i);
    for (const path of [
      '/api/search/featured',
      '/api/providers',
      '/api/dataset',
      `/api/dataset/${CLOSED}.json`,
    ]) {
      expect((await json<{ simulated?: boolean }>(sim, path)).simulated, path).toBe(true);
      expect((await json<{ simulated?: boolean }>(measured, path)).simulated, path).toBeUndefined();
    }
  });

  it("a dated citation names the day it is a snapshot of and no retrieval; today's keeps Retrieved", async () => {
    const dated = await (await sim.get(`/api/cite/${NET}/bib?date=${CLOSED}`)).text();
    expect(dated).toContain(`Frozen snapshot of ${CLOSED}`);
    expect(dated).not.toMatch(/Retrieved|urldate/);
    expect(await (await sim.get(`/api/cite/${NET}/bib`)).text()).toMatch(/Retrieved 2026-11-20/);
    const frozen = await json<Stat>(sim, `/api/stat/${NET}?date=${CLOSED}`);
    expect(frozen.cite.plain).toContain(`Frozen snapshot of ${CLOSED}`);
    expect(frozen.cite.plain).not.toContain('Retrieved');
  });

  it('GET /api/badge/{slug}/{provider} is an SVG naming the value, the rank and the simulated marker', async () => {
    const stat = await json<Stat>(sim, `/api/stat/${NET}`);
    const row = stat.rankings.find((r) => r.rank === 1);
    expect(row).toBeDefined();
    const res = await sim.get(`/api/badge/${NET}/${row?.slug}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    const svg = await res.text();
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"[^>]*>/);
    expect(svg.trim().endsWith('</svg>')).toBe(true);
    expect(svg).toContain(`${row?.name}: ${row?.ms.p50}`);
    expect(svg).toContain('#1');
    expect(svg).toContain('(simulated)');
    const plain = await (await measured.get(`/api/badge/${NET}/${row?.slug}`)).text();
    expect(plain).not.toContain('simulated');
    expect((await sim.get(`/api/badge/${NET}/nope`)).status).toBe(404);
    expect((await sim.get('/api/badge/nope/mobula')).status).toBe(404);
  });

  it('/methodology has a table of contents whose every entry names a section of the page', async () => {
    const html = await (await sim.get('/methodology')).text();
    const toc = /<nav class="toc"[^>]*>(.*?)<\/nav>/s.exec(html)?.[1] ?? '';
    const targets = [...toc.matchAll(/href="#([^"]+)"/g)].map((m) => m[1] ?? '');
    expect(targets.length).toBeGreaterThan(8);
    for (const id of targets) expect(html, id).toContain(`id="${id}"`);
    expect(targets).toContain(NET);
  });

  it('/benchmarks and /providers index every benchmark and every measured provider, with their links', async () => {
    const index = await (await sim.get('/benchmarks')).text();
    const citable = await json<{ benchmarks: { slug: string }[] }>(sim, '/api/citable');
    for (const b of citable.benchmarks) expect(index, b.slug).toContain(`href="/benchmarks/${b.slug}"`);
    const providers = await (await sim.get('/providers')).text();
    const listing = await json<{ providers: { slug: string; benchmarks: number }[] }>(sim, '/api/providers');
    const measured = listing.providers.filter((p) => p.benchmarks > 0);
    expect(measured.length).toBeGreaterThan(3);
    for (const p of measured) expect(providers, p.slug).toContain(`href="/providers/${p.slug}"`);
  });

  it('robots.txt names the sitemap, and the sitemap lists every page, each answering 200', async () => {
    const robots = await (await sim.get('/robots.txt')).text();
    expect(robots).toContain('Sitemap: http://bench.test/sitemap.xml');
    const xml = await (await sim.get('/sitemap.xml')).text();
    const locs = [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1] ?? '');
    expect(locs).toContain(`http://bench.test/benchmarks/${NET}`);
    expect(locs).toContain('http://bench.test/providers/mobula');
    expect(locs).toContain('http://bench.test/days');
    for (const loc of locs) {
      const path = loc.replace('http://bench.test', '');
      expect((await sim.get(path)).status, path).toBe(200);
    }
  });
});
