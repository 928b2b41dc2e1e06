import { DeadlineError, withinDeadline } from '../concurrency/deadline.ts';
import { EngineError } from '../store/prometheus-http.ts';
import type { Store } from '../store/sample-store.ts';
import { EngineUnavailableError } from './types.ts';

/** The reads that go to the engine; snapshots (SNAPSHOT_DIR files) and writes are not gated. */
const ENGINE_READS = new Set<PropertyKey>(['select', 'selectPacked', 'latest', 'series', 'timeBounds']);

export interface EngineGate {
  /** True while the replica's last poll of the engine failed. */
  readonly down: () => boolean;
  /**
   * Each engine read's deadline, retries included (issue 27: view reads ≤ 3 s), or none (the
   * embedded store, whose reads are local and may be long on purpose: a 90-day series).
   */
  readonly deadlineMs?: number;
  /** The Retry-After of an answer the engine could not give: about one poll. */
  readonly retryAfterS: number;
  /**
   * A read ran past its deadline: the engine is taken as down (a replica), so the view's other
   * reads fail at once rather than each waiting out its own deadline.
   */
  readonly missed?: () => void;
}

/**
 * The store as the publication reads it. While `down()`, every engine read fails at once instead
 * of waiting out the client's timeouts and retries (10 s × 4 by default), so views fall back to
 * the last good ones, marked degraded, without holding a request; a read past its deadline, or
 * one the engine refused as down, fails the same way. Either is an EngineUnavailableError: 503
 * `engine_unavailable` with Retry-After where no last good view exists.
 */
export function gatedStore(store: Store, gate: EngineGate): Store {
  const unavailable = (why: string) => new EngineUnavailableError(why, gate.retryAfterS);
  const read = async (run: () => Promise<unknown>): Promise<unknown> => {
    if (gate.down()) throw unavailable('the engine did not answer the last poll');
    try {
      return gate.deadlineMs === undefined
        ? await run()
        : await withinDeadline(run(), gate.deadlineMs, 'the engine');
    } catch (e) {
      if (e instanceof DeadlineError) gate.missed?.();
      // The engine's absence only: a refused query, or the embedded store's own error, stays itself.
      if (e instanceof DeadlineError || (e instanceof EngineError && e.down)) throw unavailable(e.message);
      throw e;
    }
  };
  return new Proxy(store, {
    get(target, key) {
      const v: unknown = Reflect.get(target, key);
      if (typeof v !== 'function') return v;
      if (!ENGINE_READS.has(key)) return v.bind(target);
      return (...args: unknown[]) =>
        read(() => (v as (...a: unknown[]) => Promise<unknown>).apply(target, args));
    },
  });
}
