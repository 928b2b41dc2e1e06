/**
 * Publication-service targets, measured in one run on this machine:
 *  - /api/stat/{slug} and /api/citable at 32 connections vs a bare node:http server returning the
 *    same bytes (ratio ≥ 0.70; p99 < 10 ms);
 *  - new samples visible in /api/stat within 1 s of being written;
 *  - cold start to first 200 with 90 days of history (< 2 s) and RSS (< 250 MB).
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { testConfig } from '../src/config.ts';
import { buildDataset } from '../src/demo/dataset.ts';
import { METRICS } from '../src/harness/families/metric-names.ts';
import { createLogger } from '../src/log.ts';
import { createService } from '../src/service.ts';
import { openDuckDbStore } from '../src/store/duckdb-store.ts';
import { load, rssMb, spawnNode, stop, table, waitFor200 } from './lib.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 32;
const PORT = 18_500 + Math.floor(Math.random() * 400);
const BARE_PORT = PORT + 1;

const dir = await mkdtemp(join(tmpdir(), 'citebench-bench-'));
process.stderr.write(`bench: building 90 days of history in ${dir} …\n`);
const seedStore = await openDuckDbStore({ path: join(dir, 'citebench.duckdb') });
const samples = buildDataset({ seed: 1, days: 90, end: Date.now() });
await seedStore.append(samples);
await seedStore.close();

// Cold start: spawn to first 200 on /api/stat, then RSS after the first views are built.
const t0 = performance.now();
const child = spawnNode(['--import', 'tsx', 'src/main.ts'], {
  PORT: String(PORT),
  DATA_DIR: dir,
  LOG_LEVEL: 'warn',
  // Measure the API alone; the harness would also try to reach the real providers.
  HARNESS_ENABLED: 'false',
});
const coldMs = await waitFor200(`http://127.0.0.1:${PORT}/api/stat/network-coverage`, 30_000);
void t0;
await waitFor200(`http://127.0.0.1:${PORT}/api/citable`, 5_000);
const rssCold = rssMb(child.pid as number);

/**
 * A first start freezes every older closed day (and its dataset files) in the background; the
 * throughput runs measure the steady state, so they start once the process is idle (CPU < 10% over
 * half a second), and the time that took is reported.
 */
async function waitIdle(pid: number, timeoutMs: number): Promise<number> {
  const ticks = () => {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return Number(f[11]) + Number(f[12]);
  };
  const start = performance.now();
  let prev = ticks();
  while (performance.now() - start < timeoutMs) {
    await new Promise((r) => setTimeout(r, 500));
    const now = ticks();
    if (now - prev < 5) break;
    prev = now;
  }
  return performance.now() - start;
}
const settleMs = await waitIdle(child.pid as number, 120_000);
process.stderr.write(
  `bench: background freezing of the first start took ${(settleMs / 1000).toFixed(1)} s\n`,
);

const results: (string | number)[][] = [
  ['endpoint', 'citebench req/s', 'bare req/s', 'ratio', 'p50 ms', 'p99 ms', 'errors'],
];
let worstRatio = Number.POSITIVE_INFINITY;
let worstP99 = 0;
for (const path of [
  '/api/stat/network-coverage',
  '/api/stat/token-trade-coverage?chain=solana',
  '/api/citable',
]) {
  const url = `http://127.0.0.1:${PORT}${path}`;
  const res = await fetch(url);
  const file = join(dir, 'body.json');
  await writeFile(file, Buffer.from(await res.arrayBuffer()));
  const bare = spawnNode(['--import', 'tsx', 'bench/bare-server.ts', file, String(BARE_PORT)], {});
  await waitFor200(`http://127.0.0.1:${BARE_PORT}/`, 10_000);
  const ours = await load(url, CONNECTIONS, SECONDS);
  const base = await load(`http://127.0.0.1:${BARE_PORT}/`, CONNECTIONS, SECONDS);
  await stop(bare);
  const ratio = ours.rps / base.rps;
  worstRatio = Math.min(worstRatio, ratio);
  worstP99 = Math.max(worstP99, ours.p99);
  results.push([path, ours.rps, base.rps, ratio, ours.p50, ours.p99, ours.errors + ours.non2xx]);
}
const rssLoaded = rssMb(child.pid as number);
await stop(child);

// Visibility: append through the store, read through HTTP, in one process.
const svc = await createService({
  config: testConfig({ port: 0, logLevel: 'silent' }),
  log: createLogger('silent'),
  inMemory: true,
});
await svc.store.append(buildDataset({ seed: 2, days: 3, end: Date.now() }));
const port = await svc.listen();
const statUrl = `http://127.0.0.1:${port}/api/stat/network-coverage`;
await (await fetch(statUrl)).arrayBuffer();
const visibility: number[] = [];
for (let i = 0; i < 20; i++) {
  const v = 100_000 + i;
  const written = performance.now();
  await svc.store.append([
    { metric: METRICS.networksSupported, labels: { provider: 'codex' }, t: Date.now(), v },
  ]);
  for (;;) {
    const stat = (await (await fetch(statUrl)).json()) as { value: number };
    if (stat.value === v) break;
  }
  visibility.push(performance.now() - written);
}
await svc.close();
visibility.sort((a, b) => a - b);

const summary = [
  ['target', 'measured', 'goal', 'ok'],
  ['worst throughput ratio vs bare node:http', worstRatio, '>= 0.70', worstRatio >= 0.7 ? 'yes' : 'NO'],
  ['worst p99 latency (ms) at 32 connections', worstP99, '< 10', worstP99 < 10 ? 'yes' : 'NO'],
  [
    'new sample visible in /api/stat, max of 20 (ms)',
    visibility.at(-1) ?? 0,
    '< 1000',
    (visibility.at(-1) ?? 0) < 1000 ? 'yes' : 'NO',
  ],
  ['cold start to first 200, 90 days (ms)', coldMs, '< 2000', coldMs < 2000 ? 'yes' : 'NO'],
  ['RSS after first views (MB)', rssCold, '< 250', rssCold < 250 ? 'yes' : 'NO'],
  ['RSS after load (MB)', rssLoaded, '< 250', rssLoaded < 250 ? 'yes' : 'NO'],
];
process.stdout.write(
  `\nmachine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}; ${samples.length} samples (90 days); ${SECONDS}s per load run, ${CONNECTIONS} connections\n\n${table(results)}\n\n${table(summary)}\n`,
);
