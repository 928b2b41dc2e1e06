/**
 * Issue 15, "Recompute cost as the catalogue grows": for N synthetic specs (20 synthetic providers
 * each, 24 h of 20-minute samples; bench/catalogue.ts), measured on this machine:
 *  - generating the catalogue (specs and samples, through the store's append);
 *  - the service as a child process (`citebench serve --simulate`, harness off, on the generated
 *    DATA_DIR): spawn to the first 200 on /healthz (start-up freezes yesterday's snapshot first),
 *    the first /api/citable (cold: every Stat computed), RSS (VmRSS, and the peak VmHWM) after it
 *    and after a 5 s wrk run on /api/stat;
 *  - a full recompute, in process (the child owns the DuckDB file and has no write endpoint): the
 *    same service built by createService on the same folders, one new sample written for every spec
 *    through its store (every Stat and the index go stale, as each does every 60 s anyway), then
 *    /api/citable's computation timed;
 *  - cached reads during a recompute: wrk (a separate process) on one cached /api/stat view of that
 *    in-process service, once idle and once while full recomputes run back to back (every spec but
 *    the one wrk reads is touched before each, so wrk measures cached reads, not that one recompute).
 * Targets at N = 1000: recompute < 10 s, RSS < 1 GB, cached-read p99 unaffected.
 * CATALOGUE_MODE=window generates window-mode specs instead (bench/catalogue.ts, family
 * synthetic-window: one latency per provider per cycle on one cell, as many value samples as the
 * latest-mode catalogue), to price the window derivation per spec (issue 24: its full recompute at
 * N = 1000 may grow by less than 20% with intervals and the paired tests against the leader).
 *
 * Run: npm run bench:catalogue   (CATALOGUE_N=10,100 to choose, CATALOGUE_MODE=window; needs /usr/bin/wrk)
 * Writes bench/results/catalogue-scale.json (catalogue-scale-window.json in window mode).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { testConfig } from '../src/config.ts';
import { registerSyntheticProviders } from '../src/core/providers.ts';
import { ORIGIN_LABEL, SIMULATED_ORIGIN } from '../src/core/sample-origin.ts';
import type { Sample } from '../src/core/samples.ts';
import { createLogger } from '../src/log.ts';
import { defaultRoutes } from '../src/routes.ts';
import { createService, type Service } from '../src/service.ts';
import { freePort } from '../test/helpers/service-process.ts';
import {
  CATALOGUE_CELL,
  type CatalogueMode,
  catalogueLatencyMetric,
  catalogueMetric,
  catalogueProbeMetric,
  catalogueSlug,
  writeCatalogue,
} from './catalogue.ts';
import { runWrk, writeResults } from './wrk-lib.ts';

const PROVIDERS = 20;
const HOURS = 24;
const STEP_MINUTES = 20;
const WRK_SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
/** Per-N bound: a run past it is killed and reported as such. */
const LIMIT_MS = Number(process.env.CATALOGUE_LIMIT_S ?? 240) * 1000;
const NS = (process.env.CATALOGUE_N ?? '10,100,1000').split(',').map(Number);
/** Full recomputes timed on the idle service; the median is reported. */
const RECOMPUTES = Number(process.env.CATALOGUE_RECOMPUTES ?? 5);
const MODE: CatalogueMode = process.env.CATALOGUE_MODE === 'window' ? 'window' : 'latest';
const ROOT = new URL('..', import.meta.url).pathname;
const BIN = join(ROOT, 'bin/citebench.mjs');

const children = new Set<ChildProcess>();
const dirs = new Set<string>();
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    for (const c of children) c.kill('SIGKILL');
    void Promise.all([...dirs].map((d) => rm(d, { recursive: true, force: true }))).finally(() =>
      process.exit(1),
    );
  });
}

class Timeout extends Error {}

/** Rejects with Timeout once the N's deadline passes (the work itself is not cancelled). */
function bounded<T>(p: Promise<T>, deadline: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(
      () => reject(new Timeout(`${what}: time limit reached`)),
      Math.max(0, deadline - Date.now()),
    );
    p.then(resolve, reject).finally(() => clearTimeout(t));
  });
}

function procStatus(pid: number): { rssMb: number; hwmMb: number } {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(s)?.[1] ?? 0);
  return { rssMb: kb('VmRSS') / 1024, hwmMb: kb('VmHWM') / 1024 };
}

/** Milliseconds until `url` answers 200 (polling every 10 ms). */
async function until200(url: string, deadline: number): Promise<number> {
  const t0 = performance.now();
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.status === 200) return performance.now() - t0;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Timeout(`${url}: no 200 within the time limit`);
}

/** Duration of one GET, asserting 200. */
async function timedGet(url: string): Promise<{ ms: number; bytes: number }> {
  const t0 = performance.now();
  const res = await fetch(url);
  const body = await res.arrayBuffer();
  if (res.status !== 200)
    throw new Error(`${url}: ${res.status} ${Buffer.from(body).toString().slice(0, 200)}`);
  return { ms: performance.now() - t0, bytes: body.byteLength };
}

interface WrkResult {
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** Socket errors plus non-2xx/3xx answers. */
  readonly errors: number;
}

/** wrk in its own process (bench/wrk-lib.ts; asynchronous: the service under test may run in this one). */
async function wrk(url: string, seconds: number): Promise<WrkResult> {
  const r = await runWrk({ url, duration: `${seconds}s`, connections: 32 });
  return { rps: r.rps, p50Ms: r.p50Ms, p99Ms: r.p99Ms, maxMs: r.maxMs, errors: r.errors + r.non2xx };
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const hard = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(hard);
      children.delete(child);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

interface ChildResult {
  startupMs: number;
  firstCitableMs: number;
  citableBytes: number;
  rssAfterCitableMb: number;
  rssAfterLoadMb: number;
  peakRssMb: number;
  wrk: WrkResult;
}

/** The service as operators run it: its own process, on the generated folders. */
async function measureChild(
  benchmarksDir: string,
  dataDir: string,
  slug: string,
  deadline: number,
): Promise<ChildResult> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const t0 = performance.now();
  // bin/citebench.mjs registers tsx in-process, so child.pid is the node process that serves.
  const child = spawn(process.execPath, [BIN, 'serve', '--simulate'], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      BENCHMARKS_DIR: benchmarksDir,
      DATA_DIR: dataDir,
      CITEBENCH_SYNTHETIC_PROVIDERS: String(PROVIDERS),
      HARNESS_ENABLED: 'false',
      LOG_LEVEL: 'error',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.add(child);
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  try {
    const exited = new Promise<never>((_, reject) =>
      child.once('exit', (code) => reject(new Error(`service exited (${code}): ${stderr.trim()}`))),
    );
    exited.catch(() => undefined);
    await Promise.race([until200(`${base}/healthz`, deadline), exited]);
    const startupMs = performance.now() - t0;
    const first = await bounded(Promise.race([timedGet(`${base}/api/citable`), exited]), deadline, 'citable');
    const pid = child.pid as number;
    const afterCitable = procStatus(pid);
    await timedGet(`${base}/api/stat/${slug}`);
    const w = await bounded(wrk(`${base}/api/stat/${slug}`, WRK_SECONDS), deadline, 'wrk');
    const afterLoad = procStatus(pid);
    return {
      startupMs,
      firstCitableMs: first.ms,
      citableBytes: first.bytes,
      rssAfterCitableMb: afterCitable.rssMb,
      rssAfterLoadMb: afterLoad.rssMb,
      peakRssMb: afterLoad.hwmMb,
      wrk: w,
    };
  } finally {
    await stopChild(child);
  }
}

/** One new sample per provider for every spec but `except`, at `t` (window mode: a latency and its probe). */
function touch(n: number, t: number, except: number | null): Sample[] {
  const out: Sample[] = [];
  for (let i = 1; i <= n; i++) {
    if (i === except) continue;
    for (let j = 1; j <= PROVIDERS; j++) {
      const provider = `synthetic-${String(j).padStart(2, '0')}`;
      if (MODE === 'window') {
        const labels = { provider, cell: CATALOGUE_CELL, [ORIGIN_LABEL]: SIMULATED_ORIGIN };
        out.push(
          { metric: catalogueLatencyMetric(i), labels, t, v: 20 + ((i * 31 + j * 7 + t / 60_000) % 200) },
          { metric: catalogueProbeMetric(i), labels, t, v: 1 },
        );
        continue;
      }
      out.push({
        metric: catalogueMetric(i),
        labels: { provider, [ORIGIN_LABEL]: SIMULATED_ORIGIN },
        t,
        v: 100 + ((i * 31 + j * 7 + t / 60_000) % 900),
      });
    }
  }
  return out;
}

interface InProcessResult {
  coldCitableMs: number;
  /** /api/citable after one new sample for every spec (every Stat and the index stale): the median run. */
  recomputeMs: number;
  /** Every such run, in order. */
  recomputeRunsMs: number[];
  /** /api/citable after every view aged past maxViewAgeMs (what happens every 60 s). */
  expiryRecomputeMs: number;
  idle: WrkResult;
  /** Cached view read while touch-and-recompute runs back to back (wrk's spec is never touched). */
  during: WrkResult;
  touchRecomputes: number;
  /** Mean /api/citable time of those recomputes, under the wrk load. */
  touchRecomputeUnderLoadMs: number;
  /** OG images re-rendered in the background after those touches (image service refresh). */
  ogRendersDuringTouch: number;
  /**
   * wrk on the last spec's view while, once a second, every view (that one too) ages past 60 s and
   * /api/citable recomputes them all: its max is how long a reader of an expired view waits.
   */
  duringExpiry: WrkResult;
  expiryRecomputes: number;
  expiryRecomputeUnderLoadMs: number;
  heapUsedMb: number;
  /** The same touch-and-recompute loop on a service with the JSON API only (no OG re-renders). */
  duringApiOnly?: WrkResult;
  apiOnlyRecomputes?: number;
  apiOnlyRecomputeUnderLoadMs?: number;
}

async function ogRenders(service: Service): Promise<number> {
  const m = await service.metrics.getSingleMetric('citebench_image_renders_total')?.get();
  return m?.values.find((v) => v.labels.kind === 'og')?.value ?? 0;
}

/** Runs `step` back to back until wrk ends; returns wrk's result, the steps and their mean time. */
async function wrkWhile(
  url: string,
  deadline: number,
  what: string,
  step: () => Promise<number>,
): Promise<{ w: WrkResult; steps: number; meanMs: number }> {
  let running = true;
  let steps = 0;
  let busyMs = 0;
  const loop = (async () => {
    while (running && Date.now() < deadline) {
      busyMs += await step();
      steps++;
    }
  })();
  const w = await bounded(wrk(url, WRK_SECONDS), deadline, what);
  running = false;
  await bounded(loop, deadline, `${what}: loop`);
  return { w, steps, meanMs: steps > 0 ? busyMs / steps : Number.NaN };
}

/**
 * The touch-and-recompute loop again on a service without the image, page and MCP routes: the
 * image service re-renders the OG image of every changed benchmark 500 ms after writes pause, so
 * this separates the recompute's own cost from those renders.
 */
async function measureApiOnly(
  n: number,
  benchmarksDir: string,
  dataDir: string,
  deadline: number,
): Promise<{ w: WrkResult; steps: number; meanMs: number }> {
  const service = await createService({
    config: testConfig({ port: 0, benchmarksDir, dataDir, logLevel: 'silent', simulated: true }),
    log: createLogger('silent'),
    routes: [],
  });
  try {
    const port = await service.listen();
    const url = `http://127.0.0.1:${port}/api/stat/${catalogueSlug(1)}`;
    await bounded(service.publication.citable(), deadline, 'api-only citable');
    await timedGet(url);
    let t = Date.now();
    return await wrkWhile(url, deadline, 'api-only wrk during recompute', async () => {
      t = Math.max(t + 1, Date.now());
      await service.store.append(touch(n, t, 1));
      const s = performance.now();
      await bounded(service.publication.citable(), deadline, 'api-only recompute');
      return performance.now() - s;
    });
  } finally {
    await service.close();
  }
}

async function measureInProcess(
  n: number,
  benchmarksDir: string,
  dataDir: string,
  deadline: number,
): Promise<InProcessResult> {
  let svc: Service | undefined;
  // Moved forward to age every view past maxViewAgeMs (60 s) without waiting for it.
  let clockOffset = 0;
  const clock = () => Date.now() + clockOffset;
  try {
    svc = await createService({
      config: testConfig({ port: 0, benchmarksDir, dataDir, logLevel: 'silent', simulated: true }),
      log: createLogger('silent'),
      routes: defaultRoutes,
      clock,
    });
    const service = svc;
    const pub = service.publication;
    const port = await service.listen();
    const statUrl = (i: number) => `http://127.0.0.1:${port}/api/stat/${catalogueSlug(i)}`;
    let t = clock();
    const nextT = () => {
      // Strictly increasing sample times, never ahead of the service's clock.
      t = Math.max(t + 1, clock());
      return t;
    };
    const timedCitable = async (what: string) => {
      const s = performance.now();
      await bounded(pub.citable(), deadline, what);
      return performance.now() - s;
    };

    const coldCitableMs = await timedCitable('cold citable');
    // Full recompute: every spec gets a sample, so every Stat and the index are stale. Repeated
    // RECOMPUTES times on an idle service, the median reported: one run varies by ±10% here.
    const recomputeRunsMs: number[] = [];
    for (let k = 0; k < RECOMPUTES; k++) {
      await service.store.append(touch(n, nextT(), null));
      recomputeRunsMs.push(await timedCitable('recompute'));
    }
    const sortedRuns = [...recomputeRunsMs].sort((a, b) => a - b);
    const recomputeMs = sortedRuns[Math.floor(sortedRuns.length / 2)] as number;
    clockOffset += 61_000;
    const expiryRecomputeMs = await timedCitable('expiry recompute');

    await timedGet(statUrl(1));
    const idle = await bounded(wrk(statUrl(1), WRK_SECONDS), deadline, 'wrk idle');

    const og0 = await ogRenders(service);
    const touchRun = await wrkWhile(statUrl(1), deadline, 'wrk during recompute', async () => {
      await service.store.append(touch(n, nextT(), 1));
      return timedCitable('recompute under load');
    });
    // The image service re-renders changed benchmarks' OG images 500 ms after writes pause: let it
    // finish (counted) so it does not overlap the next measurement.
    let og = await ogRenders(service);
    for (let settled = 0; settled < 2 && Date.now() < deadline; ) {
      await new Promise((r) => setTimeout(r, 500));
      const now = await ogRenders(service);
      settled = now === og ? settled + 1 : 0;
      og = now;
    }
    const ogRendersDuringTouch = og - og0;

    await timedGet(statUrl(n));
    const expiryRun = await wrkWhile(statUrl(n), deadline, 'wrk during expiry recompute', async () => {
      await new Promise((r) => setTimeout(r, 1000));
      clockOffset += 61_000;
      return timedCitable('expiry recompute under load');
    });
    return {
      coldCitableMs,
      recomputeMs,
      recomputeRunsMs,
      expiryRecomputeMs,
      idle,
      during: touchRun.w,
      touchRecomputes: touchRun.steps,
      touchRecomputeUnderLoadMs: touchRun.meanMs,
      ogRendersDuringTouch,
      duringExpiry: expiryRun.w,
      expiryRecomputes: expiryRun.steps,
      expiryRecomputeUnderLoadMs: expiryRun.meanMs,
      heapUsedMb: process.memoryUsage().heapUsed / 2 ** 20,
    };
  } finally {
    await svc?.close();
  }
}

interface Row {
  n: number;
  specs: number;
  samples: number;
  generateS: number;
  child?: ChildResult;
  inProcess?: InProcessResult;
  error?: string;
}

registerSyntheticProviders(PROVIDERS);
const machine = {
  cpu: cpus()[0]?.model ?? 'unknown',
  cores: cpus().length,
  node: process.version,
};
process.stderr.write(`machine: ${machine.cpu} × ${machine.cores}, node ${machine.node}; mode ${MODE}\n`);
const rows: Row[] = [];
for (const n of NS) {
  const deadline = Date.now() + LIMIT_MS;
  const dir = await mkdtemp(join(tmpdir(), `citebench-catalogue-${n}-`));
  dirs.add(dir);
  const row: Row = { n, specs: n, samples: 0, generateS: 0 };
  rows.push(row);
  try {
    process.stderr.write(`N=${n}: generating …\n`);
    const g0 = performance.now();
    const cat = await writeCatalogue({
      dir,
      n,
      providers: PROVIDERS,
      hours: HOURS,
      stepMinutes: STEP_MINUTES,
      now: Date.now(),
      mode: MODE,
    });
    row.generateS = (performance.now() - g0) / 1000;
    row.samples = cat.samples;
    process.stderr.write(
      `N=${n}: ${cat.samples} samples in ${row.generateS.toFixed(1)} s; child service …\n`,
    );
    row.child = await measureChild(cat.benchmarksDir, cat.dataDir, 'synthetic-0001', deadline);
    process.stderr.write(`N=${n}: in-process recompute …\n`);
    row.inProcess = await measureInProcess(n, cat.benchmarksDir, cat.dataDir, deadline);
    const apiOnly = await measureApiOnly(n, cat.benchmarksDir, cat.dataDir, deadline);
    row.inProcess.duringApiOnly = apiOnly.w;
    row.inProcess.apiOnlyRecomputes = apiOnly.steps;
    row.inProcess.apiOnlyRecomputeUnderLoadMs = apiOnly.meanMs;
  } catch (e) {
    row.error = e instanceof Error ? e.message : String(e);
    process.stderr.write(`N=${n}: ${row.error}\n`);
    if (e instanceof Timeout) {
      // Work still running in this process (a recompute) cannot be cancelled: stop here.
      break;
    }
  } finally {
    for (const c of children) await stopChild(c);
    await rm(dir, { recursive: true, force: true });
    dirs.delete(dir);
  }
}

const f = (x: number | undefined, digits = 1) =>
  x === undefined || Number.isNaN(x) ? '–' : x.toFixed(digits);
const s = (ms: number | undefined) => f(ms === undefined ? undefined : ms / 1000, 2);
const lines = [
  '| N | specs | samples | generate s | start-up s | first /api/citable s | full recompute s | RSS MB (after citable / after load / peak) | /api/stat p99 idle ms (req/s) | p99 during recompute ms (req/s) |',
  '| --: | --: | --: | --: | --: | --: | --: | --: | --: | --: |',
  ...rows.map((r) =>
    r.error && !r.inProcess
      ? `| ${r.n} | ${r.specs} | ${r.samples} | ${f(r.generateS)} | ${r.error} | | | | | |`
      : `| ${r.n} | ${r.specs} | ${r.samples.toLocaleString('en-US')} | ${f(r.generateS)} | ${s(r.child?.startupMs)} | ${s(r.child?.firstCitableMs)} | ${s(r.inProcess?.recomputeMs)} | ${f(r.child?.rssAfterCitableMb, 0)} / ${f(r.child?.rssAfterLoadMb, 0)} / ${f(r.child?.peakRssMb, 0)} | ${f(r.inProcess?.idle.p99Ms, 2)} (${f(r.inProcess?.idle.rps, 0)}) | ${f(r.inProcess?.during.p99Ms, 2)} (${f(r.inProcess?.during.rps, 0)}) |`,
  ),
];
process.stdout.write(
  `\nmachine: ${machine.cpu}, ${machine.cores} cores, node ${machine.node}; ${MODE}-mode specs; ${PROVIDERS} providers per spec, ${HOURS} h of ${STEP_MINUTES}-minute samples; wrk -t1 -c32 -d${WRK_SECONDS}s\n\n${lines.join('\n')}\n\n`,
);
for (const r of rows) {
  const c = r.child;
  const p = r.inProcess;
  if (!c || !p) continue;
  process.stdout.write(
    `${[
      `N=${r.n}: per spec: start-up ${f(c.startupMs / r.n, 2)} ms, first /api/citable ${f(c.firstCitableMs / r.n, 2)} ms, full recompute ${f(p.recomputeMs / r.n, 2)} ms`,
      `  full recompute runs: ${p.recomputeRunsMs.map((x) => s(x)).join(', ')} s (median above)`,
      `  in process: cold /api/citable ${s(p.coldCitableMs)} s, recompute after 60 s expiry ${s(p.expiryRecomputeMs)} s; child: /api/stat ${f(c.wrk.rps, 0)} req/s, p99 ${f(c.wrk.p99Ms, 2)} ms`,
      `  during recompute: ${p.touchRecomputes} touch+recompute cycles, ${s(p.touchRecomputeUnderLoadMs)} s each under load, max ${f(p.during.maxMs, 0)} ms; ${p.ogRendersDuringTouch} OG images re-rendered after them`,
      `  same loop, JSON API only (no OG re-renders): ${p.apiOnlyRecomputes} cycles, ${s(p.apiOnlyRecomputeUnderLoadMs)} s each under load; /api/stat p99 ${f(p.duringApiOnly?.p99Ms, 2)} ms, max ${f(p.duringApiOnly?.maxMs, 0)} ms (${f(p.duringApiOnly?.rps, 0)} req/s)`,
      `  every view expired once a second (${p.expiryRecomputes}×, recompute ${s(p.expiryRecomputeUnderLoadMs)} s under load): /api/stat/${catalogueSlug(r.n)} p99 ${f(p.duringExpiry.p99Ms, 2)} ms, max ${f(p.duringExpiry.maxMs, 0)} ms (${f(p.duringExpiry.rps, 0)} req/s)`,
    ].join('\n')}\n`,
  );
}
await writeResults(MODE === 'window' ? 'catalogue-scale-window' : 'catalogue-scale', {
  date: new Date().toISOString(),
  machine,
  mode: MODE,
  providers: PROVIDERS,
  hours: HOURS,
  stepMinutes: STEP_MINUTES,
  wrkSeconds: WRK_SECONDS,
  rows,
});
process.exit(rows.some((r) => r.error) ? 1 : 0);
