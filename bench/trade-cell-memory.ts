/**
 * Memory of one token-trade cell of 1,000,000 trades measured by three providers (issue 9, rule 5):
 * the simulator runs in a child process; this process runs one real harness cycle over that one cell
 * and samples heapUsed and arrayBuffers (the digest sets live in typed arrays, outside the JS heap)
 * every 20 ms. Target: growth of heap + array buffers under 150 MB.
 * Run: node --expose-gc --import tsx bench/trade-cell-memory.ts [--trades 1000000]
 */
import { type ChildProcess, fork } from 'node:child_process';
import { cpus } from 'node:os';
import { Registry } from 'prom-client';
import { loadHarnessConfig, simulatorEnv } from '../src/harness/config.ts';
import { createMemoryStore } from '../src/harness/memory-store.ts';
import { startHarness } from '../src/harness/service.ts';
import { loadSpecs } from '../src/publication/load-specs.ts';

const i = process.argv.indexOf('--trades');
const TRADES = i >= 0 ? Number(process.argv[i + 1]) : 1_000_000;
const MB = 1024 * 1024;

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

const gc = (globalThis as { gc?: () => void }).gc;
gc?.();
const m0 = process.memoryUsage();
const base = m0.heapUsed + m0.arrayBuffers;
let peak = { heap: m0.heapUsed, buffers: m0.arrayBuffers, total: base, rss: m0.rss };
const timer = setInterval(() => {
  const m = process.memoryUsage();
  const total = m.heapUsed + m.arrayBuffers;
  if (total > peak.total) peak = { heap: m.heapUsed, buffers: m.arrayBuffers, total, rss: m.rss };
  peak.rss = Math.max(peak.rss, m.rss);
}, 20);
const t0 = performance.now();
const report = await harness.runCycle('token-trade-coverage', Date.UTC(2026, 6, 23, 12, 0));
const wall = (performance.now() - t0) / 1000;
clearInterval(timer);
await harness.stop();
child.send({ type: 'close' });

console.log(
  `machine: ${cpus()[0]?.model} × ${cpus().length}, node ${process.version}${gc ? '' : ' (run with --expose-gc for a clean baseline)'}`,
);
console.log(
  `one cell, ${TRADES.toLocaleString('en-US')} trades/hour, 3 providers, wall ${wall.toFixed(1)} s`,
);
for (const p of report.cells?.[0]?.providers ?? []) {
  console.log(
    `  ${p.provider.padEnd(9)} ${p.status} count ${p.count ?? '-'} pages ${p.pages ?? '-'}${p.capped ? ' capped' : ''}`,
  );
}
console.log(`  union ${report.cells?.[0]?.unionCount}`);
console.log(
  `heap growth ${((peak.heap - m0.heapUsed) / MB).toFixed(1)} MB + array buffers ${((peak.buffers - m0.arrayBuffers) / MB).toFixed(1)} MB = ${((peak.total - base) / MB).toFixed(1)} MB (target < 150 MB); peak RSS growth ${((peak.rss - m0.rss) / MB).toFixed(1)} MB`,
);
