/**
 * History and open-data targets, measured in one run on this machine with 90 days of history:
 *  - GET /api/series/{slug}?range=90d: cold computation time (in process, first call, both
 *    benchmarks) and cached req/s at 32 connections against /api/stat in the same run;
 *  - `citebench export` of 90 days (Parquet and CSV): wall time and peak RSS of the process, first
 *    run (freezes every closed day into the store) and second run (reads the frozen files).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { testConfig } from '../src/config.ts';
import { dayStart } from '../src/core/dates.ts';
import { buildDataset } from '../src/demo/dataset.ts';
import { loadSpecs } from '../src/publication/load-specs.ts';
import { createPublication } from '../src/publication/publication.ts';
import { openDuckDbStore } from '../src/store/duckdb-store.ts';
import { load, rssMb, spawnNode, stop, table, waitFor200 } from './lib.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 32;
const PORT = 18_900 + Math.floor(Math.random() * 400);
const DAY = 86_400_000;

const dir = await mkdtemp(join(tmpdir(), 'citebench-series-'));
process.stderr.write(`bench: building 90 days of history in ${dir} …\n`);
const now = Date.now();
const samples = buildDataset({ seed: 1, days: 90, end: now });
{
  const seed = await openDuckDbStore({ path: join(dir, 'citebench.duckdb') });
  await seed.append(samples);
  await seed.close();
}

/** Peak RSS (VmHWM) of a child, polled until it exits. */
function peakRss(child: ChildProcess): Promise<{ ms: number; peakMb: number; code: number | null }> {
  const t0 = performance.now();
  let peak = 0;
  const timer = setInterval(() => {
    try {
      const s = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      peak = Math.max(peak, Number(/VmHWM:\s+(\d+)/.exec(s)?.[1] ?? 0) / 1024);
    } catch {
      // exited between polls
    }
  }, 20);
  return new Promise((resolve) => {
    child.once('exit', (code) => {
      clearInterval(timer);
      resolve({ ms: performance.now() - t0, peakMb: peak, code });
    });
  });
}

const from = new Date(dayStart(now) - 90 * DAY).toISOString().slice(0, 10);
const to = new Date(dayStart(now)).toISOString().slice(0, 10);
const exports: (string | number)[][] = [['export 90 days', 'wall s', 'peak RSS MB', 'files']];
for (const run of ['first (freezes)', 'second (frozen)']) {
  const out = join(dir, `export-${exports.length}`);
  const child = spawn(
    process.execPath,
    ['bin/citebench.mjs', 'export', '--from', from, '--to', to, '--out', out],
    { env: { ...process.env, DATA_DIR: dir, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'ignore', 'ignore'] },
  );
  const r = await peakRss(child);
  if (r.code !== 0) throw new Error(`export exited with ${r.code}`);
  exports.push([run, r.ms / 1000, r.peakMb, (await readdir(out)).length]);
}

// Cold series computation, in process: the first call of each benchmark reads the store once and
// evaluates 91 daily points.
const cold: (string | number)[][] = [['cold /api/series?range=90d', 'ms', 'points × providers']];
{
  const store = await openDuckDbStore({ path: join(dir, 'citebench.duckdb') });
  const pub = createPublication({
    specs: await loadSpecs('benchmarks'),
    store,
    config: testConfig({ baseUrl: 'http://bench.test' }),
  });
  for (const slug of ['network-coverage', 'token-trade-coverage']) {
    const t0 = performance.now();
    const s = (await pub.series(slug, null, '90d', null)).value;
    cold.push([slug, performance.now() - t0, `${s.timestamps.length} × ${s.providers.length}`]);
  }
  const t0 = performance.now();
  await pub.stat('token-trade-coverage', null);
  cold.push(['(cold /api/stat token-trade-coverage, same store)', performance.now() - t0, '']);
  pub.close();
  await store.close();
}

const child = spawnNode(['--import', 'tsx', 'src/main.ts'], {
  PORT: String(PORT),
  DATA_DIR: dir,
  LOG_LEVEL: 'warn',
  HARNESS_ENABLED: 'false',
});
const base = `http://127.0.0.1:${PORT}`;
await waitFor200(`${base}/api/stat/network-coverage`, 60_000);
const httpCold = await waitFor200(`${base}/api/series/token-trade-coverage?range=90d`, 60_000);
cold.push(['token-trade-coverage over HTTP, server just started', httpCold, '']);
const loads: (string | number)[][] = [['cached, 32 connections', 'req/s', 'p50 ms', 'p99 ms', 'errors']];
for (const path of [
  '/api/stat/token-trade-coverage',
  '/api/series/token-trade-coverage?range=90d',
  '/api/series/network-coverage?range=90d',
]) {
  await waitFor200(`${base}${path}`, 10_000);
  const r = await load(`${base}${path}`, CONNECTIONS, SECONDS);
  loads.push([path, r.rps, r.p50, r.p99, r.errors + r.non2xx]);
}
const rss = rssMb(child.pid as number);
await stop(child);
await rm(dir, { recursive: true, force: true });

process.stdout.write(
  `\nmachine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}; ${samples.length} samples (90 days); ${SECONDS}s per load run\n\n${table(cold)}\n\n${table(loads)}\nserver RSS after load: ${rss.toFixed(0)} MB\n\n${table(exports)}\n`,
);
