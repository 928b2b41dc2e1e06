/**
 * What one request of each expensive class costs the event loop (npm run bench:loop-holds): the
 * longest stretch it held the loop, and its loop time. The service in-process (in-memory store,
 * 7 days of demo samples, fixed clock, closed days frozen, no prewarm), each request of the burst
 * mix (bench/expensive-burst.ts) asked once cold and once warm through app.request (routing and
 * computation; no socket, so no parsing). The longest block is the largest delay of a 1 ms timer
 * (monitorEventLoopDelay); the loop time is eventLoopUtilization's active time. Work on worker threads is not the loop's. Speaks only APIs
 * older revisions have, so `git worktree` + this script measures the code before too.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { testConfig } from '../src/config.ts';
import { buildDataset } from '../src/demo/dataset.ts';
import { createLogger } from '../src/log.ts';
import { defaultRoutes } from '../src/routes.ts';
import { createService } from '../src/service.ts';
import { machine, machineLine, markdownTable } from './wrk-lib.ts';

const DAY = 86_400_000;
const NOW = Math.floor(Date.now() / DAY) * DAY + 12 * 3_600_000;
const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  host: 'bench.test',
};

interface Hold {
  readonly maxBlockMs: number;
  readonly activeMs: number;
}

async function measure(fn: () => Promise<unknown>): Promise<Hold> {
  // A 1 ms timer's delay, not a setImmediate spin: a spin would itself fill the loop while a
  // request waits on a worker, and be counted as the request's loop time.
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  const elu0 = performance.eventLoopUtilization();
  await fn();
  const activeMs = performance.eventLoopUtilization(elu0).active;
  h.disable();
  // A block is never longer than the loop's active time: beyond it, the delay was the process
  // waiting for a core (a shared VM), not the loop holding.
  return { maxBlockMs: Math.min(h.count > 0 ? h.max / 1e6 : activeMs, activeMs), activeMs };
}

const service = await createService({
  config: testConfig({
    port: 0,
    baseUrl: 'http://bench.test',
    logLevel: 'silent',
    simulated: true,
    mcpRateLimitPerMin: 1e6,
  }),
  log: createLogger('silent'),
  inMemory: true,
  clock: () => NOW,
  routes: defaultRoutes,
});
await service.store.append(buildDataset({ seed: 7, days: 7, end: NOW }));
await service.publication.freezeClosedDays();
// Background work after the appends (today's dataset files, the freeze's follow-ups) would be
// counted against the first requests: wait until the loop has been idle for half a second.
for (let i = 0; i < 60; i++) {
  const e0 = performance.eventLoopUtilization();
  await new Promise((r) => setTimeout(r, 500));
  if (performance.eventLoopUtilization(e0).utilization < 0.02) break;
}
const app = service.app;
const get = async (path: string, init?: RequestInit) => {
  const res = await app.request(path, init);
  await res.arrayBuffer();
  return res.status;
};
const json = async <T>(path: string): Promise<T> => (await (await app.request(path)).json()) as T;

const slugs = (await json<{ benchmarks: { slug: string }[] }>('/api/citable')).benchmarks.map((b) => b.slug);
const providers = new Map<string, string[]>();
const chains = new Map<string, string[]>();
for (const slug of slugs) {
  const stat = await json<{
    rankings?: { slug: string }[];
    dimensions?: Record<string, { value: string }[]>;
  }>(`/api/stat/${slug}`);
  providers.set(
    slug,
    (stat.rankings ?? []).map((r) => r.slug),
  );
  chains.set(
    slug,
    (stat.dimensions?.chain ?? []).map((v) => v.value),
  );
}
const day = new Date(NOW - DAY).toISOString().slice(0, 10);
const pairs = [...providers.values()].filter((l) => l.length >= 2).map((l) => `${l[0]}/${l[1]}`);
const promql = (n: number) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: n,
    method: 'tools/call',
    params: {
      name: 'query_prom',
      arguments: {
        // A different window end each time: no answer is reused.
        query: `avg by (provider) (avg_over_time(token_trade_capture_pct[6h])) + ${n} * 0`,
        windowSec: 604_800,
        steps: 360,
      },
    },
  });

const CLASSES: Record<string, (() => Promise<number>)[]> = {
  promql: [1, 2, 3, 4].map(
    (n) => () => get('/api/mcp/mcp', { method: 'POST', headers: MCP_HEADERS, body: promql(n) }),
  ),
  og: slugs.map((s) => () => get(`/api/og/${s}`)),
  svg: slugs.map((s, i) => () => get(`/api/sparkline/${s}?w=${200 + i * 10}&h=${40 + i}`)),
  series: [
    ...slugs.map((s) => () => get(`/api/series/${s}?range=90d`)),
    ...slugs.flatMap((s) =>
      (chains.get(s) ?? []).slice(0, 2).map((c) => () => get(`/api/series/${s}?range=30d&chain=${c}`)),
    ),
  ],
  dataset: [() => get(`/api/dataset/${day}.csv`)],
  frozen: [() => get(`/api/citable/${day}`), ...slugs.map((s) => () => get(`/api/stat/${s}?date=${day}`))],
  audit: slugs.flatMap((s) =>
    (providers.get(s) ?? []).slice(0, 3).map((p) => () => get(`/api/audit/${s}/${p}`)),
  ),
  compare: pairs.flatMap((p) => [
    () => get(`/api/compare/${p}`),
    () => get(`/compare/${p.replace('/', '-vs-')}`),
  ]),
  page: slugs.map((s) => () => get(`/benchmarks/${s}`)),
  metrics: [() => get('/metrics'), () => get('/metrics')],
};

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const f = (n: number) => n.toFixed(2);
const rows: (string | number)[][] = [
  [
    'class',
    'requests',
    'cold: longest hold p50 / max (ms)',
    'cold: loop time p50 (ms)',
    'warm: longest hold max (ms)',
    'status',
  ],
];
const results: Record<string, unknown> = {};
// CLASSES=og,dataset measures only those (e.g. under --cpu-prof).
const only = process.env.CLASSES?.split(',');
for (const [name, reqs] of Object.entries(CLASSES)) {
  if (only && !only.includes(name)) continue;
  // LOOP_PROF=<file> writes a CPU profile of the classes measured (with CLASSES=…), requests only.
  const session = process.env.LOOP_PROF ? new Session() : null;
  if (session) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
  const cold: Hold[] = [];
  const warm: Hold[] = [];
  const statuses = new Set<number>();
  for (const r of reqs) {
    let status = 0;
    cold.push(await measure(async () => (status = await r())));
    statuses.add(status);
    warm.push(await measure(async () => (status = await r())));
  }
  if (session) {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(`${process.env.LOOP_PROF}.${name}.cpuprofile`, JSON.stringify(profile));
    session.disconnect();
  }
  rows.push([
    name,
    reqs.length,
    `${f(p50(cold.map((h) => h.maxBlockMs)))} / ${f(Math.max(...cold.map((h) => h.maxBlockMs)))}`,
    f(p50(cold.map((h) => h.activeMs))),
    f(Math.max(...warm.map((h) => h.maxBlockMs))),
    [...statuses].join(','),
  ]);
  results[name] = { cold, warm };
}
const m = machine();
process.stdout.write(
  `${machineLine(m)}\n${process.version}; 7 days of demo samples; each request once cold, once warm\n\n`,
);
process.stdout.write(`${markdownTable(rows)}\n`);
await service.close();
