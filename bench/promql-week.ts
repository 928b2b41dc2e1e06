import { buildDataset } from '../src/demo/dataset.ts';
import { type DuckDbStore, openDuckDbStore } from '../src/store/duckdb-store.ts';

/**
 * The burst bench's PromQL range query (7 d at 360 steps) and an in-memory embedded store holding 7
 * days of demo samples, shared by bench:promql-blocks and bench:promql-loop.
 */
export const DAY = 86_400_000;
export const NOW = Math.floor(Date.now() / 1_800_000) * 1_800_000;
export const QUERY = 'avg by (provider) (avg_over_time(token_trade_capture_pct[6h]))';
export const STEP = Math.floor((7 * DAY) / 359);

export async function weekStore(): Promise<DuckDbStore> {
  const store = await openDuckDbStore({ path: ':memory:' });
  await store.append(buildDataset({ seed: 7, days: 7, end: NOW }));
  return store;
}
