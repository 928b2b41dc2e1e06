import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { testConfig } from '../../src/config.ts';
import { canonicalJson } from '../../src/core/canonical-json.ts';
import { startHarnessDemo } from '../../src/demo/harness-demo.ts';
import { createLogger } from '../../src/log.ts';
import { SCRIPT_HREF, STYLE_HREF } from '../../src/pages/html.ts';
import { defaultRoutes } from '../../src/routes.ts';
import { createService, type Service } from '../../src/service.ts';

/**
 * The golden corpus: every GET route of the demo, answered at a fixed seed and a fixed clock, as
 * status, headers (Date aside) and a body hash. Refactors that must not change published bytes are
 * checked against it (test/e2e/golden.test.ts); `npm run golden` rewrites it (bench/golden.ts).
 */

/** 2026-11-20T12:07:00Z: a fixed "now" seven minutes past a trade slot, so no cycle is due. */
export const GOLDEN_NOW = Date.UTC(2026, 10, 20, 12, 7, 0);
export const GOLDEN_SEED = 42;
/**
 * The build the golden demo's service and harnesses name in provenance: pinned, since the real
 * revision (git HEAD) changes with every commit and would change the published bytes with it.
 */
export const GOLDEN_BUILD = {
  version: '0.1.0',
  revision: '0000000000000000000000000000000000000000',
} as const;
export const GOLDEN_FILE = resolve(import.meta.dirname, '../fixtures/golden.json');
/** The OpenAPI document is compared parsed (semantically), so it is kept whole beside the corpus. */
export const GOLDEN_OPENAPI_FILE = resolve(import.meta.dirname, '../fixtures/golden-openapi.json');
export const OPENAPI_PATH = '/api/openapi.json';

export interface GoldenRequest {
  readonly method: 'GET' | 'HEAD' | 'POST';
  readonly path: string;
  /** Send the ETag of the previous GET of the same path as If-None-Match. */
  readonly ifNoneMatch?: boolean;
  readonly accept?: string;
}

export interface GoldenEntry {
  readonly request: string;
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly bodySha256: string;
  readonly bodyBytes: number;
}

export interface GoldenCorpus {
  readonly seed: number;
  readonly now: string;
  readonly entries: GoldenEntry[];
}

const CLOSED = '2026-11-19';
const OLDER = '2026-11-18';
const NET = 'network-coverage';
const TRADE = 'token-trade-coverage';
const RECALL = 'token-trade-recall';
const get = (path: string, extra: Partial<GoldenRequest> = {}): GoldenRequest => ({
  method: 'GET',
  path,
  ...extra,
});

/**
 * Representative requests of every GET route: filters, dates, formats, HEAD, If-None-Match, and
 * each route's 400 and 404 answers. Order matters (the second GET of a path may be a hot-path
 * replay), so it is fixed here.
 */
export function goldenRequests(): GoldenRequest[] {
  const rows: GoldenRequest[] = [];
  const withRevalidation = (path: string) => {
    rows.push(get(path), { method: 'HEAD', path }, get(path, { ifNoneMatch: true }));
  };
  withRevalidation('/healthz');
  rows.push(get(OPENAPI_PATH));
  withRevalidation('/api/citable');
  for (const d of [CLOSED, OLDER, '2026-11-20', '2026-11-21', '2026-02-30', 'nope', '2020-01-01'])
    rows.push(get(`/api/citable/${d}`));
  rows.push(get(`/api/citable/${CLOSED}`, { ifNoneMatch: true }), {
    method: 'HEAD',
    path: `/api/citable/${CLOSED}`,
  });

  // Stat: every filter, dates, and every error path.
  for (const q of [
    '',
    '?kind=dex-index',
    '?kind=asset-registry',
    '?kind=nope',
    '?region=us-east',
    `?date=${CLOSED}`,
    `?date=${OLDER}`,
    '?date=2026-11-20',
    '?date=2020-01-01',
    '?date=20261119',
    '?chain=solana',
    '?bogus=1',
    '?kind=dex-index&kind=evm-only',
    '?kind=',
  ])
    rows.push(get(`/api/stat/${NET}${q}`));
  for (const q of [
    '',
    '?chain=solana',
    '?chain=ethereum',
    '?chain=bsc',
    '?chain=base',
    '?chain=stellar',
    '?chain=nope',
    '?kind=dex-index',
    `?date=${CLOSED}`,
    `?date=${CLOSED}&chain=solana`,
    '?chain=solana&chain=base',
  ])
    rows.push(get(`/api/stat/${TRADE}${q}`));
  withRevalidation(`/api/stat/${TRADE}`);
  rows.push(get('/api/stat/nope'), get('/api/stat/Bad_Slug'), get(`/api/stat/${'a'.repeat(90)}`));

  // Compare.
  for (const pair of [
    'mobula/codex',
    'codex/mobula',
    'geckoterminal/coingecko',
    'mobula/bitquery',
    'mobula/mobula',
    'mobula/nope',
    'nope/codex',
    'Bad/codex',
  ])
    rows.push(get(`/api/compare/${pair}`));
  rows.push(get('/api/compare/mobula/codex?x=1'), get('/api/compare/mobula/codex', { ifNoneMatch: true }));

  // Provider profiles (issue 25): the listing, live and dated profiles, each error.
  withRevalidation('/api/providers');
  withRevalidation('/api/providers/mobula');
  withRevalidation(`/api/providers/codex?date=${CLOSED}`);
  for (const q of [
    'alchemy',
    'nope',
    'Bad_Slug',
    'mobula?date=2026-11-20',
    'mobula?date=2026-13-01',
    'mobula?date=2020-01-01',
    'nope?date=2026-13-01',
  ])
    rows.push(get(`/api/providers/${q}`));

  // Audit.
  for (const q of [
    `${NET}/mobula`,
    `${NET}/geckoterminal`,
    `${NET}/sim-dune`,
    `${NET}/mobula?date=${CLOSED}`,
    `${NET}/mobula?window=24h`,
    `${NET}/bitquery`,
    `${NET}/nope`,
    `${TRADE}/codex`,
    `${TRADE}/mobula`,
    `${TRADE}/bitquery?window=24h`,
    `${TRADE}/mobula?window=24h&chain=solana`,
    `${TRADE}/mobula?window=24h&chain=nope`,
    `${TRADE}/mobula?window=7d`,
    `${TRADE}/mobula?chain=solana`,
    `${TRADE}/mobula?date=${CLOSED}`,
    `${TRADE}/mobula?date=bad`,
    `${TRADE}/geckoterminal`,
    'nope/mobula',
  ])
    rows.push(get(`/api/audit/${q}`));

  // Citations: every format, dated, and bad formats.
  for (const slug of [NET, TRADE])
    for (const f of ['bib', 'ris', 'apa', 'txt', 'csl']) rows.push(get(`/api/cite/${slug}/${f}`));
  for (const f of ['bib', 'csl']) rows.push(get(`/api/cite/${NET}/${f}?date=${CLOSED}`));
  rows.push(
    get(`/api/cite/${NET}/doc`),
    get(`/api/cite/nope/bib`),
    get(`/api/cite/${NET}/bib?date=2020-01-01`),
    get(`/api/cite/${NET}/bib?date=x`),
    get(`/api/cite/${NET}/bib?y=1`),
    { method: 'HEAD', path: `/api/cite/${TRADE}/csl` },
  );

  withRevalidation('/api/llm-context');
  withRevalidation('/llms.txt');
  withRevalidation('/llms-full.txt');
  withRevalidation('/api/freshness');
  withRevalidation('/api/search/featured');
  rows.push(get('/api/llm-context?x=1'));

  // Series.
  for (const q of [
    `${TRADE}`,
    `${TRADE}?range=24h`,
    `${TRADE}?range=7d`,
    `${TRADE}?range=30d&chain=solana`,
    `${TRADE}?range=90d`,
    `${TRADE}?providers=mobula,codex`,
    `${TRADE}?providers=nope`,
    `${TRADE}?range=1y`,
    `${TRADE}?range=24h&range=7d`,
    `${NET}?kind=dex-index`,
    `${NET}`,
    'nope',
    'Bad_Slug',
  ])
    rows.push(get(`/api/series/${q}`));

  // Dataset.
  withRevalidation('/api/dataset');
  for (const f of [
    `${CLOSED}.csv`,
    `${CLOSED}.parquet`,
    `${OLDER}.csv`,
    '2026-11-20.csv',
    '2020-01-01.csv',
    `${CLOSED}.json`,
    `${OLDER}.json`,
    '2026-11-20.json',
    '2026-02-30.json',
    '2020-01-01.json',
    'nope',
  ])
    rows.push(get(`/api/dataset/${f}`));
  rows.push(get(`/api/dataset/${CLOSED}.json`, { ifNoneMatch: true }));
  rows.push({ method: 'HEAD', path: `/api/dataset/${CLOSED}.parquet` });

  // Images.
  for (const q of [
    NET,
    `${NET}?kind=dex-index`,
    `${TRADE}?chain=solana`,
    `${TRADE}?chain=stellar`,
    `${NET}?date=${CLOSED}`,
    `${NET}?date=2020-01-01`,
    `${NET}?kind=nope`,
    'nope',
  ])
    rows.push(get(`/api/og/${q}`));
  for (const q of [
    NET,
    TRADE,
    `${TRADE}?w=300&h=80&theme=dark`,
    `${TRADE}?chain=solana`,
    `${NET}?date=${CLOSED}`,
    `${TRADE}?w=abc`,
    `${TRADE}?theme=pink`,
    'nope',
  ])
    rows.push(get(`/api/sparkline/${q}`));
  rows.push(get(`/api/sparkline/${TRADE}`, { ifNoneMatch: true }));
  // History charts (issue 25): the ranges and a filter, revalidation, each 400 and 404.
  for (const q of [
    TRADE,
    `${TRADE}?range=30d&chain=solana`,
    `${NET}?range=90d&kind=dex-index`,
    `${TRADE}?range=24h`,
    `${TRADE}?range=7d&range=30d`,
    'Bad_Slug',
    'nope',
    `${TRADE}?chain=dogechain`,
  ])
    rows.push(get(`/api/chart/${q}`));
  rows.push(get(`/api/chart/${TRADE}`, { ifNoneMatch: true }));

  // MCP (GET answers only) and HTML pages.
  rows.push(get('/mcp'), get('/api/mcp/mcp'));
  for (const p of [
    '/',
    `/benchmarks/${NET}`,
    `/benchmarks/${NET}?kind=dex-index`,
    `/benchmarks/${TRADE}?chain=solana`,
    `/benchmarks/${TRADE}?date=${CLOSED}`,
    `/benchmarks/${TRADE}?chain=solana&range=30d`,
    `/benchmarks/${TRADE}?range=1y`,
    '/benchmarks/nope',
    '/compare/mobula-vs-codex',
    '/compare/codex-vs-geckoterminal',
    '/compare/mobula-vs-nope',
    '/compare/nonsense',
    '/providers/mobula',
    `/providers/codex?date=${CLOSED}`,
    '/providers/nope',
    '/methodology',
    '/favicon.ico',
  ])
    rows.push(get(p));
  withRevalidation(`/benchmarks/${TRADE}`);
  // Recall against the chain (issue 23): its Stat, a chain with truth and one outside its
  // dimension, audits with groundTruth (latest cycle and window), its page.
  for (const p of [
    `/api/stat/${RECALL}`,
    `/api/stat/${RECALL}?chain=ethereum`,
    `/api/stat/${RECALL}?chain=solana`,
    `/api/audit/${RECALL}/codex`,
    `/api/audit/${RECALL}/mobula?window=24h&chain=base`,
    `/benchmarks/${RECALL}`,
  ])
    rows.push(get(p));
  // The pages' stylesheet and script (content-hashed names), and an asset that does not exist.
  withRevalidation(STYLE_HREF);
  withRevalidation(SCRIPT_HREF);
  rows.push(get('/assets/site.000000000000.css'));

  // Unknown routes and methods.
  rows.push(
    get('/api/nope'),
    get('/nope'),
    get('/nope', { accept: 'text/html' }),
    get('/api/stat/%E0%A4%A'),
    { method: 'HEAD', path: '/api/nope' },
    { method: 'POST', path: `/api/stat/${NET}` },
  );

  // The json-rpc family (issue 22): regions from its own data, methods, head lag, audit, pages.
  const RPC = 'rpc-latency';
  const LAG = 'rpc-head-lag';
  for (const q of [
    '',
    '?region=us-east',
    '?region=eu-west&kind=logs',
    '?chain=bsc',
    '?kind=block',
    '?region=mars',
  ])
    rows.push(get(`/api/stat/${RPC}${q}`));
  for (const q of ['', '?region=ap-southeast', '?chain=base', '?kind=block'])
    rows.push(get(`/api/stat/${LAG}${q}`));
  for (const q of [
    `${RPC}/alchemy`,
    `${RPC}/tenderly?window=24h&region=us-east`,
    `${LAG}/publicnode?window=24h`,
  ])
    rows.push(get(`/api/audit/${q}`));
  rows.push(
    get('/api/compare/alchemy/infura'),
    get(`/api/series/${RPC}?range=24h&region=eu-west`),
    get(`/benchmarks/${RPC}`),
    get(`/benchmarks/${LAG}?region=us-east`),
  );
  return rows;
}

export interface GoldenRun {
  readonly service: Service;
  readonly url: string;
  close(): Promise<void>;
}

/** A golden demo and the corpus captured from it before any other request reached it. */
export interface SharedGolden {
  readonly run: GoldenRun;
  readonly captured: Awaited<ReturnType<typeof captureGolden>>;
}
let shared: Promise<SharedGolden> | undefined;

/**
 * One golden demo for the suites of a test file that read it (its golden bytes, Prism's checks),
 * since a demo costs half a minute of a core. The corpus is captured first, whichever suite asks
 * first: other requests would move what it records (the MCP route's rate-limit headers).
 */
export function sharedGoldenRun(): Promise<SharedGolden> {
  shared ??= (async () => {
    const run = await startGoldenDemo();
    return { run, captured: await captureGolden(run.url) };
  })();
  return shared;
}

/**
 * The demo in-process: a real service on a socket, the real harness backfilling 3 days from the
 * simulated providers at GOLDEN_SEED, then stopped (no live cycle), on a clock fixed at GOLDEN_NOW.
 */
export async function startGoldenDemo(opts: { benchmarksDir?: string } = {}): Promise<GoldenRun> {
  const config = testConfig({
    port: 0,
    benchmarksDir: opts.benchmarksDir ?? resolve(import.meta.dirname, '../../benchmarks'),
    baseUrl: 'http://localhost:8080',
    logLevel: 'silent',
    simulated: true,
    demoSeed: GOLDEN_SEED,
  });
  const service = await createService({
    config,
    log: createLogger('silent'),
    inMemory: true,
    clock: () => GOLDEN_NOW,
    routes: defaultRoutes,
    build: GOLDEN_BUILD,
  });
  const demo = await startHarnessDemo({
    store: service.store,
    specs: service.specs,
    metrics: service.metrics,
    seed: GOLDEN_SEED,
    days: 3,
    now: GOLDEN_NOW,
    // One hour of the json-rpc family's slots (the demo's six would add half a minute to every run).
    rpcBackfillMs: 3_600_000,
    build: GOLDEN_BUILD,
  });
  await demo.stop();
  await service.publication.freezeClosedDays();
  const port = await service.listen();
  return { service, url: `http://127.0.0.1:${port}`, close: () => service.close() };
}

const requestKey = (r: GoldenRequest) =>
  `${r.method} ${r.path}${r.ifNoneMatch ? ' [If-None-Match]' : ''}${r.accept ? ` [Accept: ${r.accept}]` : ''}`;

/** Sends every golden request in order; the OpenAPI body is hashed as canonical parsed JSON. */
export async function captureGolden(
  url: string,
  requests: readonly GoldenRequest[] = goldenRequests(),
): Promise<{ entries: GoldenEntry[]; bodies: Map<string, Buffer>; openapi: unknown }> {
  const etags = new Map<string, string>();
  const entries: GoldenEntry[] = [];
  const bodies = new Map<string, Buffer>();
  let openapi: unknown = null;
  const host = new URL(url).host;
  for (const r of requests) {
    const headers: Record<string, string> = {};
    if (r.accept) headers.accept = r.accept;
    const etag = etags.get(r.path);
    if (r.ifNoneMatch && etag) headers['if-none-match'] = etag;
    const res = await fetch(`${url}${r.path}`, { method: r.method, headers });
    const body = Buffer.from(await res.arrayBuffer());
    const key = requestKey(r);
    const kept: Record<string, string> = {};
    for (const [name, value] of [...res.headers.entries()].sort(([a], [b]) => a.localeCompare(b))) {
      if (name === 'date') continue;
      kept[name] = value;
    }
    // HTML error pages name the request URL, whose port is the one this run bound.
    let hashed: Buffer = body.includes(host)
      ? Buffer.from(body.toString('latin1').replaceAll(host, '127.0.0.1:PORT'), 'latin1')
      : body;
    if (r.path === OPENAPI_PATH && r.method === 'GET' && res.status === 200) {
      openapi = JSON.parse(body.toString('utf8'));
      hashed = Buffer.from(canonicalJson(openapi));
      // Its length and ETag follow the bytes, which are compared semantically instead.
      delete kept['content-length'];
      delete kept.etag;
    }
    if (r.method === 'GET' && res.status === 200 && kept.etag) etags.set(r.path, kept.etag);
    bodies.set(key, body);
    entries.push({
      request: key,
      status: res.status,
      headers: kept,
      bodySha256: createHash('sha256').update(hashed).digest('hex'),
      bodyBytes: hashed.length,
    });
  }
  return { entries, bodies, openapi };
}
