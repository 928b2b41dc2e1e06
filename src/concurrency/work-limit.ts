import { type LoadShedder, loadShedder } from '../load-shed.ts';
import { Semaphore } from './semaphore.ts';

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
