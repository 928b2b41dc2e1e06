/**
 * Event-loop time a PromQL range query costs the main thread, evaluated inline or in the worker
 * (npm run bench:promql-loop). The burst bench's query (7 d at 360 steps) on 7 days of demo
 * samples in the embedded store; ROUNDS (default 20) queries one after another each way, twice,
 * order swapped. The loop's active time is performance.eventLoopUtilization()'s: what cached reads
 * would have waited behind. In-process, on this machine.
 */
import { performance } from 'node:perf_hooks';
import { createStoreQueryEngine } from '../src/mcp/promql/store-engine.ts';
import { ServiceWorkers } from '../src/workers/service-workers.ts';
import { DAY, NOW, QUERY, STEP, weekStore } from './promql-week.ts';

const ROUNDS = Number(process.env.ROUNDS ?? 20);

const store = await weekStore();
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
