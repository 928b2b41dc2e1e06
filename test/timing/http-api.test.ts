import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRICS } from '../../src/harness/families/metric-names.ts';
import { scaledBudget } from '../helpers/calibration.ts';
import { NOW } from '../helpers/fixture.ts';
import { openApiValidator, type ResponseValidator } from '../helpers/openapi.ts';
import { type Running, startServer } from '../helpers/server.ts';

let srv: Running;
let api: ResponseValidator;

async function call(template: string, path: string, init?: RequestInit) {
  const res = await srv.get(path, init);
  const body = await res.text();
  api.check(template, (init?.method ?? 'get').toLowerCase(), res, body);
  return { res, body, json: () => JSON.parse(body) };
}

beforeAll(async () => {
  srv = await startServer();
  const doc = await (await srv.get('/api/openapi.json')).json();
  api = await openApiValidator(doc);
});
afterAll(async () => {
  await srv.close();
});

describe('OpenAPI document', () => {
  it('is OpenAPI 3.1.0, version 1.1.0, and documents every path of the spec', async () => {
    const doc = await (await srv.get('/api/openapi.json')).json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.1.0');
    for (const p of [
      '/api/citable',
      '/api/citable/{date}',
      '/api/stat/{slug}',
      '/api/compare/{a}/{b}',
      '/api/og/{slug}',
      '/api/sparkline/{slug}',
      '/api/cite/{slug}/{format}',
      '/api/llm-context',
      '/api/freshness',
      '/api/search/featured',
      '/api/mcp/mcp',
    ]) {
      expect(doc.paths[p], p).toBeDefined();
    }
    expect(doc.paths['/api/stat/{slug}'].get.operationId).toBe('get_benchmark');
  });
});

describe('JSON endpoints', () => {
  it('GET /api/citable', async () => {
    const { res, json } = await call('/api/citable', '/api/citable');
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('etag')).toMatch(/^"[\w-]+"$/);
    expect(res.headers.get('cache-control')).toContain('max-age');
    const idx = json();
    expect(idx.count).toBe(5);
    expect(idx.benchmarks[0].api).toBe('http://bench.test/api/stat/network-coverage');
    expect(idx.benchmarks[4].api).toBe('http://bench.test/api/stat/token-trade-recall');
  });

  it('GET /api/stat/{slug} with and without filters', async () => {
    const plain = await call('/api/stat/{slug}', '/api/stat/token-trade-coverage');
    expect(plain.res.status).toBe(200);
    expect(plain.json().filters).toBeNull();
    expect(plain.json().cite.ris).toContain('\r\n');
    const filtered = await call('/api/stat/{slug}', '/api/stat/token-trade-coverage?chain=solana');
    expect(filtered.json().filters).toEqual({ chain: 'solana' });
    expect(filtered.json().rankings.length).toBe(3);
    const kind = await call('/api/stat/{slug}', '/api/stat/network-coverage?kind=evm-only');
    expect(kind.json().rankings.map((r: { slug: string }) => r.slug)).toEqual(['sim-dune']);
  });

  it('404s unknown slugs, undeclared dimensions and unknown values; 400s malformed slugs', async () => {
    const cases: [string, number, string][] = [
      ['/api/stat/unknown-bench', 404, 'unknown_benchmark'],
      ['/api/stat/network-coverage?chain=solana', 404, 'unknown_dimension'],
      // region is declared with values from the data: a region no harness ever wrote is 404.
      ['/api/stat/network-coverage?region=eu', 404, 'unknown_dimension_value'],
      ['/api/stat/token-trade-coverage?chain=tron', 404, 'unknown_dimension_value'],
      ['/api/stat/token-trade-coverage?venue=x', 404, 'unknown_dimension'],
      ['/api/stat/Bad_Slug', 400, 'bad_slug'],
    ];
    for (const [path, status, error] of cases) {
      const { res, json } = await call('/api/stat/{slug}', path);
      expect(res.status, path).toBe(status);
      expect(json().error, path).toBe(error);
      expect(json().message.length).toBeGreaterThan(10);
    }
  });

  it('GET /api/citable/{date}: live today, frozen past days with immutable caching, 400s', async () => {
    const today = await call('/api/citable/{date}', '/api/citable/2026-11-20');
    expect(today.res.status).toBe(200);
    expect(today.res.headers.get('x-snapshot-date')).toBe('2026-11-20');
    const past = await call('/api/citable/{date}', '/api/citable/2026-11-18');
    expect(past.res.status).toBe(200);
    expect(past.res.headers.get('cache-control')).toContain('immutable');
    expect(past.json().site.snapshotDate).toBe('2026-11-18');
    const etag = past.res.headers.get('etag') ?? '';
    const cond = await srv.get('/api/citable/2026-11-18', { headers: { 'if-none-match': etag } });
    expect(cond.status).toBe(304);
    for (const bad of ['2026-02-30', '2026-13-01', '20261118', '2027-01-01', '2020-01-01', 'yesterday']) {
      const r = await call('/api/citable/{date}', `/api/citable/${bad}`);
      expect(r.res.status, bad).toBe(400);
      expect(r.json().error).toBe('bad_date');
    }
  });

  it('GET /api/compare/{a}/{b}', async () => {
    const ok = await call('/api/compare/{a}/{b}', '/api/compare/mobula/codex');
    expect(ok.res.status).toBe(200);
    expect(ok.json().comparePageUrl).toBe('http://bench.test/compare/mobula-vs-codex');
    expect((await call('/api/compare/{a}/{b}', '/api/compare/mobula/mobula')).res.status).toBe(400);
    expect((await call('/api/compare/{a}/{b}', '/api/compare/mobula/NOPE')).res.status).toBe(400);
    expect((await call('/api/compare/{a}/{b}', '/api/compare/mobula/nobody')).res.status).toBe(404);
    expect((await call('/api/compare/{a}/{b}', '/api/compare/coinpaprika/bitquery')).res.status).toBe(404);
  });

  it('GET /api/cite/{slug}/{format} with content types and download names', async () => {
    const types: Record<string, string> = {
      bib: 'application/x-bibtex',
      ris: 'application/x-research-info-systems',
      apa: 'text/plain',
      txt: 'text/plain',
    };
    for (const [format, type] of Object.entries(types)) {
      const { res, body } = await call('/api/cite/{slug}/{format}', `/api/cite/network-coverage/${format}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe(`${type}; charset=utf-8`);
      expect(res.headers.get('content-disposition')).toMatch(
        /^attachment; filename="citebench-network-coverage\./,
      );
      expect(body).toContain('http://bench.test/benchmarks/network-coverage');
    }
    expect((await call('/api/cite/{slug}/{format}', '/api/cite/network-coverage/pdf')).res.status).toBe(400);
    expect((await call('/api/cite/{slug}/{format}', '/api/cite/BAD!/bib')).res.status).toBe(400);
    expect((await call('/api/cite/{slug}/{format}', '/api/cite/nope/bib')).res.status).toBe(404);
  });

  it('GET /api/llm-context, /api/freshness, /api/search/featured', async () => {
    const md = await call('/api/llm-context', '/api/llm-context');
    expect(md.res.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(md.body).toContain('## Onchain data API with most networks supported');
    expect(md.body).toContain("## Most complete EVM trade data API against the chain's own swap logs");
    expect(md.body).toContain('**Methodology:**');
    const fresh = await call('/api/freshness', '/api/freshness');
    const stat = await (await srv.get('/api/stat/network-coverage')).json();
    expect(fresh.json().freshness['network-coverage']).toBe(Date.parse(stat.asOf));
    expect(fresh.json().now).toBe(NOW);
    const featured = await call('/api/search/featured', '/api/search/featured');
    expect(featured.json().featured.map((c: { slug: string }) => c.slug)).toEqual([
      'network-coverage',
      'token-trade-coverage',
      'token-trade-recall',
    ]);
  });
});

describe('images through the real publication', () => {
  it('GET /api/og/{slug}: a 1200×630 PNG; GET /api/sparkline/{slug}: an SVG of the leader series', async () => {
    const og = await srv.get('/api/og/network-coverage');
    expect(og.status).toBe(200);
    expect(og.headers.get('content-type')).toBe('image/png');
    expect(og.headers.get('access-control-allow-origin')).toBe('*');
    const png = Buffer.from(await og.arrayBuffer());
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1200, 630]);
    const svg = await call(
      '/api/sparkline/{slug}',
      '/api/sparkline/token-trade-coverage?w=300&h=80&theme=dark',
    );
    expect(svg.res.status).toBe(200);
    expect(svg.body).toContain('viewBox="0 0 300 80"');
    expect(svg.body).toContain('Mobula');
    expect(
      (await call('/api/sparkline/{slug}', '/api/sparkline/token-trade-coverage?w=abc')).res.status,
    ).toBe(400);
    expect((await call('/api/og/{slug}', '/api/og/unknown')).res.status).toBe(404);
    expect((await call('/api/sparkline/{slug}', '/api/sparkline/unknown')).res.status).toBe(404);
  });
});

describe('HTTP behaviour', () => {
  it('answers 304 for a matching ETag and HEAD without a body', async () => {
    const first = await srv.get('/api/stat/network-coverage');
    const etag = first.headers.get('etag') ?? '';
    await first.arrayBuffer();
    const again = await srv.get('/api/stat/network-coverage', {
      headers: { 'if-none-match': `W/${etag}, "zzz"` },
    });
    expect(again.status).toBe(304);
    expect(again.headers.get('access-control-allow-origin')).toBe('*');
    const head = await srv.get('/api/stat/network-coverage', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect(head.headers.get('etag')).toBe(etag);
  });

  it('JSON 404 for unknown routes, 405 for other methods, CORS preflight', async () => {
    const nf = await srv.get('/api/nothing-here');
    expect(nf.status).toBe(404);
    expect(await nf.json()).toMatchObject({ error: 'not_found' });
    const post = await srv.get('/api/citable', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toContain('GET');
    const pre = await srv.get('/api/stat/network-coverage', { method: 'OPTIONS' });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-headers')).toContain('If-None-Match');
  });

  it('never answers 5xx to hostile input', async () => {
    const paths = [
      '/api/stat/%E0%A4%A',
      '/api/stat/network-coverage?kind=%00',
      '/api/stat/network-coverage?kind=',
      `/api/stat/${'a'.repeat(5000)}`,
      '/api/stat/token-trade-coverage?chain=solana&chain=base',
      '/api/citable/%20',
      '/api/citable/9999-99-99',
      '/api/compare/a/b/c',
      '/api/compare/%2e%2e/x',
      '/api/cite/network-coverage/%ff',
      '/api/og/../../etc/passwd',
      '/api/stat/network-coverage?__proto__=1&constructor=x',
      '/healthz?x=%',
    ];
    for (const p of paths) {
      const res = await srv.get(p);
      await res.arrayBuffer();
      expect(res.status, p).toBeLessThan(500);
    }
  });

  it('shows new samples in /api/stat within 1 s of being written', async () => {
    srv.clock.now = NOW + 1000;
    const written = performance.now();
    await srv.service.store.append([
      { metric: METRICS.networksSupported, labels: { provider: 'covalent' }, t: NOW + 10, v: 4242 },
    ]);
    const stat = await (await srv.get('/api/stat/network-coverage')).json();
    expect(stat.leader.slug).toBe('covalent');
    // The 1 s is the reference machine's (quiet, the append and the answer take 5–10 ms), × the
    // calibration's factor: an answer kept past a change, or a recompute on a timer, fails it.
    expect(performance.now() - written).toBeLessThan(scaledBudget(1000));
    srv.clock.now = NOW;
  });

  it('healthz and metrics', async () => {
    const h = await srv.get('/healthz');
    expect(await h.json()).toMatchObject({ status: 'ok' });
    const m = await srv.get('/metrics');
    expect(await m.text()).toContain('process_cpu_seconds_total');
  });
});

describe('store failures', () => {
  it('answers 503 with Retry-After when the store is unreadable', async () => {
    const broken = await startServer({ samples: [] });
    await broken.service.store.close();
    for (const path of ['/api/llm-context', '/api/citable', '/api/stat/network-coverage']) {
      const res = await broken.get(path);
      expect(res.status, path).toBe(503);
      expect(res.headers.get('retry-after')).toBe('30');
      expect((await res.json()).error).toBe('benchmarks_unavailable');
    }
    await broken.close();
  });
});

describe('audit: the raw measurements behind a row', () => {
  it('lists the networks a listing counted, linked from each ranking row', async () => {
    const nowSrv = await startServer({ samples: [] });
    try {
      const t = NOW - 3_600_000;
      await nowSrv.service.store.append([
        { metric: METRICS.networksSupported, labels: { provider: 'codex' }, t, v: 2 },
        {
          metric: METRICS.networkListed,
          labels: { provider: 'codex', chain_id: '1', name: 'Ethereum' },
          t,
          v: 1,
        },
        {
          metric: METRICS.networkListed,
          labels: { provider: 'codex', chain_id: '8453', name: 'Base' },
          t,
          v: 1,
        },
        // An older listing must not leak into the latest one.
        {
          metric: METRICS.networkListed,
          labels: { provider: 'codex', chain_id: '56', name: 'BNB' },
          t: t - 1,
          v: 1,
        },
      ]);
      const stat = await (await nowSrv.get('/api/stat/network-coverage')).json();
      expect(stat.rankings[0].audit).toBe('http://bench.test/api/audit/network-coverage/codex');
      const res = await nowSrv.get('/api/audit/network-coverage/codex');
      const body = await res.text();
      api.check('/api/audit/{slug}/{provider}', 'get', res, body);
      const audit = JSON.parse(body);
      // Samples written before CAIP-2 ids (provider key as chain_id, no raw_id) show the key as raw id.
      expect(audit.networks).toEqual([
        { chainId: '8453', caip2: null, name: 'Base', rawId: '8453' },
        { chainId: '1', caip2: null, name: 'Ethereum', rawId: '1' },
      ]);
      expect(audit.networks.length).toBe(stat.rankings[0].ms.p50);
      expect(audit.asOf).toBe(new Date(t).toISOString());
    } finally {
      await nowSrv.close();
    }
  });

  it('shows per-token counts, union and capture of the latest trade cycle', async () => {
    const res = await call('/api/audit/{slug}/{provider}', '/api/audit/token-trade-coverage/codex');
    expect(res.res.status).toBe(200);
    const audit = res.json();
    expect(audit.cells.length).toBe(8); // no Stellar cells for Codex
    for (const c of audit.cells) {
      if (c.count !== null && c.unionCount) expect(c.count).toBeLessThanOrEqual(c.unionCount);
      expect(c.capturePct).toBeGreaterThanOrEqual(0);
    }
    expect(
      (await call('/api/audit/{slug}/{provider}', '/api/audit/token-trade-coverage/coinpaprika')).res.status,
    ).toBe(404);
    expect((await call('/api/audit/{slug}/{provider}', '/api/audit/nope/codex')).res.status).toBe(404);
    expect((await call('/api/audit/{slug}/{provider}', '/api/audit/network-coverage/Bad!')).res.status).toBe(
      400,
    );
  });

  it("a window row links ?window=24h with the view's filters, and that answer reproduces the row", async () => {
    const stat = (await call('/api/stat/{slug}', '/api/stat/token-trade-coverage?chain=solana')).json();
    expect(stat.rankings.length).toBeGreaterThan(1);
    for (const row of stat.rankings) {
      expect(row.audit).toBe(
        `http://bench.test/api/audit/token-trade-coverage/${row.slug}?window=24h&chain=solana`,
      );
      const audit = (
        await call('/api/audit/{slug}/{provider}', new URL(row.audit).pathname + new URL(row.audit).search)
      ).json();
      expect(audit).toMatchObject({ window: '24h', filters: { chain: 'solana' } });
      expect(audit.entries.every((e: { chain: string }) => e.chain === 'solana')).toBe(true);
      const comparable = audit.entries.filter((e: { comparable: boolean }) => e.comparable);
      const ok = audit.entries.filter((e: { probeOk: boolean }) => e.probeOk);
      expect([comparable.length, Number(((ok.length / audit.entries.length) * 100).toPrecision(6))]).toEqual([
        row.sampleSize,
        row.successRate,
      ]);
    }
  });

  it('refuses a window audit it cannot give, with a clear error', async () => {
    const status = async (path: string) => (await call('/api/audit/{slug}/{provider}', path)).res.status;
    expect(await status('/api/audit/token-trade-coverage/codex?window=7d')).toBe(400);
    expect(await status('/api/audit/token-trade-coverage/codex?chain=solana')).toBe(400);
    expect(await status('/api/audit/network-coverage/codex?window=24h')).toBe(400);
    expect(await status('/api/audit/token-trade-coverage/codex?window=24h&chain=mars')).toBe(404);
    expect(await status('/api/audit/token-trade-coverage/codex?window=24h&window=24h')).toBe(400);
    expect(await status('/api/audit/token-trade-coverage/codex?window=24h')).toBe(200);
  });
});
