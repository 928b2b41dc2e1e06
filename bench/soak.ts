/**
 * Soak under writes (npm run bench:soak): the demo at DEMO_SPEED=600 (SOAK_SPEED), so the harness
 * writes a token-trade cycle every 3 s and a network cycle every 36 s, under a fixed-rate mixed load
 * of every endpoint (SOAK_RPS, default 100 requests/s, open loop: a slow answer does not slow the
 * sender) for SOAK_MINUTES (default 10). Every minute: requests, errors, p50/p99 per endpoint, RSS
 * and the DuckDB file size. At the end: whether RSS is flat after warm-up (growth under 20 MB over
 * the last half). A load generator of this rate costs little CPU, so it runs here in Node; wrk has
 * no fixed-rate mode.
 */
import { mkdtemp, stat } from 'node:fs/promises';
import { cpus, release, tmpdir } from 'node:os';
import { join } from 'node:path';
import { rssMb, spawnNode, stop, table, waitFor200 } from './lib.ts';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 10);
const RPS = Number(process.env.SOAK_RPS ?? 100);
const SPEED = process.env.SOAK_SPEED ?? '600';
const PORT = 18_700 + Math.floor(Math.random() * 90);
const BASE = `http://127.0.0.1:${PORT}`;
const MAX_IN_FLIGHT = 200;

process.stdout.write(
  `machine: ${cpus()[0]?.model ?? '?'} × ${cpus().length}, node ${process.version}, linux ${release()}\n`,
);
process.stdout.write(`soak: ${MINUTES} min at ${RPS} req/s, DEMO_SPEED=${SPEED}\n`);

const day = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
const mcp = (args: object) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: args }),
});
const ENDPOINTS: ReadonlyArray<{
  name: string;
  path: () => string;
  init?: () => RequestInit;
  weight: number;
}> = [
  { name: 'stat', path: () => '/api/stat/token-trade-coverage?chain=solana', weight: 20 },
  { name: 'stat-net', path: () => '/api/stat/network-coverage', weight: 10 },
  { name: 'citable', path: () => '/api/citable', weight: 10 },
  { name: 'citable-day', path: () => `/api/citable/${day(1 + Math.floor(Math.random() * 2))}`, weight: 4 },
  { name: 'compare', path: () => '/api/compare/mobula/codex', weight: 4 },
  { name: 'audit', path: () => '/api/audit/token-trade-coverage/mobula', weight: 4 },
  { name: 'og', path: () => '/api/og/token-trade-coverage', weight: 4 },
  {
    name: 'sparkline',
    path: () => `/api/sparkline/network-coverage?w=${200 + Math.floor(Math.random() * 100)}&h=60`,
    weight: 4,
  },
  { name: 'cite', path: () => '/api/cite/network-coverage/bib', weight: 3 },
  { name: 'llm-context', path: () => '/api/llm-context', weight: 3 },
  { name: 'freshness', path: () => '/api/freshness', weight: 3 },
  { name: 'featured', path: () => '/api/search/featured', weight: 3 },
  { name: 'page', path: () => '/benchmarks/token-trade-coverage', weight: 3 },
  { name: 'metrics', path: () => '/metrics', weight: 2 },
  { name: 'openapi', path: () => '/api/openapi.json', weight: 1 },
  {
    name: 'mcp-get',
    path: () => '/api/mcp/mcp',
    init: () => mcp({ name: 'get_benchmark', arguments: { slug: 'token-trade-coverage' } }),
    weight: 4,
  },
  {
    name: 'mcp-promql',
    path: () => '/api/mcp/mcp',
    init: () =>
      mcp({
        name: 'query_prom',
        arguments: {
          query: 'avg by (provider) (avg_over_time(token_trade_capture_pct[6h]))',
          windowSec: 86_400,
        },
      }),
    weight: 2,
  },
];
const totalWeight = ENDPOINTS.reduce((a, e) => a + e.weight, 0);

interface Window {
  readonly lat: Map<string, number[]>;
  readonly errors: Map<string, number>;
}
const newWindow = (): Window => ({ lat: new Map(), errors: new Map() });
let win = newWindow();
const totals = { requests: 0, errors: 0, dropped: 0 };
const allLat = new Map<string, number[]>();
let inFlight = 0;

function pct(xs: number[], q: number): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] as number;
}

function pickEndpoint(at: number): (typeof ENDPOINTS)[number] {
  let left = at;
  for (const e of ENDPOINTS) {
    left -= e.weight;
    if (left < 0) return e;
  }
  return ENDPOINTS[0] as (typeof ENDPOINTS)[number];
}

async function one(): Promise<void> {
  const e = pickEndpoint(Math.random() * totalWeight);
  if (inFlight >= MAX_IN_FLIGHT) {
    totals.dropped++;
    return;
  }
  inFlight++;
  const w = win;
  const t0 = performance.now();
  let ok = false;
  try {
    const res = await fetch(`${BASE}${e.path()}`, {
      ...(e.init?.() ?? {}),
      signal: AbortSignal.timeout(10_000),
    });
    const body = await res.text();
    // MCP errors travel in 200s; a tool error here is a failure of the service too.
    ok = res.status === 200 && !(e.name.startsWith('mcp') && body.includes('"isError":true'));
  } catch {
    ok = false;
  }
  const ms = performance.now() - t0;
  inFlight--;
  totals.requests++;
  (w.lat.get(e.name) ?? w.lat.set(e.name, []).get(e.name))?.push(ms);
  (allLat.get(e.name) ?? allLat.set(e.name, []).get(e.name))?.push(ms);
  if (!ok) {
    totals.errors++;
    w.errors.set(e.name, (w.errors.get(e.name) ?? 0) + 1);
  }
}

const dir = await mkdtemp(join(tmpdir(), 'citebench-soak-'));
const db = join(dir, 'citebench.duckdb');
const child = spawnNode(['--import', 'tsx', 'src/demo/main.ts'], {
  PORT: String(PORT),
  BASE_URL: BASE,
  DATA_DIR: dir,
  LOG_LEVEL: 'warn',
  DEMO_SPEED: SPEED,
  // Every request comes from 127.0.0.1: the per-IP MCP limit (120/min) would answer most with 429.
  MCP_RATE_LIMIT_PER_MIN: '100000',
});
process.stderr.write('waiting for the demo backfill …\n');
await waitFor200(`${BASE}/healthz`, 180_000);

const size = async (p: string) => (await stat(p).catch(() => ({ size: 0 }))).size / 1_048_576;
const rssSeries: Array<{ t: number; mb: number }> = [];
const start = Date.now();
const end = start + MINUTES * 60_000;
const interval = 1000 / RPS;
let nextAt = performance.now();
const sender = setInterval(() => {
  // Catch up on ticks the timer could not honour, so the rate stays fixed.
  const now = performance.now();
  while (nextAt <= now) {
    void one();
    nextAt += interval;
  }
}, 5);
const sampler = setInterval(
  () => rssSeries.push({ t: Date.now() - start, mb: rssMb(child.pid as number) }),
  5000,
);

for (let minute = 1; Date.now() < end; minute++) {
  await new Promise((r) => setTimeout(r, Math.min(60_000, end - Date.now())));
  const w = win;
  win = newWindow();
  const rows: (string | number)[][] = [['endpoint', 'n', 'errors', 'p50 ms', 'p99 ms']];
  for (const e of ENDPOINTS) {
    const l = w.lat.get(e.name) ?? [];
    rows.push([e.name, String(l.length), String(w.errors.get(e.name) ?? 0), pct(l, 0.5), pct(l, 0.99)]);
  }
  process.stdout.write(
    `\n— minute ${minute}: RSS ${rssMb(child.pid as number).toFixed(0)} MB, DuckDB ${(await size(db)).toFixed(2)} MB + WAL ${(await size(`${db}.wal`)).toFixed(2)} MB, requests ${totals.requests}, errors ${totals.errors}, dropped ${totals.dropped}\n${table(rows)}\n`,
  );
}
clearInterval(sender);
clearInterval(sampler);
await new Promise((r) => setTimeout(r, 2000));

const half = (MINUTES * 60_000) / 2;
const secondHalf = rssSeries.filter((s) => s.t >= half);
const firstOfHalf = secondHalf[0]?.mb ?? 0;
const lastRss = secondHalf.at(-1)?.mb ?? 0;
const maxRss = Math.max(...secondHalf.map((s) => s.mb));
const drift = lastRss - firstOfHalf;
const rows: (string | number)[][] = [['endpoint', 'n', 'p50 ms', 'p99 ms']];
for (const e of ENDPOINTS) {
  const l = allLat.get(e.name) ?? [];
  rows.push([e.name, String(l.length), pct(l, 0.5), pct(l, 0.99)]);
}
process.stdout.write(
  `\n=== whole run: ${MINUTES} min, ${totals.requests} requests, ${totals.errors} errors, ${totals.dropped} not sent (over ${MAX_IN_FLIGHT} in flight)\n${table(rows)}\n`,
);
process.stdout.write(
  `RSS over the last half: ${firstOfHalf.toFixed(0)} → ${lastRss.toFixed(0)} MB (max ${maxRss.toFixed(0)}), drift ${drift >= 0 ? '+' : ''}${drift.toFixed(1)} MB: ${drift < 20 ? 'flat (< 20 MB)' : 'GROWING'}\n`,
);
process.stdout.write(
  `DuckDB ${(await size(db)).toFixed(2)} MB + WAL ${(await size(`${db}.wal`)).toFixed(2)} MB\n`,
);
await stop(child);
process.exit(totals.errors === 0 && drift < 20 ? 0 : 1);
