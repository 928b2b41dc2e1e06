/**
 * The longest stretch a PromQL range query holds the event loop, and its loop time
 * (npm run bench:promql-blocks). The burst bench's query (7 d at 360 steps) over 7 days of demo
 * samples in an in-memory embedded store, ROUNDS (default 10) times; a setImmediate ticker notes
 * the gaps between its ticks, so the longest gap is the longest block the query caused. In-process.
 */
import { performance } from 'node:perf_hooks';
import { createStoreQueryEngine } from '../src/mcp/promql/store-engine.ts';
import { DAY, NOW, QUERY, STEP, weekStore } from './promql-week.ts';

const ROUNDS = Number(process.env.ROUNDS ?? 10);

const store = await weekStore();
const engine = createStoreQueryEngine(store, { deadlineMs: 60_000 });
await engine.range(QUERY, NOW - 7 * DAY, NOW, STEP);
const rows: { maxBlockMs: number; activeMs: number; wallMs: number }[] = [];
for (let i = 0; i < ROUNDS; i++) {
  let last = performance.now();
  let maxGap = 0;
  let ticking = true;
  const tick = () => {
    const now = performance.now();
    maxGap = Math.max(maxGap, now - last);
    last = now;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  const elu0 = performance.eventLoopUtilization();
  const t0 = performance.now();
  await engine.range(QUERY, NOW - 7 * DAY, NOW, STEP);
  const wallMs = performance.now() - t0;
  ticking = false;
  rows.push({ maxBlockMs: maxGap, activeMs: performance.eventLoopUtilization(elu0).active, wallMs });
}
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
process.stdout.write(
  `node ${process.version}, ${ROUNDS} queries: longest block p50 ${p50(rows.map((r) => r.maxBlockMs)).toFixed(1)} ms, max ${Math.max(...rows.map((r) => r.maxBlockMs)).toFixed(1)} ms; loop time per query p50 ${p50(rows.map((r) => r.activeMs)).toFixed(1)} ms; wall p50 ${p50(rows.map((r) => r.wallMs)).toFixed(1)} ms\n`,
);
await store.close();
