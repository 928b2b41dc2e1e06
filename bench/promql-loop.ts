/**
 * Event-loop time a PromQL range query costs the main thread, evaluated inline or in the worker
 * (npm run bench:promql-loop). The burst bench's query (7 d at 360 steps) on 7 days of demo
 * samples in the embedded store; ROUNDS (default 20) queries one after another each way, twice,
 * order swapped. The loop's active time is performance.eventLoopUtilization()'s: what cached reads
 * would have waited behind. In-process, on this machine.
 */
import { performance } from 'node:perf_hooks';
import { buildDataset } from '../src/demo/dataset.ts';
import { createStoreQueryEngine } from '../src/mcp/promql/store-engine.ts';
import { openDuckDbStore } from '../src/store/duckdb-store.ts';
import { ServiceWorkers } from '../src/workers/service-workers.ts';

const ROUNDS = Number(process.env.ROUNDS ?? 20);
const DAY = 86_400_000;
const NOW = Math.floor(Date.now() / 1_800_000) * 1_800_000;
const QUERY = 'avg by (provider) (avg_over_time(token_trade_capture_pct[6h]))';
const STEP = Math.floor((7 * DAY) / 359);

const store = await openDuckDbStore({ path: ':memory:' });
await store.append(buildDataset({ seed: 7, days: 7, end: NOW }));
const worker = new ServiceWorkers(1);
const engines = {
  inline: createStoreQueryEngine(store, { deadlineMs: 60_000 }),
  worker: createStoreQueryEngine(store, { deadlineMs: 60_000, worker }),
};
await engines.worker.range(QUERY, NOW - 7 * DAY, NOW, STEP); // the worker's start-up, not measured
const results: Record<string, { activeMs: number; wallMs: number }[]> = { inline: [], worker: [] };
for (const order of [
  ['inline', 'worker'],
  ['worker', 'inline'],
] as const) {
  for (const name of order) {
    const elu0 = performance.eventLoopUtilization();
    const t0 = performance.now();
    for (let i = 0; i < ROUNDS; i++) await engines[name].range(QUERY, NOW - 7 * DAY, NOW, STEP);
    const elu = performance.eventLoopUtilization(elu0);
    results[name]?.push({ activeMs: elu.active / ROUNDS, wallMs: (performance.now() - t0) / ROUNDS });
  }
}
const f = (n: number) => n.toFixed(1);
process.stdout.write(`node ${process.version}; ${ROUNDS} queries per run, two runs each\n\n`);
process.stdout.write(
  '| evaluation | event-loop active ms per query (runs) | wall ms per query (runs) |\n| --- | --- | --- |\n',
);
for (const [name, runs] of Object.entries(results)) {
  process.stdout.write(
    `| ${name} | ${runs.map((r) => f(r.activeMs)).join(' / ')} | ${runs.map((r) => f(r.wallMs)).join(' / ')} |\n`,
  );
}
await worker.close();
await store.close();
