import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRICS } from '../../src/harness/families/metric-names.ts';
import { GET_PATHS } from '../../src/http/app.ts';
import { datasetManifestRoute } from '../../src/http/data-declarations.ts';
import { HotPath, offerHot } from '../../src/http/hot-path.ts';
import { routingPath } from '../../src/http/route-kit.ts';
import { SCRIPT_HREF, STYLE_HREF } from '../../src/pages/html.ts';
import { H, NOW } from '../helpers/fixture.ts';
import { type Running, startServer } from '../helpers/server.ts';

interface Raw {
  readonly status: number;
  /** `name: value` lines, sorted, without Date (the clock's) and connection management. */
  readonly headers: readonly string[];
  readonly body: Buffer;
}

const PER_CONNECTION = new Set(['date', 'connection', 'keep-alive']);

function raw(
  base: string,
  path: string,
  method = 'GET',
  headers: Readonly<Record<string, string | readonly string[]>> = {},
): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${base}${path}`,
      { method, headers: headers as Record<string, string | string[]>, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const lines: string[] = [];
          for (let i = 0; i < res.rawHeaders.length; i += 2) {
            const name = (res.rawHeaders[i] as string).toLowerCase();
            if (!PER_CONNECTION.has(name)) lines.push(`${name}: ${res.rawHeaders[i + 1]}`);
          }
          resolve({ status: res.statusCode ?? 0, headers: lines.sort(), body: Buffer.concat(chunks) });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const CLOSED_DAY = '2026-11-19';
const TODAY = '2026-11-20';

/** One concrete URL per GET route that answers with stored bytes (the hot path's whole domain). */
const HOT_URLS: Record<string, readonly string[]> = {
  '/api/openapi.json': ['/api/openapi.json'],
  '/api/citable': ['/api/citable'],
  '/api/citable/:date': [`/api/citable/${CLOSED_DAY}`, `/api/citable/${TODAY}`],
  '/api/stat/:slug': [
    '/api/stat/network-coverage',
    '/api/stat/token-trade-coverage',
    '/api/stat/token-trade-coverage?chain=solana',
    `/api/stat/network-coverage?date=${CLOSED_DAY}`,
  ],
  '/api/compare/:a/:b': ['/api/compare/mobula/codex'],
  '/api/audit/:slug/:provider': [
    '/api/audit/token-trade-coverage/codex',
    `/api/audit/network-coverage/mobula?date=${CLOSED_DAY}`,
  ],
  '/api/cite/:slug/:format': [
    '/api/cite/network-coverage/bib',
    '/api/cite/token-trade-coverage/csl',
    `/api/cite/network-coverage/ris?date=${CLOSED_DAY}`,
  ],
  '/api/llm-context': ['/api/llm-context'],
  '/llms.txt': ['/llms.txt'],
  '/llms-full.txt': ['/llms-full.txt'],
  // Replayable within one millisecond of the clock (the tests' clock stands still).
  '/api/freshness': ['/api/freshness'],
  '/api/search/featured': ['/api/search/featured'],
  '/api/series/:slug': ['/api/series/token-trade-coverage', '/api/series/network-coverage?range=7d'],
  '/api/dataset': ['/api/dataset'],
  [routingPath(datasetManifestRoute.path)]: [`/api/dataset/${CLOSED_DAY}.json`],
  '/api/dataset/:file': [`/api/dataset/${CLOSED_DAY}.csv`, `/api/dataset/${TODAY}.parquet`],
  '/api/og/:slug': ['/api/og/network-coverage', `/api/og/token-trade-coverage?date=${CLOSED_DAY}`],
  '/api/sparkline/:slug': [
    '/api/sparkline/network-coverage',
    '/api/sparkline/token-trade-coverage?w=300&h=60',
  ],
  '/api/chart/:slug': [
    '/api/chart/token-trade-coverage',
    '/api/chart/network-coverage?range=30d&kind=dex-index',
  ],
  '/api/badge/:slug/:provider': [
    '/api/badge/network-coverage/mobula',
    '/api/badge/token-trade-coverage/codex',
  ],
  '/': ['/'],
  '/benchmarks/:slug': [
    '/benchmarks/token-trade-coverage',
    `/benchmarks/network-coverage?date=${CLOSED_DAY}`,
  ],
  '/compare/:pair': ['/compare/mobula-vs-codex'],
  '/api/providers': ['/api/providers'],
  '/api/providers/:slug': ['/api/providers/mobula', `/api/providers/codex?date=${CLOSED_DAY}`],
  '/providers/:slug': ['/providers/mobula', `/providers/codex?date=${CLOSED_DAY}`],
  '/methodology': ['/methodology'],
  '/favicon.ico': ['/favicon.ico'],
  '/assets/:file': [STYLE_HREF, SCRIPT_HREF],
};

/** Routes whose answers are computed per request or are not stored bytes: always the router. */
const ROUTED = [
  '/healthz',
  '/metrics',
  '/mcp',
  '/days',
  '/benchmarks/:slug/days',
  '/robots.txt',
  '/sitemap.xml',
  '/benchmarks',
  '/providers',
];

const ALL_URLS = Object.values(HOT_URLS).flat();

describe('hot path: replayed answers are byte-identical to the router', () => {
  let srv: Running;
  let hot: HotPath;

  /** The router's answer (hot path off), then the replayed one; both must match exactly. */
  async function both(
    path: string,
    method = 'GET',
    headers: Readonly<Record<string, string | readonly string[]>> = {},
  ) {
    hot.enabled = false;
    const routed = await raw(srv.url, path, method, headers);
    hot.enabled = true;
    const before = hot.hits;
    const replayed = await raw(srv.url, path, method, headers);
    return { routed, replayed, fromHot: hot.hits > before };
  }

  beforeAll(async () => {
    srv = await startServer();
    hot = srv.service.hotPath;
  }, 60_000);
  afterAll(() => srv.close());

  it('covers every GET route: each is either replayed or listed as always routed', () => {
    const covered = new Set([...Object.keys(HOT_URLS), ...ROUTED]);
    expect(GET_PATHS.filter((p) => !covered.has(p))).toEqual([]);
  });

  it('GET: same status, headers and body, and the second answer came from stored bytes', async () => {
    for (const path of ALL_URLS) {
      const { routed, replayed, fromHot } = await both(path);
      expect(routed.status, path).toBe(200);
      expect(fromHot, `${path} was not replayed`).toBe(true);
      expect(replayed.headers, path).toEqual(routed.headers);
      expect(replayed.body.equals(routed.body), path).toBe(true);
    }
  }, 60_000);

  it('If-None-Match: the same 304 (and a 200 for a stale tag), HEAD and cross-origin GET', async () => {
    for (const path of ALL_URLS) {
      const first = await raw(srv.url, path);
      const etag = first.headers.find((h) => h.startsWith('etag: '))?.slice(6) ?? '';
      expect(etag, path).toMatch(/^"/);
      for (const [method, headers] of [
        ['GET', { 'if-none-match': etag }],
        ['GET', { 'if-none-match': `W/${etag}, "other"` }],
        ['GET', { 'if-none-match': '"stale"' }],
        // Two header lines: both doors read them as one list.
        ['GET', { 'if-none-match': ['"stale"', etag] }],
        ['HEAD', {}],
        ['HEAD', { 'if-none-match': etag }],
        ['GET', { origin: 'https://example.org' }],
        ['GET', { origin: 'https://example.org', 'if-none-match': etag }],
      ] as const) {
        const label = `${method} ${path} ${JSON.stringify(headers)}`;
        const { routed, replayed, fromHot } = await both(path, method, headers);
        expect(fromHot, label).toBe(true);
        expect(replayed.status, label).toBe(routed.status);
        expect(replayed.headers, label).toEqual(routed.headers);
        expect(replayed.body.equals(routed.body), label).toBe(true);
      }
      const cond = await raw(srv.url, path, 'GET', { 'if-none-match': etag });
      expect(cond.status, path).toBe(304);
      expect(cond.body.length, path).toBe(0);
    }
  }, 120_000);

  it('never replays errors, per-request answers or other methods', async () => {
    const before = hot.hits;
    for (const path of [
      '/healthz',
      '/api/stat/nope',
      '/api/stat/network-coverage?chain=solana&chain=base',
      `/api/citable/2027-01-01`,
      '/no/such/page',
    ]) {
      await raw(srv.url, path);
      await raw(srv.url, path);
    }
    const post = await raw(srv.url, '/api/citable', 'POST');
    expect(post.status).toBe(405);
    const options = await raw(srv.url, '/api/citable', 'OPTIONS');
    expect(options.status).toBe(204);
    expect(hot.hits).toBe(before);
  });

  it('a GET with a body is refused by the router (413), not replayed', async () => {
    await raw(srv.url, '/api/citable');
    const r = await raw(srv.url, '/api/citable', 'GET', { 'content-length': String(64 * 1024) });
    expect(r.status).toBe(413);
  });

  it('a view invalidated by a new sample is never replayed stale', async () => {
    for (const path of ALL_URLS) await raw(srv.url, path);
    const statBefore = await raw(srv.url, '/api/stat/network-coverage');
    // A new leader: every view of network-coverage (and every aggregate) changes.
    srv.clock.now = NOW + 1000;
    await srv.service.store.append([
      { metric: METRICS.networksSupported, labels: { provider: 'covalent' }, t: NOW + 10, v: 4242 },
    ]);
    const statAfter = await raw(srv.url, '/api/stat/network-coverage');
    expect(statAfter.body.equals(statBefore.body)).toBe(false);
    expect(JSON.parse(statAfter.body.toString()).leader.slug).toBe('covalent');
    // Every answer replayed after the write equals what the router computes now.
    for (const path of ALL_URLS) {
      const { routed, replayed } = await both(path);
      expect(replayed.headers, path).toEqual(routed.headers);
      expect(replayed.body.equals(routed.body), path).toBe(true);
    }
    srv.clock.now = NOW;
  }, 60_000);

  it('live views leave the hot path when their evaluation point moves; day changes drop everything', async () => {
    // Freshness stands for one millisecond: the next one is computed anew.
    await raw(srv.url, '/api/freshness');
    const sameMs = hot.hits;
    await raw(srv.url, '/api/freshness');
    expect(hot.hits).toBe(sameMs + 1);
    srv.clock.now = NOW + 1;
    const nextMs = await raw(srv.url, '/api/freshness');
    expect(hot.hits).toBe(sameMs + 1);
    expect(JSON.parse(nextMs.body.toString()).now).toBe(NOW + 1);
    srv.clock.now = NOW;
    const stat = await raw(srv.url, '/api/stat/token-trade-coverage');
    // A live view stands until its evaluation point moves (src/core/eval-point.ts): a minute on,
    // inside the same 20-minute step, its bytes are replayed; at the next step they are not.
    srv.clock.now = NOW + 61_000;
    let hitsBefore = hot.hits;
    await raw(srv.url, '/api/stat/token-trade-coverage');
    expect(hot.hits).toBe(hitsBefore + 1);
    srv.clock.now = NOW + 20 * 60_000;
    hitsBefore = hot.hits;
    const later = await raw(srv.url, '/api/stat/token-trade-coverage');
    expect(hot.hits).toBe(hitsBefore);
    expect(later.status).toBe(200);
    expect(stat.status).toBe(200);
    // Today's snapshot is the live index; after 00:00 UTC the same date is a closed, unfrozen day.
    await raw(srv.url, `/api/citable/${TODAY}`);
    await raw(srv.url, `/api/citable/${TODAY}`);
    srv.clock.now = NOW + 12 * H + 60_000;
    const afterMidnight = await raw(srv.url, `/api/citable/${TODAY}`);
    expect(afterMidnight.status).toBe(404);
    srv.clock.now = NOW;
  });
});

describe('HotPath', () => {
  it('does not store an answer computed across an invalidation', () => {
    const h = new HotPath(() => NOW);
    const res = offerHot(new Response('x'), {
      etag: '"x"',
      body: 'x',
      headers200: {},
      headers304: {},
      source: { valid: () => true, group: 'network-coverage' },
    });
    const epoch = h.begin();
    h.invalidate(new Set(['token-trade-coverage']));
    h.fill('/api/citable', res, epoch);
    expect(h.size).toBe(0);
    h.fill('/api/citable', res, h.begin());
    expect(h.size).toBe(1);
    h.invalidate(new Set(['network-coverage']));
    expect(h.size).toBe(0);
  });
});
