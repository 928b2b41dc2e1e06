import { Semaphore } from '../concurrency/semaphore.ts';
import { type LoadShedder, loadShedder } from '../load-shed.ts';
import type { PromQueryEngine } from './promql/result.ts';

/** Raised instead of queueing when the bound on concurrent expensive work is reached. */
export class BusyError extends Error {
  constructor() {
    super('too many expensive requests are running; retry in a second');
    this.name = 'BusyError';
  }
}

/**
 * At most `running` jobs at once and `queued` waiting, FIFO; anything beyond is refused at once.
 * Refusing is the point: PromQL runs on the event loop and its reads share the store's single
 * queue with the publication, so an unbounded backlog of queries would delay every cache refill
 * behind it, while a quick "busy" costs the cached reads nothing.
 */
export class WorkLimit {
  private readonly slots: Semaphore;
  /** Jobs refused since start (for tests and benches). */
  refused = 0;

  constructor(
    running: number,
    private readonly queued: number,
    /** Refuses new jobs while the event loop is saturated (null: never). */
    private readonly load: LoadShedder | null = loadShedder,
  ) {
    this.slots = new Semaphore(running);
  }

  run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.load?.overloaded() || (this.slots.full && this.slots.queued >= this.queued)) {
      this.refused++;
      return Promise.reject(new BusyError());
    }
    return this.slots.run(fn);
  }

  get inFlight(): number {
    return this.slots.running + this.slots.queued;
  }
}

/**
 * Two evaluations at a time on a 2-core host leave a core for HTTP; eight more may wait (about a
 * second of queueing at the guard's per-query budget) before agents are told to retry.
 */
export const PROMQL_LIMIT = { running: 2, queued: 8 } as const;

/** The engine with every evaluation passing through `limit`. */
export function limitedEngine(engine: PromQueryEngine, limit: WorkLimit): PromQueryEngine {
  return {
    instant: (q, at) => limit.run(() => engine.instant(q, at)),
    range: (q, s, e, step) => limit.run(() => engine.range(q, s, e, step)),
  };
}
