import { type EventLoopUtilization, performance } from 'node:perf_hooks';

export interface UnmeteredEstimateOptions {
  /** Each estimate covers this much wall time, ms. */
  readonly windowMs: number;
  /** A window with fewer jobs says too little (its busy time is mostly not theirs). */
  readonly minJobs: number;
  /** The estimate is kept within these bounds, ms per job. */
  readonly minMs: number;
  readonly maxMs: number;
  readonly now?: () => number;
}

/**
 * What a lane's job costs the event loop beyond its metered part (what it resumes after a store
 * read or a worker's reply, writing its answer), learnt while the lanes run alone: over a window
 * with no request outside the lanes, (the loop's busy time − the jobs' metered time) / jobs
 * started. While other requests come, their cost cannot be told apart from the jobs', so the last
 * estimate is kept. A fixed figure measured on one machine overstates a faster one's jobs (and
 * starves its burst) and understates a slower one's; this follows the machine. Anything else the
 * loop did in such a window (a prewarm, the harness) is counted as the jobs': the estimate errs
 * towards leaving the loop to the cached reads.
 */
export class UnmeteredEstimate {
  private windowStart: number;
  private elu: EventLoopUtilization;
  private metered0 = 0;
  private jobs0 = 0;
  private outside = false;
  private readonly now: () => number;
  /** Windows the estimate was learnt from. */
  windows = 0;

  constructor(
    /** Until a window has been measured, ms per job. */
    public ms: number,
    private readonly opts: UnmeteredEstimateOptions,
  ) {
    this.now = opts.now ?? (() => performance.now());
    this.windowStart = this.now();
    this.elu = performance.eventLoopUtilization();
  }

  /** A request outside the lanes was served: this window is not the lanes' alone. */
  noteOutside(): void {
    this.outside = true;
  }

  /** After each metered job, with the lanes' totals so far. */
  update(meteredMs: number, jobs: number): void {
    const t = this.now();
    if (t - this.windowStart < this.opts.windowMs) return;
    const busy = performance.eventLoopUtilization(this.elu).active;
    const n = jobs - this.jobs0;
    if (!this.outside && n >= this.opts.minJobs) {
      const est = Math.min(
        this.opts.maxMs,
        Math.max(this.opts.minMs, (busy - (meteredMs - this.metered0)) / n),
      );
      // A moving average: one window's noise (a GC, a timer's burst) moves it a third of the way.
      this.ms = this.windows === 0 ? est : this.ms + (est - this.ms) / 3;
      this.windows++;
    }
    this.windowStart = t;
    this.elu = performance.eventLoopUtilization();
    this.metered0 = meteredMs;
    this.jobs0 = jobs;
    this.outside = false;
  }
}
