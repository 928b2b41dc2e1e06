/**
 * Harness bench: (1) one token-trade cycle over 10 cells × 3 providers with 50,000 trades per cell
 * (simulator in a child process): peak RSS growth of the harness process (sampled every 50 ms) and
 * wall time, at 0 and at 5 ms simulated latency per request, each in a fresh process; (2) the 3-day
 * demo backfill. Run: npx tsx bench/harness.ts [--trades 50000] [--latency 5] [--skip-backfill]
 */
import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { Registry } from 'prom-client';
import { startHarnessDemo } from '../src/demo/harness-demo.ts';
import { loadHarnessConfig, simulatorEnv } from '../src/harness/config.ts';
import { createMemoryStore } from '../src/harness/memory-store.ts';
import { startHarness } from '../src/harness/service.ts';
import { REFERENCE_TOKENS, type ReferenceToken } from '../src/harness/tokens.ts';
import { loadSpecs } from '../src/publication/load-specs.ts';
import type { SimulatorStats } from '../src/sim/server.ts';
import { openDuckDbStore } from '../src/store/duckdb-store.ts';

const arg = (name: string, def: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : def;
};
const TRADES = arg('trades', 50_000);
const LATENCY = arg('latency', 5);
const specsDir = new URL('../benchmarks', import.meta.url).pathname;
const MB = 1024 * 1024;

// 10 cells, all measured by the three providers (Stellar has only Mobula, so two extra EVM/Solana cells).
const TOKENS: ReferenceToken[] = [
  ...REFERENCE_TOKENS.filter((t) => t.chain !== 'stellar'),
  { chain: 'solana', symbol: 'BENCH1', address: 'Bench1111111111111111111111111111111111111' },
  { chain: 'base', symbol: 'BENCH2', address: '0x00000000000000000000000000000000000b3nc2' },
];

interface ChildSim {
  baseUrls: Record<string, string>;
  keys: Record<string, string>;
  stats(): Promise<SimulatorStats>;
  close(): Promise<void>;
}

async function childSimulator(latencyMs: number): Promise<ChildSim> {
  const child: ChildProcess = fork(new URL('../src/sim/child.ts', import.meta.url).pathname, [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = <T>(type: string) =>
    new Promise<T>((resolve) => {
      const on = (m: { type: string } & T) => {
        if (m.type !== type) return;
        child.off('message', on);
        resolve(m);
      };
      child.on('message', on);
    });
  const ready = next<{ baseUrls: Record<string, string>; keys: Record<string, string> }>('ready');
  child.send({ type: 'start', opts: { seed: 1, latencyMs, tradesPerHour: TRADES } });
  const { baseUrls, keys } = await ready;
  return {
    baseUrls,
    keys,
    async stats() {
      const p = next<{ stats: SimulatorStats }>('stats');
      child.send({ type: 'stats' });
      return (await p).stats;
    },
    async close() {
      const exited = new Promise((r) => child.once('exit', r));
      child.send({ type: 'close' });
      await exited;
    },
  };
}

async function tradeCycle(latencyMs: number) {
  const specs = await loadSpecs(specsDir);
  const sim = await childSimulator(latencyMs);
  const store = createMemoryStore();
  const harness = startHarness({
    store,
    specs,
    metrics: new Registry(),
    // HARNESS_* variables from the environment still apply (e.g. HARNESS_CELL_CONCURRENCY).
    harnessConfig: loadHarnessConfig({ ...process.env, ...simulatorEnv(sim.baseUrls, sim.keys) }),
    tokens: TOKENS,
    autoStart: false,
  });
  const base = process.memoryUsage().rss;
  let peak = base;
  let heapPeak = 0;
  const timer = setInterval(() => {
    const m = process.memoryUsage();
    peak = Math.max(peak, m.rss);
    heapPeak = Math.max(heapPeak, m.heapUsed);
  }, 50);
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const report = await harness.runCycle('token-trade-coverage', Date.UTC(2026, 6, 23, 12, 0));
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage().rss);
  const stats = await sim.stats();
  await harness.stop();
  await sim.close();
  const rows = report.cells?.flatMap((c) => c.providers) ?? [];
  return {
    latencyMs,
    wallS: wall / 1000,
    harnessCpuS: (cpu.user + cpu.system) / 1e6,
    rssGrowthMB: (peak - base) / MB,
    heapPeakMB: heapPeak / MB,
    requests: stats.requests,
    latencySumS: stats.latencyMs / 1000,
    trades: rows.reduce((n, p) => n + (p.count ?? 0), 0),
    failures: rows.filter((p) => p.status !== 'ok').length,
    bitqueryCapped: rows.filter((p) => p.capped).length,
  };
}

async function backfill() {
  const specs = await loadSpecs(specsDir);
  const store = await openDuckDbStore({ path: ':memory:' });
  const t0 = performance.now();
  let cycles = 0;
  const demo = await startHarnessDemo({
    store,
    specs,
    metrics: new Registry(),
    seed: 1,
    days: 3,
    now: Date.UTC(2026, 6, 23, 12, 7),
    onProgress: (p) => {
      cycles = p.done;
      if (p.done % 16 === 0 || p.done === p.total) process.stderr.write(`\r  backfill ${p.done}/${p.total}`);
    },
  });
  const wall = (performance.now() - t0) / 1000;
  process.stderr.write('\n');
  await demo.stop();
  const samples = (await store.timeBounds()) ? (await store.series()).length : 0;
  await store.close();
  return { cycles, wallS: wall, series: samples };
}

const fmt = (n: number, d = 1) => n.toFixed(d);
type CycleResult = Awaited<ReturnType<typeof tradeCycle>>;

/** Each measured cycle runs in a fresh process so one run's heap growth does not hide the next's. */
function cycleInFreshProcess(latencyMs: number): CycleResult {
  const out = execFileSync(
    process.execPath,
    [
      '--import',
      'tsx',
      new URL(import.meta.url).pathname,
      '--run-cycle',
      String(latencyMs),
      '--trades',
      String(TRADES),
    ],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as CycleResult;
}

if (process.argv.includes('--run-cycle')) {
  console.log(JSON.stringify(await tradeCycle(arg('run-cycle', 0))));
} else {
  const results: Record<string, unknown> = { trades: TRADES, cells: TOKENS.length };
  console.log(
    `token-trade cycle: ${TOKENS.length} cells × 3 providers, ${TRADES} trades/cell/hour (simulator in a child process)`,
  );
  const runs = [cycleInFreshProcess(0), cycleInFreshProcess(LATENCY)];
  const zero = runs[0];
  const rows = runs.map((r) => [
    `${r.latencyMs} ms`,
    fmt(r.wallS, 2),
    fmt(r.harnessCpuS, 2),
    fmt(r.rssGrowthMB),
    fmt(r.heapPeakMB),
    String(r.requests),
    fmt(r.latencySumS, 1),
    zero ? fmt(Math.max(0, r.wallS - zero.wallS), 2) : '',
    String(r.trades),
    `${r.failures}/${r.bitqueryCapped}`,
  ]);
  const head = [
    'latency/req',
    'wall s',
    'cpu s',
    'peak RSS +MB',
    'heap peak MB',
    'requests',
    'Σlatency s',
    'latency in wall s',
    'trades',
    'fail/capped',
  ];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  for (const r of [head, ...rows]) console.log(r.map((c, i) => c.padStart(widths[i] ?? 0)).join('  '));
  console.log('target: peak RSS growth < 150 MB');
  results.tradeCycle = runs;
  if (!process.argv.includes('--skip-backfill')) {
    const b = await backfill();
    console.log(
      `3-day demo backfill: ${b.cycles} cycles in ${fmt(b.wallS, 1)} s (target < 30 s), ${b.series} series`,
    );
    results.backfill = b;
  }
  await mkdir(new URL('./results/', import.meta.url), { recursive: true });
  await writeFile(
    new URL('./results/harness.json', import.meta.url),
    `${JSON.stringify(results, null, 2)}\n`,
  );
}
