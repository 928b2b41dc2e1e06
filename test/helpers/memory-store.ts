import { openDuckDbStore } from '../../src/store/duckdb-store.ts';
import type { Store } from '../../src/store/sample-store.ts';

export { createMemoryStore } from '../../src/harness/memory-store.ts';

export type CountingStore = Store & { readonly appendCalls: number; readonly appended: number };

/** The production store (DuckDB, in memory), counting append calls so tests can check one write per cycle. */
export async function openTestStore(): Promise<CountingStore> {
  const db = await openDuckDbStore({ path: ':memory:' });
  let appendCalls = 0;
  let appended = 0;
  return {
    get appendCalls() {
      return appendCalls;
    },
    get appended() {
      return appended;
    },
    async append(samples) {
      appendCalls++;
      appended += samples.length;
      return db.append(samples);
    },
    select: (q) => db.select(q),
    latest: (q) => db.latest(q),
    series: (m) => db.series(m),
    timeBounds: (m) => db.timeBounds(m),
    onAppend: (l) => db.onAppend(l),
    close: () => db.close(),
    getSnapshot: (k) => db.getSnapshot(k),
    putSnapshot: (k, b, e) => db.putSnapshot(k, b, e),
    getState: (k) => db.getState(k),
    setState: (k, v) => db.setState(k, v),
  };
}
