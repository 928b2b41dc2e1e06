import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCRIPT_HREF, STYLE_HREF } from '../../src/pages/html.ts';
import { ROUTE_TEMPLATES } from '../helpers/route-templates.ts';
import { type Running, startServer } from '../helpers/server.ts';

/**
 * HEAD sends GET's headers with GET's exact Content-Length, on every route and every status
 * (issue 28, item 6), and no GET answer is sent chunked: each route template is walked with
 * answers of each kind it gives (200, 304, 308, 400, 404, 405, HTML and JSON errors).
 */

interface Raw {
  readonly status: number;
  /** `name: value` lines, sorted, without Date and connection management. */
  readonly headers: readonly string[];
  readonly length: string | undefined;
  readonly chunked: boolean;
  readonly body: Buffer;
}

const PER_CONNECTION = new Set(['date', 'connection', 'keep-alive']);

function raw(base: string, path: string, method: string, headers: Record<string, string>): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const lines: string[] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          const name = (res.rawHeaders[i] as string).toLowerCase();
          if (!PER_CONNECTION.has(name)) lines.push(`${name}: ${res.rawHeaders[i + 1]}`);
        }
        resolve({
          status: res.statusCode ?? 0,
          headers: lines.sort(),
          length: res.headers['content-length'],
          chunked: res.headers['transfer-encoding'] !== undefined,
          body: Buffer.concat(chunks),
        });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

const CLOSED = '2026-11-19';
const TODAY = '2026-11-20';
const NET = 'network-coverage';
const TRADE = 'token-trade-coverage';

/** Concrete URLs per route template: a success and the route's own errors. */
const URLS: Readonly<Record<string, readonly string[]>> = {
  '/healthz': ['/healthz'],
  '/metrics': ['/metrics'],
  '/api/openapi.json': ['/api/openapi.json'],
  '/api/citable': ['/api/citable', '/api/citable/'],
  '/api/citable/{}': [
    `/api/citable/${CLOSED}`,
    `/api/citable/${TODAY}`,
    '/api/citable/nope',
    '/api/citable/2020-01-01',
  ],
  '/api/stat/{}': [
    `/api/stat/${NET}`,
    `/api/stat/${NET}?date=${CLOSED}`,
    `/api/stat/${TRADE}?chain=solana&chain=base`,
    `/api/stat/${NET}?kind=nope`,
    '/api/stat/nope',
    '/api/stat/Bad_Slug',
  ],
  '/api/compare/{}/{}': ['/api/compare/mobula/codex', '/api/compare/mobula/nope'],
  '/api/audit/{}/{}': [`/api/audit/${TRADE}/codex`, `/api/audit/${NET}/nope`],
  '/api/cite/{}/{}': [`/api/cite/${NET}/bib`, `/api/cite/${TRADE}/csl`, `/api/cite/${NET}/doc`],
  '/api/llm-context': ['/api/llm-context'],
  '/llms.txt': ['/llms.txt'],
  '/llms-full.txt': ['/llms-full.txt'],
  '/api/freshness': ['/api/freshness'],
  '/api/search/featured': ['/api/search/featured'],
  '/api/series/{}': [`/api/series/${TRADE}`, `/api/series/${TRADE}?range=1y`],
  '/api/dataset': ['/api/dataset'],
  '/api/dataset/{}.json': [`/api/dataset/${CLOSED}.json`, '/api/dataset/2020-01-01.json'],
  '/api/dataset/{}': [`/api/dataset/${CLOSED}.csv`, `/api/dataset/${CLOSED}.parquet`, '/api/dataset/nope'],
  '/api/og/{}': [`/api/og/${NET}`, '/api/og/nope'],
  '/api/sparkline/{}': [`/api/sparkline/${NET}`, `/api/sparkline/${NET}?w=100&w=200`],
  '/api/providers': ['/api/providers'],
  '/api/providers/{}': [
    '/api/providers/codex',
    `/api/providers/codex?date=${CLOSED}`,
    '/api/providers/nope',
    '/api/providers/Bad_Slug',
  ],
  '/providers/{}': ['/providers/codex', '/providers/nope'],
  '/api/chart/{}': [`/api/chart/${TRADE}`, `/api/chart/${TRADE}?range=24h`, '/api/chart/nope'],
  '/mcp': ['/mcp'],
  '/': ['/'],
  '/benchmarks/{}': [
    `/benchmarks/${TRADE}`,
    `/benchmarks/${NET}?date=${CLOSED}`,
    '/benchmarks/nope',
    `/benchmarks/${TRADE}?chain=a&chain=b`,
  ],
  '/benchmarks/{}/days': [`/benchmarks/${NET}/days`, '/benchmarks/nope/days'],
  '/days': ['/days'],
  '/benchmarks': ['/benchmarks'],
  '/providers': ['/providers'],
  '/robots.txt': ['/robots.txt'],
  '/sitemap.xml': ['/sitemap.xml'],
  '/api/badge/{}/{}': [`/api/badge/${NET}/mobula`, '/api/badge/nope/mobula', `/api/badge/${NET}/nope`],
  '/compare/{}': ['/compare/mobula-vs-codex', '/compare/nope'],
  '/methodology': ['/methodology', '/methodology/'],
  '/favicon.ico': ['/favicon.ico'],
  '/assets/{}': [STYLE_HREF, SCRIPT_HREF, '/assets/site.000000000000.css'],
  '/api/mcp/mcp': ['/api/mcp/mcp'],
  '/{}': ['/nope'],
  '/api/{}/{}': ['/api/nope', '/api/nope/x'],
};

/** Bodies that differ from one request to the next (counters): the length is checked, not its value. */
const MOVING = new Set(['/metrics']);

describe('HEAD is GET without the body, on every route and status', () => {
  let srv: Running;
  beforeAll(async () => {
    srv = await startServer();
  }, 60_000);
  afterAll(() => srv.close());

  it('names URLs for every route template', () => {
    expect(ROUTE_TEMPLATES.filter((t) => !URLS[t])).toEqual([]);
  });

  it('sends GET’s status, headers and exact Content-Length; GET is never chunked', async () => {
    const seen = new Set<number>();
    for (const path of Object.values(URLS).flat()) {
      for (const accept of ['application/json', 'text/html']) {
        const h = { accept };
        // Routed first (no stored answer yet), then replayed by the hot path once GET filled it.
        const heads = [await raw(srv.url, path, 'HEAD', h)];
        const get = await raw(srv.url, path, 'GET', h);
        heads.push(await raw(srv.url, path, 'HEAD', h));
        const etag = get.headers.find((l) => l.startsWith('etag: '))?.slice(6);
        const what = `${path} (${accept})`;
        seen.add(get.status);
        expect(get.chunked, `${what}: GET chunked`).toBe(false);
        expect(get.length, `${what}: GET length`).toBe(String(get.body.byteLength));
        for (const head of heads) {
          expect(head.status, what).toBe(get.status);
          expect(head.body.byteLength, what).toBe(0);
          if (MOVING.has(path)) {
            expect(Number(head.length), what).toBeGreaterThan(0);
            const fixed = (r: Raw) => r.headers.filter((l) => !l.startsWith('content-length'));
            expect(fixed(head), what).toEqual(fixed(get));
          } else expect(head.headers, what).toEqual(get.headers);
        }
        if (etag === undefined) continue;
        const revalidate = { ...h, 'if-none-match': etag };
        const get304 = await raw(srv.url, path, 'GET', revalidate);
        const head304 = await raw(srv.url, path, 'HEAD', revalidate);
        seen.add(get304.status);
        expect(head304.status, what).toBe(get304.status);
        expect(head304.headers, what).toEqual(get304.headers);
      }
    }
    // The walk reached every kind of answer it is meant to compare.
    expect([...seen].sort()).toEqual([200, 304, 308, 400, 404, 405]);
  }, 120_000);
});
