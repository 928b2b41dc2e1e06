import type { Store } from '../store/sample-store.ts';

/** The reads that go to the engine; snapshots (SNAPSHOT_DIR files) and writes are not gated. */
const ENGINE_READS = new Set<PropertyKey>(['select', 'latest', 'series', 'timeBounds']);

/**
 * The store as the publication reads it: while `down()` (the replica's last poll of the engine
 * failed), every engine read fails at once instead of waiting out the client's timeouts and
 * retries, so views fall back to the last good ones, marked degraded, without holding a request.
 */
export function gatedStore(store: Store, down: () => boolean): Store {
  return new Proxy(store, {
    get(target, key) {
      const v: unknown = Reflect.get(target, key);
      if (typeof v !== 'function') return v;
      if (!ENGINE_READS.has(key)) return v.bind(target);
      return (...args: unknown[]) =>
        down()
          ? Promise.reject(new Error('the engine did not answer the last poll'))
          : (v as (...a: unknown[]) => unknown).apply(target, args);
    },
  });
}
