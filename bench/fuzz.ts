/**
 * Seeded random requests against a real server (npm run bench:fuzz). Starts the service
 * (`node --import tsx src/main.ts`, harness off, 3 days of data in a fresh DATA_DIR) and sends
 * FUZZ_REQUESTS (default 100,000) requests, FUZZ_CONCURRENCY (8) at a time: random paths and
 * percent-encodings, methods, headers, query strings, bodies and MCP JSON-RPC messages, plus raw
 * socket requests that no client library would send (bad request lines, bad header bytes, lying
 * Content-Length, bare LF). Prints the status histogram and every 5xx with the seed that replays
 * it: FUZZ_SEED=<seed> FUZZ_ONLY=<index> npm run bench:fuzz prints that one request and its answer.
 */

import { mkdtemp } from 'node:fs/promises';
import { connect } from 'node:net';
import { cpus, release, tmpdir } from 'node:os';
import { join } from 'node:path';
import { prng } from '../src/core/prng.ts';
import { buildDataset } from '../src/demo/dataset.ts';
import { openDuckDbStore } from '../src/store/duckdb-store.ts';
import { ROUTE_TEMPLATES } from '../test/helpers/route-templates.ts';
import { rssMb, spawnNode, stop, waitFor200 } from './lib.ts';

const N = Number(process.env.FUZZ_REQUESTS ?? 100_000);
const CONCURRENCY = Number(process.env.FUZZ_CONCURRENCY ?? 8);
const SEED = Number(process.env.FUZZ_SEED ?? 1);
const ONLY = process.env.FUZZ_ONLY === undefined ? undefined : Number(process.env.FUZZ_ONLY);
const PORT = 18_900 + Math.floor(Math.random() * 90);
const HOST = `127.0.0.1:${PORT}`;

process.stdout.write(
  `machine: ${cpus()[0]?.model ?? '?'} × ${cpus().length}, node ${process.version}, linux ${release()}\n`,
);

type R = () => number;
const pick = <T>(r: R, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
const int = (r: R, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
function str(r: R, max: number, alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789-_.~'): string {
  let s = '';
  for (let i = int(r, 0, max); i > 0; i--) s += alphabet[Math.floor(r() * alphabet.length)];
  return s;
}
function unicode(r: R, max: number): string {
  let s = '';
  for (let i = int(r, 0, max); i > 0; i--) {
    const cp = pick(r, [
      int(r, 0, 0x7f),
      int(r, 0x80, 0x7ff),
      int(r, 0x800, 0xd7ff),
      int(r, 0x10000, 0x10ffff),
    ]);
    s += String.fromCodePoint(cp);
  }
  return s;
}

const SLUGS = ['network-coverage', 'token-trade-coverage'];
const PROVIDERS = ['mobula', 'codex', 'geckoterminal', 'bitquery', 'coingecko', 'sim-dune'];
function segment(r: R): string {
  switch (int(r, 0, 7)) {
    case 0:
    case 1:
      return pick(r, [...SLUGS, ...PROVIDERS, 'bib', 'ris', 'apa', 'txt', 'mobula-vs-codex']);
    case 2:
      return new Date(Date.now() - int(r, -3, 400) * 86_400_000).toISOString().slice(0, 10);
    case 3:
      return encodeURIComponent(unicode(r, 12));
    case 4:
      return pick(r, [
        '%zz',
        '%',
        '%C0%AF',
        '%00',
        '%FF',
        '..',
        '%2e%2e',
        '%2F',
        '',
        '%E2%82',
        'a'.repeat(int(r, 80, 3000)),
      ]);
    case 5:
      return str(r, 90);
    default:
      return str(r, 20, 'ABCxyz019-_%.');
  }
}
const TEMPLATES = ROUTE_TEMPLATES;
function query(r: R): string {
  const n = int(r, 0, 4);
  const parts: string[] = [];
  for (let i = 0; i < n; i++) {
    const k =
      r() < 0.7
        ? pick(r, ['chain', 'region', 'kind', 'venue', 'w', 'h', 'theme', 'date', 'range', 'providers'])
        : segment(r);
    const v =
      r() < 0.5
        ? pick(r, ['solana', 'stellar', 'dex-index', 'dark', '0', '-5', '1e9', '320', ''])
        : segment(r);
    parts.push(`${k}=${v}`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

function jsonRpc(r: R): string {
  const promql = pick(r, [
    'networks_supported',
    'avg by (provider) (avg_over_time(token_trade_capture_pct{chain="solana"}[24h]))',
    `sum(${pick(r, ['token_trade_count', 'up', ''])}[${pick(r, ['5m', '7d', '999d', '0s'])}])`,
    str(r, 60, 'abc_{}[]()"=~!,+-*/ 0123456789'),
    'x'.repeat(int(r, 1, 3000)),
  ]);
  const params = pick(r, [
    {
      name: 'query_prom',
      arguments: {
        query: promql,
        windowSec: pick(r, [undefined, 3600, 604_800, -1, 1e12, 'x']),
        steps: pick(r, [undefined, 2, 360, 10_000, 0]),
      },
    },
    {
      name: 'get_benchmark',
      arguments: { slug: pick(r, [...SLUGS, segment(r)]), chain: pick(r, ['solana', 'mars', segment(r)]) },
    },
    { name: 'list_benchmarks', arguments: pick(r, [{}, { category: 'Explorers' }, { category: 1 }, null]) },
    { name: segment(r), arguments: { a: 1 } },
    { uri: pick(r, ['citebench://benchmark/network-coverage', 'citebench://benchmark/x', segment(r)]) },
    {
      protocolVersion: pick(r, ['2025-06-18', '2024-11-05', 'x']),
      capabilities: {},
      clientInfo: { name: 'fuzz', version: '1' },
    },
    pick(r, [null, 1, 'x', [], { deep: { deeper: [1, 2, { x: null }] } }]),
  ]);
  const msg = {
    jsonrpc: pick(r, ['2.0', '2.0', '2.0', '1.0', undefined]),
    id: pick(r, [int(r, 0, 1e6), str(r, 8), null, undefined, 1.5]),
    method: pick(r, [
      'initialize',
      'tools/list',
      'tools/call',
      'tools/call',
      'tools/call',
      'resources/list',
      'resources/read',
      'ping',
      'notifications/initialized',
      'x/y',
      '',
    ]),
    params,
  };
  switch (int(r, 0, 9)) {
    case 0:
      return JSON.stringify([msg, msg]);
    case 1:
      return str(r, 100, '{}[]":,abc0123 ');
    default:
      return JSON.stringify(msg);
  }
}

interface Req {
  readonly kind: 'fetch' | 'raw';
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
  /** For raw requests: the exact bytes sent. */
  readonly raw?: string;
}

function generate(seed: number, i: number): Req {
  const r = prng((seed * 1_000_003 + i) >>> 0);
  if (r() < 0.05) {
    const path = pick(r, ['/api/citable', '/api/stat/network-coverage', '/api/mcp/mcp', `/${segment(r)}`]);
    const raw = pick(r, [
      `GET ${path} HTTP/1.1\r\nHost: ${HOST}\r\nX-Bad: a\u0001b\r\n\r\n`,
      `GET ${path}${unicode(r, 4)} HTTP/1.1\r\nHost: ${HOST}\r\n\r\n`,
      `${str(r, 8, 'ABCXYZ')} ${path} HTTP/1.1\r\nHost: ${HOST}\r\n\r\n`,
      `GET ${path} HTTP/9.9\r\nHost: ${HOST}\r\n\r\n`,
      `POST /api/mcp/mcp HTTP/1.1\r\nHost: ${HOST}\r\nContent-Type: application/json\r\nContent-Length: 5\r\n\r\n{"jsonrpc":"2.0"}`,
      `POST /api/mcp/mcp HTTP/1.1\r\nHost: ${HOST}\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
      `GET ${path} HTTP/1.1\nHost: ${HOST}\n\n`,
      `GET ${path} HTTP/1.1\r\nHost: ${HOST}\r\nContent-Length: -1\r\n\r\n`,
      `GET ${path} HTTP/1.1\r\nHost: ${HOST}\r\n${'X-Many: 1\r\n'.repeat(int(r, 50, 300))}\r\n`,
    ]);
    return { kind: 'raw', method: 'RAW', path, headers: {}, raw };
  }
  if (r() < 0.25) {
    const headers: Record<string, string> = {
      'content-type': pick(r, ['application/json', 'application/json', 'text/plain']),
    };
    if (r() < 0.8)
      headers.accept = pick(r, [
        'application/json, text/event-stream',
        'application/json',
        '*/*',
        'text/html',
      ]);
    if (r() < 0.3) headers['mcp-protocol-version'] = pick(r, ['2025-06-18', '2024-11-05', 'bogus']);
    if (r() < 0.1) headers.origin = pick(r, ['http://evil.test', `http://${HOST}`]);
    return {
      kind: 'fetch',
      method: r() < 0.95 ? 'POST' : pick(r, ['GET', 'DELETE', 'PUT']),
      path: '/api/mcp/mcp',
      headers,
      body: jsonRpc(r),
    };
  }
  let k = 0;
  const segs = [segment(r), segment(r)];
  const path = pick(r, TEMPLATES).replace(/\{\}/g, () => segs[k++] ?? 'x') + query(r);
  const method = pick(r, ['GET', 'GET', 'GET', 'GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH']);
  const headers: Record<string, string> = {};
  if (r() < 0.2) headers['if-none-match'] = pick(r, ['*', `"${str(r, 20)}"`, 'W/"x", "y"']);
  if (r() < 0.2) headers.accept = pick(r, ['*/*', 'application/json', 'image/png', 'x/y']);
  if (r() < 0.05) headers['x-long'] = 'h'.repeat(int(r, 1000, 20_000));
  const body =
    method !== 'GET' && method !== 'HEAD' && r() < 0.5 ? str(r, r() < 0.05 ? 100_000 : 300) : undefined;
  return { kind: 'fetch', method, path, headers, ...(body !== undefined ? { body } : {}) };
}

/** One raw exchange: the status of the first response line, or 0 when the server just closed. */
function sendRaw(bytes: string): Promise<number> {
  return new Promise((resolve) => {
    const sock = connect(PORT, '127.0.0.1');
    let got = '';
    const done = () => {
      sock.destroy();
      resolve(Number(/^HTTP\/1\.[01] (\d{3})/.exec(got)?.[1] ?? 0));
    };
    sock.setTimeout(5000, done);
    sock.on('data', (d) => {
      got += d.toString('latin1');
      if (/\r\n\r\n/.test(got)) done();
    });
    sock.on('error', done);
    sock.on('close', done);
    sock.write(bytes, 'latin1');
  });
}

async function send(q: Req): Promise<{ status: number; body: string }> {
  if (q.kind === 'raw') return { status: await sendRaw(q.raw ?? ''), body: '' };
  try {
    const res = await fetch(`http://${HOST}${q.path}`, {
      method: q.method,
      headers: q.headers,
      ...(q.body !== undefined ? { body: q.body } : {}),
      signal: AbortSignal.timeout(10_000),
    });
    const body = await res.text();
    return { status: res.status, body };
  } catch (e) {
    // The client library refused the request or the server closed it: not a server error.
    return { status: 0, body: String((e as Error).cause ?? e) };
  }
}

const dir = await mkdtemp(join(tmpdir(), 'citebench-fuzz-'));
const seedStore = await openDuckDbStore({ path: join(dir, 'citebench.duckdb') });
await seedStore.append(buildDataset({ seed: 1, days: 3, end: Date.now() }));
await seedStore.close();
const child = spawnNode(['--import', 'tsx', 'src/main.ts'], {
  PORT: String(PORT),
  DATA_DIR: dir,
  LOG_LEVEL: 'error',
  HARNESS_ENABLED: 'false',
  MCP_RATE_LIMIT_PER_MIN: '100000',
});
await waitFor200(`http://${HOST}/healthz`, 30_000);

if (ONLY !== undefined) {
  const q = generate(SEED, ONLY);
  const r = await send(q);
  process.stdout.write(`${JSON.stringify(q).slice(0, 2000)}\n→ ${r.status} ${r.body.slice(0, 2000)}\n`);
  await stop(child);
  process.exit(0);
}

const histogram = new Map<number, number>();
const fiveXx: string[] = [];
let next = 0;
const t0 = performance.now();
async function worker(): Promise<void> {
  while (next < N) {
    const i = next++;
    const q = generate(SEED, i);
    const r = await send(q);
    histogram.set(r.status, (histogram.get(r.status) ?? 0) + 1);
    if (r.status >= 500)
      fiveXx.push(
        `FUZZ_SEED=${SEED} FUZZ_ONLY=${i}: ${q.method} ${q.path.slice(0, 120)} → ${r.status} ${r.body.slice(0, 200)}`,
      );
    if (i % 5000 === 0) process.stderr.write(`\r${i}/${N}`);
  }
}
await Promise.all(Array.from({ length: CONCURRENCY }, worker));
const seconds = (performance.now() - t0) / 1000;
const alive = await fetch(`http://${HOST}/healthz`).then(
  (r) => r.status === 200,
  () => false,
);
const rss = rssMb(child.pid as number);
await stop(child);
process.stderr.write('\n');
process.stdout.write(`${N} requests in ${seconds.toFixed(1)} s (seed ${SEED}, ${CONCURRENCY} at a time)\n`);
process.stdout.write(`status histogram (0 = refused by the client library or closed by the server):\n`);
for (const [s, n] of [...histogram].sort((a, b) => a[0] - b[0])) process.stdout.write(`  ${s}: ${n}\n`);
const documented503 = fiveXx.filter((l) => / → 503 .*(benchmarks_unavailable|render_busy|busy)/.test(l));
process.stdout.write(`5xx: ${fiveXx.length} (documented 503: ${documented503.length})\n`);
for (const l of fiveXx.slice(0, 50)) process.stdout.write(`  ${l}\n`);
process.stdout.write(`server alive afterwards: ${alive}; RSS ${rss.toFixed(0)} MB\n`);
process.exit(fiveXx.length - documented503.length === 0 && alive ? 0 : 1);
