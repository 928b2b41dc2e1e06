import { performance } from 'node:perf_hooks';

/** The watch's tick: a block of our loop longer than the margin plus one tick is always seen. */
export const LOOP_TICK_MS = 1;
/** Ticks older than this are dropped: no timed probe is longer (the timeout is 10 s). */
const KEEP_MS = 60_000;

/**
 * Watches our own event loop while live probes are in flight: a timer that ticks every
 * LOOP_TICK_MS and records how late each tick fired. A probe's time includes whatever kept our loop
 * from reading its answer; `delayOver` says how much that was over the probe's own timed interval,
 * so a probe our machine slowed is not scored as the provider's time (rule and margin in the json-rpc
 * methodology). It ticks while anyone holds it (acquire/release) or between start and stop; stopped,
 * it holds no timer.
 */
export class LoopDelayWatch {
  private firedAt: number[] = [];
  private lateness: number[] = [];
  private timer: NodeJS.Timeout | null = null;
  private waiting: Array<{ readonly after: number; readonly resolve: () => void }> = [];

  private users = 0;

  /** A probe is in flight: tick (from now on) until every acquirer has released. */
  acquire(): void {
    if (this.users++ === 0) this.start();
  }

  release(): void {
    if (--this.users === 0) this.stop();
  }

  start(): void {
    if (this.timer !== null) return;
    let due = performance.now() + LOOP_TICK_MS;
    const tick = () => {
      const now = performance.now();
      this.firedAt.push(now);
      this.lateness.push(Math.max(0, now - due));
      due = now + LOOP_TICK_MS;
      this.timer = setTimeout(tick, LOOP_TICK_MS);
      this.prune(now);
      if (this.waiting.length > 0) this.wake(now);
    };
    this.timer = setTimeout(tick, LOOP_TICK_MS);
  }

  /** Stops ticking; pending `delayOver` calls resolve with what was seen so far. */
  stop(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.wake(Number.POSITIVE_INFINITY);
  }

  /**
   * The largest lateness of the ticks that fired inside (from, to] and of the first tick after `to`
   * (a block that ended just before the answer was read shows in that tick), in ms. Waits for that
   * tick. `from` and `to` are performance.now() times.
   */
  async delayOver(from: number, to: number): Promise<number> {
    const last = this.firedAt.at(-1);
    if (this.timer !== null && (last === undefined || last <= to))
      await new Promise<void>((resolve) => this.waiting.push({ after: to, resolve }));
    let worst = 0;
    for (let i = this.indexAfter(from); i < this.firedAt.length; i++) {
      worst = Math.max(worst, this.lateness[i] ?? 0);
      if ((this.firedAt[i] ?? 0) > to) break;
    }
    return worst;
  }

  private wake(now: number): void {
    const still: typeof this.waiting = [];
    for (const w of this.waiting) {
      if (now > w.after) w.resolve();
      else still.push(w);
    }
    this.waiting = still;
  }

  /** The first tick that fired after `t` (ticks are in time order). */
  private indexAfter(t: number): number {
    let lo = 0;
    let hi = this.firedAt.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.firedAt[mid] ?? 0) <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private prune(now: number): void {
    const first = this.firedAt[0];
    if (first === undefined || now - first < 2 * KEEP_MS) return;
    const keep = this.indexAfter(now - KEEP_MS);
    this.firedAt = this.firedAt.slice(keep);
    this.lateness = this.lateness.slice(keep);
  }
}
