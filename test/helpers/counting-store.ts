import { type SampleStore, type SelectQuery, selectPacked } from '../../src/store/sample-store.ts';

/** The store, with its select and selectPacked calls counted (which read a caller used). */
export function countingReads(store: SampleStore): {
  store: SampleStore;
  calls: { select: number; selectPacked: number };
} {
  const calls = { select: 0, selectPacked: 0 };
  const counted: SampleStore = Object.assign(Object.create(store) as SampleStore, {
    select: (q: SelectQuery) => {
      calls.select++;
      return store.select(q);
    },
    selectPacked: (q: SelectQuery) => {
      calls.selectPacked++;
      return selectPacked(store, q);
    },
  });
  return { store: counted, calls };
}
