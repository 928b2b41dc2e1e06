import { performance } from 'node:perf_hooks';

/**
 * Event-loop utilization over the last sample window, for shedding expensive work. Everything
 * here runs on one event loop: a bound on concurrent PromQL queries or renders limits memory, but
 * not CPU, since each admitted job still holds the loop. Measured on a 2-core host, 50 clients on
 * /metrics alone cut /api/stat from 30k to 0.5 req/s. So expensive routes are refused with a quick
 * 503 while the loop is nearly saturated, and cached reads, which never ask, keep the loop.
 */
export class LoadShedder {
  private last = performance.eventLoopUtilization();
  private utilization = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Expensive requests refused since start. */
  shed = 0;

  constructor(
    /** Utilization (0–1) at and above which expensive work is refused. */
    private readonly threshold = 0.85,
    private readonly windowMs = 100,
  ) {}

  private ensureSampling(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      const now = performance.eventLoopUtilization();
      this.utilization = performance.eventLoopUtilization(now, this.last).utilization;
      this.last = now;
    }, this.windowMs);
    this.timer.unref();
  }

  /** True when expensive work should be refused now (and counts the refusal). */
  overloaded(): boolean {
    this.ensureSampling();
    if (this.utilization < this.threshold) return false;
    this.shed++;
    return true;
  }

  get load(): number {
    return this.utilization;
  }
}

/** One per process: there is one event loop to protect. */
export const loadShedder = new LoadShedder();
