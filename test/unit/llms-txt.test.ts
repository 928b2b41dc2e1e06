import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CitableIndex } from '../../src/core/api-schemas.ts';
import { llmsTxt } from '../../src/core/llms-txt.ts';
import { METRICS } from '../../src/harness/families/metric-names.ts';
import { NOW } from '../helpers/fixture.ts';
import { type Running, startServer } from '../helpers/server.ts';

/**
 * Issue 25 §3: /llms.txt and /llms-full.txt at the site root (llmstxt.org): Markdown served as
 * text/plain, cached and replayed like /api/llm-context, and saying so when the data is simulated.
 */

const BASE = 'http://bench.test';
const TEXT = 'text/plain; charset=utf-8';

/** Every absolute URL of this site a document names, as a path to request. */
function sitePaths(doc: string): string[] {
  const found = doc.match(/http:\/\/bench\.test[^\s)]*/g) ?? [];
  return [...new Set(found.map((u) => u.slice(BASE.length).replace(/[.,]$/, '').replace(/#.*$/, '') || '/'))];
}

describe('llms.txt and llms-full.txt on measured data', () => {
  let srv: Running;
  beforeAll(async () => {
    srv = await startServer();
  }, 60_000);
  afterAll(() => srv.close());

  it('llms.txt: an H1 with the site name, a summary, then H2 sections of links only', async () => {
    const r = await srv.get('/llms.txt');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe(TEXT);
    const lines = (await r.text()).split('\n');
    expect(lines[0]).toBe('# Citebench');
    expect(lines[1]).toBe('');
    expect(lines[2]).toMatch(/^> Citebench publishes open, reproducible, citable benchmarks/);
    // llmstxt.org: one H1, then no heading but H2 sections.
    const headings = lines.filter((l) => l.startsWith('#'));
    expect(headings[0]).toBe('# Citebench');
    for (const h of headings.slice(1)) expect(h).toMatch(/^## \S/);
    expect(headings.slice(1)).toEqual(['## Benchmarks', '## Docs', '## Optional']);
  });

  it("links every published benchmark's page and JSON, the methodology, the MCP page and OpenAPI; each answers", async () => {
    const doc = await (await srv.get('/llms.txt')).text();
    const index = (await (await srv.get('/api/citable')).json()) as CitableIndex;
    expect(index.benchmarks.length).toBeGreaterThan(1);
    for (const b of index.benchmarks) {
      const item = doc.split('\n').find((l) => l.startsWith(`- [${b.title}](${b.url}): `));
      expect(item, b.slug).toBeDefined();
      expect(item, b.slug).toContain(`(JSON: ${b.api})`);
    }
    for (const link of [
      `[Methodology](${BASE}/methodology)`,
      `[MCP server](${BASE}/mcp)`,
      `[OpenAPI](${BASE}/api/openapi.json)`,
      `[Full context](${BASE}/llms-full.txt)`,
    ])
      expect(doc).toContain(link);
    const paths = sitePaths(doc);
    expect(paths.length).toBeGreaterThan(2 * index.benchmarks.length);
    // The MCP endpoint answers POST only (a GET is its JSON-RPC 405); every other link is a page or JSON.
    for (const p of paths) expect((await srv.get(p)).status, p).toBe(p === '/api/mcp/mcp' ? 405 : 200);
    expect(doc).not.toMatch(/simulated/i);
  });

  it("llms-full.txt is /api/llm-context's bytes and ETag, as plain text", async () => {
    const full = await srv.get('/llms-full.txt');
    const ctx = await srv.get('/api/llm-context');
    expect(full.status).toBe(200);
    expect(full.headers.get('content-type')).toBe(TEXT);
    expect(Buffer.from(await full.arrayBuffer()).equals(Buffer.from(await ctx.arrayBuffer()))).toBe(true);
    expect(full.headers.get('etag')).toBe(ctx.headers.get('etag'));
    expect(full.headers.get('cache-control')).toBe(ctx.headers.get('cache-control'));
  });

  it('both are replayed from stored bytes, revalidate with a 304, and follow new samples', async () => {
    const hot = srv.service.hotPath;
    for (const path of ['/llms.txt', '/llms-full.txt']) {
      const first = await srv.get(path);
      const body = await first.text();
      const etag = first.headers.get('etag') ?? '';
      const before = hot.hits;
      const again = await srv.get(path);
      expect(await again.text(), path).toBe(body);
      expect(hot.hits, `${path} was not replayed`).toBe(before + 1);
      const cond = await srv.get(path, { headers: { 'if-none-match': etag } });
      expect(cond.status, path).toBe(304);
      expect(hot.hits, path).toBe(before + 2);
    }
    const oldTxt = await (await srv.get('/llms.txt')).text();
    const oldFull = await (await srv.get('/llms-full.txt')).text();
    // A new leader of network-coverage: both documents change at once, never replayed stale.
    srv.clock.now = NOW + 1000;
    await srv.service.store.append([
      { metric: METRICS.networksSupported, labels: { provider: 'covalent' }, t: NOW + 10, v: 4242 },
    ]);
    const newTxt = await (await srv.get('/llms.txt')).text();
    const newFull = await (await srv.get('/llms-full.txt')).text();
    expect(newTxt).not.toBe(oldTxt);
    expect(newTxt).toMatch(/Covalent leads with 4,?242/);
    expect(newFull).not.toBe(oldFull);
    expect(newFull).toBe(await (await srv.get('/api/llm-context')).text());
    srv.clock.now = NOW;
  });
});

describe('on simulated data', () => {
  it('both say so at the top', async () => {
    const srv = await startServer({ simulated: true });
    try {
      for (const path of ['/llms.txt', '/llms-full.txt']) {
        const top = (await (await srv.get(path)).text()).split('\n').slice(0, 6).join('\n');
        expect(top, path).toContain('**SIMULATED DEMO DATA.**');
        expect(top, path).toMatch(/Do not cite it as a measurement of any provider/);
      }
    } finally {
      await srv.close();
    }
  }, 60_000);
});

describe('llmsTxt', () => {
  it('keeps link texts and notes on their one line', () => {
    const index: CitableIndex = {
      site: { name: 'Bench', url: 'https://b.example', license: 'CC-BY-4.0', snapshotDate: null },
      count: 1,
      benchmarks: [
        {
          slug: 'x',
          number: '001',
          title: 'Fastest [beta] API',
          category: 'RPCs',
          metric: 'Latency',
          unit: 'ms',
          status: 'live',
          value: 12,
          leader: null,
          sampleSize: 3,
          headline: 'Fastest [beta] API: A leads\nwith 12 ms.',
          url: 'https://b.example/benchmarks/x',
          api: 'https://b.example/api/stat/x',
          ogImage: 'https://b.example/api/og/x',
          asOf: null,
          source: 'https://code.example/x',
          license: 'CC-BY-4.0',
        },
      ],
    };
    const doc = llmsTxt(index);
    expect(doc).toContain(
      '- [Fastest \\[beta\\] API](https://b.example/benchmarks/x): A leads with 12 ms. (JSON: https://b.example/api/stat/x)\n',
    );
    expect(doc.startsWith('# Bench\n\n> Bench publishes')).toBe(true);
    expect(doc).toContain('1 benchmark, each');
  });
});
