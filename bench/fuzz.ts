/**
 * Seeded random requests against a real server (npm run bench:fuzz). Starts the service
 * (`node --import tsx src/main.ts`, harness off, 3 days of the demo dataset and FUZZ_RPC_HOURS (24)
 * of the json-rpc family at its real cadence in a fresh DATA_DIR; every benchmark's slug and
 * dimension values are in the draws, so random filter combinations ask for cold views) and sends
 * FUZZ_REQUESTS (default 100,000) requests, FUZZ_CONCURRENCY (8) at a time: random paths and
 * percent-encodings, methods, headers, query strings, bodies and MCP JSON-RPC messages, plus raw
 * socket requests that no client library would send (bad request lines, bad header bytes, lying
 * Content-Length, bare LF). Prints the status histogram and every 5xx with the seed that replays
 * it: FUZZ_SEED=<seed> FUZZ_ONLY=<index> npm run bench:fuzz prints that one request and its answer.
 * Requests start once the service's start-up work is done (its dataset and index answer);
 * FUZZ_COLD_START=1 starts them as soon as it answers /healthz.
 *
 * Every request's latency is kept (raw, for the percentiles) and the slowest ones are printed with
 * their replay line; progress says requests/s so far. FUZZ_MAX_MS (5,000) is the slowest answer
 * allowed: a slower one fails the run like an undocumented 5xx. FUZZ_CPU_PROF=<dir> runs the
 * server under --cpu-prof and writes its profile there on exit.
 */

import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { connect } from 'node:net';
import { cpus, loadavg, release, tmpdir } from 'node:os';
import { join } from 'node:path';
import { prng } from '../src/core/prng.ts';
import type { Sample } from '../src/core/samples.ts';
import { buildDataset } from '../src/demo/dataset.ts';
import { loadSpecs } from '../src/publication/load-specs.ts';
import { openDuckDbStore } from '../src/store/duckdb-store.ts';
import { ROUTE_TEMPLATES } from '../test/helpers/route-templates.ts';
import { writeRpcSlots } from '../test/helpers/rpc-dataset.ts';
import { rssMb, spawnNode, stop, waitFor200 } from './lib.ts';

const N = Number(process.env.FUZZ_REQUESTS ?? 100_000);
const CONCURRENCY = Number(process.env.FUZZ_CONCURRENCY ?? 8);
const RPC_HOURS = Number(process.env.FUZZ_RPC_HOURS ?? 24);
const SEED = Number(process.env.FUZZ_SEED ?? 1);
const ONLY = process.env.FUZZ_ONLY === undefined ? undefined : Number(process.env.FUZZ_ONLY);
const MAX_MS = Number(process.env.FUZZ_MAX_MS ?? 5000);
const CPU_PROF = process.env.FUZZ_CPU_PROF;
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

const SLUGS = ['network-coverage', 'token-trade-coverage', 'rpc-latency', 'rpc-head-lag'];
const PROVIDERS = [
  'mobula',
  'codex',
  'geckoterminal',
  'bitquery',
  'coingecko',
  'sim-dune',
  'alchemy',
  'tenderly',
];
/** Dimension values the benchmarks declare or store: most filter combinations of them resolve. */
const FILTER_VALUES = [
  'solana',
  'stellar',
  'dex-index',
  'ethereum',
  'bsc',
  'base',
  'eu-west',
  'us-east',
  'logs',
  'block',
  'call',
];
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
    const v = r() < 0.5 ? pick(r, [...FILTER_VALUES, 'dark', '0', '-5', '1e9', '320', '']) : segment(r);
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
  /** The route template it was drawn from (for the per-route latency table). */
  readonly route: string;
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
    return { kind: 'raw', method: 'RAW', path, headers: {}, raw, route: 'raw' };
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
      route: '/api/mcp/mcp (JSON-RPC)',
    };
  }
  let k = 0;
  const segs = [segment(r), segment(r)];
  const template = pick(r, TEMPLATES);
  const path = template.replace(/\{\}/g, () => segs[k++] ?? 'x') + query(r);
  const method = pick(r, ['GET', 'GET', 'GET', 'GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH']);
  const headers: Record<string, string> = {};
  if (r() < 0.2) headers['if-none-match'] = pick(r, ['*', `"${str(r, 20)}"`, 'W/"x", "y"']);
  if (r() < 0.2) headers.accept = pick(r, ['*/*', 'application/json', 'image/png', 'x/y']);
  if (r() < 0.05) headers['x-long'] = 'h'.repeat(int(r, 1000, 20_000));
  const body =
    method !== 'GET' && method !== 'HEAD' && r() < 0.5 ? str(r, r() < 0.05 ? 100_000 : 300) : undefined;
  return { kind: 'fetch', method, path, headers, ...(body !== undefined ? { body } : {}), route: template };
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
    const text = await res.text();
    // A HEAD answer has no body to name its error: its Retry-After stands in for it.
    const retry = res.headers.get('retry-after');
    const body = text === '' && retry !== null ? `(Retry-After: ${retry})` : text;
    return { status: res.status, body };
  } catch (e) {
    // The client library refused the request or the server closed it: not a server error.
    return { status: 0, body: String((e as Error).cause ?? e) };
  }
}

const dir = await mkdtemp(join(tmpdir(), 'citebench-fuzz-'));
const seedStore = await openDuckDbStore({ path: join(dir, 'citebench.duckdb') });
const end = Date.now();
await seedStore.append(buildDataset({ seed: 1, days: 3, end }));
if (RPC_HOURS > 0) {
  // The json-rpc family at its real cadence (1.1M samples a day), so its views, the largest, are
  // computed as a service holding a day of them computes them; appended 200k samples at a time.
  const slots = Math.round(RPC_HOURS * 60);
  const specs = await loadSpecs(join(import.meta.dirname, '../benchmarks'));
  let batch: Sample[] = [];
  const lastSlot = Math.floor(end / 60_000) * 60_000;
  await writeRpcSlots(
    specs,
    lastSlot - (slots - 1) * 60_000,
    slots,
    async (samples) => {
      batch.push(...samples);
      if (batch.length >= 200_000) {
        await seedStore.append(batch);
        batch = [];
      }
      return samples.length;
    },
    { origin: null },
  );
  await seedStore.append(batch);
}
await seedStore.close();
const profArgs = CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF}`] : [];
const child = spawnNode([...profArgs, '--import', 'tsx', 'src/main.ts'], {
  PORT: String(PORT),
  DATA_DIR: dir,
  LOG_LEVEL: 'error',
  HARNESS_ENABLED: 'false',
  MCP_RATE_LIMIT_PER_MIN: '100000',
});
// Outer bounds: the service reads the stored day into memory before it answers, and freezes the
// closed day before its dataset answers (with a day of json-rpc samples, seconds of Parquet and
// CSV). Requests start once both are done: the fuzz measures a started service, not its start-up.
const startedAt = performance.now();
await waitFor200(`http://${HOST}/healthz`, 180_000);
if (process.env.FUZZ_COLD_START !== '1') {
  await waitFor200(`http://${HOST}/api/dataset`, 300_000);
  await waitFor200(`http://${HOST}/api/citable`, 300_000);
}
process.stdout.write(`service started in ${((performance.now() - startedAt) / 1000).toFixed(1)} s\n`);

if (ONLY !== undefined) {
  const q = generate(SEED, ONLY);
  const r = await send(q);
  process.stdout.write(`${JSON.stringify(q).slice(0, 2000)}\n→ ${r.status} ${r.body.slice(0, 2000)}\n`);
  await stop(child);
  process.exit(0);
}

const histogram = new Map<number, number>();
const fiveXx: string[] = [];
const latencies = new Float64Array(N);
/** The slowest requests so far (index and ms), kept short. */
const slowest: { i: number; ms: number; line: string }[] = [];
const SLOWEST_KEPT = 20;
/** Per route template and method: requests, summed and largest latency. */
const byRoute = new Map<string, { n: number; ms: number; max: number }>();
function routeKey(q: Req): string {
  return `${q.method} ${q.route}`;
}
function noteLatency(i: number, ms: number, q: Req, status: number): void {
  latencies[i] = ms;
  const k = routeKey(q);
  const agg = byRoute.get(k) ?? { n: 0, ms: 0, max: 0 };
  agg.n++;
  agg.ms += ms;
  agg.max = Math.max(agg.max, ms);
  byRoute.set(k, agg);
  const least = slowest.length < SLOWEST_KEPT ? -1 : (slowest[slowest.length - 1]?.ms ?? -1);
  if (ms <= least) return;
  slowest.push({ i, ms, line: `${q.method} ${q.path.slice(0, 120)} → ${status}` });
  slowest.sort((a, b) => b.ms - a.ms);
  if (slowest.length > SLOWEST_KEPT) slowest.length = SLOWEST_KEPT;
}
/** A process's CPU time so far (user + system, all its threads), seconds, from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  // utime and stime are fields 14 and 15 of stat, 12 and 13 after the command's closing paren.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
let next = 0;
let doneCount = 0;
const serverCpu0 = cpuSeconds(child.pid as number);
const clientCpu0 = process.cpuUsage();
const t0 = performance.now();
async function worker(): Promise<void> {
  while (next < N) {
    const i = next++;
    const q = generate(SEED, i);
    const started = performance.now();
    const r = await send(q);
    noteLatency(i, performance.now() - started, q, r.status);
    doneCount++;
    histogram.set(r.status, (histogram.get(r.status) ?? 0) + 1);
    if (r.status >= 500)
      fiveXx.push(
        `FUZZ_SEED=${SEED} FUZZ_ONLY=${i}: ${q.method} ${q.path.slice(0, 120)} → ${r.status} ${r.body.slice(0, 200)}`,
      );
    if (i % 5000 === 0) {
      const s = (performance.now() - t0) / 1000;
      process.stderr.write(`\r${i}/${N} in ${s.toFixed(0)} s (${(doneCount / s).toFixed(0)} req/s)   `);
    }
  }
}
await Promise.all(Array.from({ length: CONCURRENCY }, worker));
const seconds = (performance.now() - t0) / 1000;
const serverCpu = cpuSeconds(child.pid as number) - serverCpu0;
const clientUsage = process.cpuUsage(clientCpu0);
const clientCpu = (clientUsage.user + clientUsage.system) / 1e6;
const alive = await fetch(`http://${HOST}/healthz`).then(
  (r) => r.status === 200,
  () => false,
);
const rss = rssMb(child.pid as number);
await stop(child);
process.stderr.write('\n');
process.stdout.write(
  `${N} requests in ${seconds.toFixed(1)} s, ${(N / seconds).toFixed(0)} req/s (seed ${SEED}, ${CONCURRENCY} at a time)\n`,
);
const sorted = latencies.slice().sort();
const pct = (q: number) => sorted[Math.min(N - 1, Math.floor(q * N))] ?? 0;
const maxMs = sorted[N - 1] ?? 0;
process.stdout.write(
  `latency ms: p50 ${pct(0.5).toFixed(1)}, p99 ${pct(0.99).toFixed(1)}, p99.9 ${pct(0.999).toFixed(1)}, max ${maxMs.toFixed(0)} (allowed ${MAX_MS})\n`,
);
process.stdout.write(
  `CPU while sending: server ${serverCpu.toFixed(1)} s (${((100 * serverCpu) / seconds).toFixed(0)}% of a core), this client ${clientCpu.toFixed(1)} s (${((100 * clientCpu) / seconds).toFixed(0)}%); load average ${loadavg()[0]?.toFixed(1)}\n`,
);
process.stdout.write('slowest requests:\n');
for (const s of slowest.slice(0, 10))
  process.stdout.write(`  ${s.ms.toFixed(0)} ms FUZZ_SEED=${SEED} FUZZ_ONLY=${s.i}: ${s.line}\n`);
process.stdout.write('routes by summed latency (the wall time they took, × concurrency):\n');
for (const [k, a] of [...byRoute].sort((x, y) => y[1].ms - x[1].ms).slice(0, 15))
  process.stdout.write(
    `  ${(a.ms / 1000).toFixed(1).padStart(7)} s  ${String(a.n).padStart(7)} req  mean ${(a.ms / a.n).toFixed(1).padStart(6)} ms  max ${a.max.toFixed(0).padStart(5)} ms  ${k}\n`,
  );
process.stdout.write(`status histogram (0 = refused by the client library or closed by the server):\n`);
for (const [s, n] of [...histogram].sort((a, b) => a[0] - b[0])) process.stdout.write(`  ${s}: ${n}\n`);
const documented503 = fiveXx.filter((l) =>
  / → 503 .*(benchmarks_unavailable|render_busy|busy)|: HEAD .* → 503 \(Retry-After: \d+\)$/.test(l),
);
process.stdout.write(`5xx: ${fiveXx.length} (documented 503: ${documented503.length})\n`);
for (const l of fiveXx.slice(0, 50)) process.stdout.write(`  ${l}\n`);
process.stdout.write(`server alive afterwards: ${alive}; RSS ${rss.toFixed(0)} MB\n`);
process.exit(fiveXx.length - documented503.length === 0 && alive && maxMs <= MAX_MS ? 0 : 1);
