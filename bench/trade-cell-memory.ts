/**
 * Memory of one token-trade cell of 1,000,000 trades measured by three providers (issue 9, rule 5):
 * the simulator runs in a child process; this process runs one real harness cycle over that one cell
 * and measures the growth of live heapUsed + arrayBuffers (the digest sets live in typed arrays,
 * outside the JS heap) over a baseline taken after a full GC. Target: growth under 150 MB.
 *
 * "Live" means after a full GC: every --sample-ms (250 ms) the sampler forces gc() and then reads
 * process.memoryUsage(). Reading without a GC (as this script once did) measured whatever garbage
 * V8 had not yet collected — parsed pages, the digest tables a set outgrew — and moved between
 * about 80 and 105 MB from run to run on the same code. The forced GCs cost time on this thread;
 * that time is printed and left out of the wall figure. Peak RSS growth is shown for information
 * only (the allocator keeps pages it has freed). MB here is 2^20 bytes.
 * Run: node --expose-gc --import tsx bench/trade-cell-memory.ts [--trades 1000000] [--sample-ms 250]
 */
import { type ChildProcess, fork } from 'node:child_process';
import { cpus } from 'node:os';
import { Registry } from 'prom-client';
import { loadHarnessConfig, simulatorEnv } from '../src/harness/config.ts';
import { createMemoryStore } from '../src/harness/memory-store.ts';
import { startHarness } from '../src/harness/service.ts';
import { loadSpecs } from '../src/publication/load-specs.ts';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const TRADES = arg('--trades', 1_000_000);
const SAMPLE_MS = arg('--sample-ms', 250);
const MB = 1024 * 1024;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  console.error('run with node --expose-gc (npm run bench:cell-memory): live memory needs a forced GC');
  process.exit(2);
}

const child: ChildProcess = fork(new URL('../src/sim/child.ts', import.meta.url).pathname, [], {
  execArgv: ['--import', 'tsx'],
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
const ready = new Promise<{ baseUrls: Record<string, string>; keys: Record<string, string> }>((resolve) =>
  child.on(
    'message',
    (m: { type: string; baseUrls: Record<string, string>; keys: Record<string, string> }) => {
      if (m.type === 'ready') resolve(m);
    },
  ),
);
child.send({ type: 'start', opts: { seed: 1, latencyMs: 0, tradesPerHour: TRADES } });
const sim = await ready;

const specs = await loadSpecs(new URL('../benchmarks', import.meta.url).pathname);
const harness = startHarness({
  store: createMemoryStore(),
  specs,
  metrics: new Registry(),
  // Codex pages 200 trades at a time: 5,000 pages for a million, so the page guard is raised here.
  harnessConfig: loadHarnessConfig({
    ...simulatorEnv(sim.baseUrls, sim.keys),
    HARNESS_MAX_PAGES: '20000',
    HARNESS_TIMEOUT_MS: '60000',
  }),
  tokens: [{ chain: 'solana', symbol: 'BONK', address: 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263' }],
  autoStart: false,
});

gc();
const m0 = process.memoryUsage();
const base = m0.heapUsed + m0.arrayBuffers;
let peak = { heap: m0.heapUsed, buffers: m0.arrayBuffers, total: base };
let peakRss = m0.rss;
let gcMs = 0;
let samples = 0;
const sample = () => {
  const g0 = performance.now();
  gc();
  gcMs += performance.now() - g0;
  samples++;
  const m = process.memoryUsage();
  const total = m.heapUsed + m.arrayBuffers;
  if (total > peak.total) peak = { heap: m.heapUsed, buffers: m.arrayBuffers, total };
  peakRss = Math.max(peakRss, m.rss);
};
const timer = setInterval(sample, SAMPLE_MS);
const t0 = performance.now();
const report = await harness.runCycle('token-trade-coverage', Date.UTC(2026, 6, 23, 12, 0));
const wall = (performance.now() - t0) / 1000;
clearInterval(timer);
await harness.stop();
child.send({ type: 'close' });

console.log(`machine: ${cpus()[0]?.model} × ${cpus().length}, node ${process.version}`);
console.log(
  `one cell, ${TRADES.toLocaleString('en-US')} trades/hour, 3 providers, wall ${(wall - gcMs / 1000).toFixed(1)} s (+ ${(gcMs / 1000).toFixed(1)} s in ${samples} forced GCs of the sampler)`,
);
for (const p of report.cells?.[0]?.providers ?? []) {
  console.log(
    `  ${p.provider.padEnd(9)} ${p.status} count ${p.count ?? '-'} pages ${p.pages ?? '-'}${p.capped ? ' capped' : ''}`,
  );
}
console.log(`  union ${report.cells?.[0]?.unionCount}`);
const mb = (b: number) => (b / MB).toFixed(1);
console.log(
  `live growth (after a full GC, sampled every ${SAMPLE_MS} ms): heap ${mb(peak.heap - m0.heapUsed)} MB + array buffers ${mb(peak.buffers - m0.arrayBuffers)} MB = ${mb(peak.total - base)} MB (target < 150 MB)`,
);
console.log(`peak RSS growth ${mb(peakRss - m0.rss)} MB (information only, not the target)`);
