import { performance } from 'node:perf_hooks';
import { UnmeteredEstimate, type UnmeteredEstimateOptions } from './unmetered-estimate.ts';

/** One class of expensive requests: how many run at once and how many may wait. */
export interface LaneBounds {
  readonly running: number;
  readonly queued: number;
}

/** A request admitted by a lane: calling it starts it, and it calls `done` once when it ends. */
export type LaneJob = (done: () => void) => void;

export interface FairLanesOptions {
  /**
   * Share of wall time the lanes' metered work may take while requests outside them are being
   * served (0–1). Without such requests the lanes take what they need: the budget only applies
   * under contention, so a burst alone is not slowed.
   */
  readonly share: number;
  /** The lanes count as contended for this long after a request outside them was served, ms. */
  readonly contendedMs: number;
  /** Credit is capped at this much loop time, ms: an idle spell does not buy a long stall later. */
  readonly maxCreditMs: number;
  /**
   * Charged for each job on top of its metered cost, ms: what a job costs the loop where it is not
   * metered (building its answer after a store read or a worker's reply, writing it). 0 if absent.
   * With `learnUnmeteredMs`, only the charge until it is learnt (unmetered-estimate.ts).
   */
  readonly unmeteredMs?: number;
  readonly learnUnmeteredMs?: Omit<UnmeteredEstimateOptions, 'now'>;
  /**
   * Contention also needs a busy loop: the share applies only while the event loop's utilization
   * over its last window (`loop`) is at least `busyAbove`. A loop with idle time has no cached read
   * waiting for it, and holding the lanes there only idled it: with requests outside the lanes
   * arriving all the time but the loop 28-35% busy, the MCP lane was held to 25% of wall time at
   * ~80 requests/s and each MCP request waited a mean 88 ms (the fuzz at 8 connections, 2-core VM).
   * Absent: every request outside the lanes contends, however idle the loop.
   */
  readonly busyAbove?: number;
  readonly loop?: LoopMeter;
  readonly now?: () => number;
}

/** The event loop's utilization (0–1) over windows of at least `windowMs`. */
export interface LoopMeter {
  /** The last whole window's utilization, starting a new window when this one is long enough. */
  utilization(): number;
}

/** Node's event-loop utilization (busy time over wall time, perf_hooks) in windows of `windowMs`. */
export function eventLoopMeter(windowMs: number): LoopMeter {
  let from = performance.eventLoopUtilization();
  let fromAt = performance.now();
  // Busy until measured: a process starts with work (module loading) that is not idle time.
  let last = 1;
  return {
    utilization() {
      const t = performance.now();
      if (t - fromAt < windowMs) return last;
      const now = performance.eventLoopUtilization();
      last = performance.eventLoopUtilization(now, from).utilization;
      from = now;
      fromAt = t;
      return last;
    },
  };
}

interface Lane {
  readonly name: string;
  readonly bounds: LaneBounds;
  readonly waiting: LaneJob[];
  running: number;
  /** Jobs started, and refused because the queue was full, since start. */
  started: number;
  refused: number;
}

export interface LaneStats {
  readonly name: string;
  readonly running: number;
  readonly queued: number;
  readonly started: number;
  readonly refused: number;
}

/**
 * Fair admission of expensive requests, so that a burst of them cannot take the event loop from
 * the cached reads. Node serves the sockets that are ready in one loop turn in arrival order, so
 * without this the loop is shared by connection count: 50 connections of heavy routes took a
 * cached /api/stat from 40k to 600 req/s (1.5%) in bench:burst, though most of their answers were
 * themselves stored bytes.
 *
 * Here each class waits in its own bounded queue (idle sockets cost the loop nothing), and the
 * lanes start at most one job per loop turn, round-robin over the classes, after the turn's ready
 * sockets. A job's synchronous part and the microtasks it queues are metered and paid from a
 * credit that grows at `share` of wall time while requests outside the lanes come; out of credit,
 * the lanes wait on a timer and the loop serves the rest. What a job resumes later (after a store
 * read, a worker's answer) and the parsing of its request are not metered: each job is charged
 * for them besides its metered cost (`unmeteredMs`, or learnt while the lanes run alone), the
 * per-class `running` bound keeps them small,
 * and `share` is set below the lanes' real share to leave room for both. (Charging the lanes all the loop's busy time but the measured replays starved them: a
 * replay's parsing and socket work, several times its timed part, was charged to the lanes.)
 */
export class FairLanes {
  private readonly lanes = new Map<string, Lane>();
  private readonly order: Lane[] = [];
  private next = 0;
  private pending = false;
  private lastOutsideAt = Number.NEGATIVE_INFINITY;
  private credit: number;
  private paidAt: number;
  private readonly now: () => number;
  /** Loop time the lanes' jobs took at their start, their synchronous part and microtasks (ms). */
  meteredMs = 0;
  /** Jobs started, every lane. */
  private startedAll = 0;
  private readonly unmetered: UnmeteredEstimate | null;

  constructor(
    classes: Readonly<Record<string, LaneBounds>>,
    private readonly opts: FairLanesOptions,
  ) {
    this.now = opts.now ?? (() => performance.now());
    this.paidAt = this.now();
    this.credit = opts.maxCreditMs;
    this.unmetered = opts.learnUnmeteredMs
      ? new UnmeteredEstimate(opts.unmeteredMs ?? 0, { ...opts.learnUnmeteredMs, now: this.now })
      : null;
    for (const [name, bounds] of Object.entries(classes)) {
      const lane: Lane = { name, bounds, waiting: [], running: 0, started: 0, refused: 0 };
      this.lanes.set(name, lane);
      this.order.push(lane);
    }
  }

  /** A request outside the lanes (a cached read) was served: the lanes keep to their share a while. */
  noteOutside(): void {
    this.lastOutsideAt = this.now();
    this.unmetered?.noteOutside();
  }

  /** What each job is charged besides its metered cost, ms (learnt, or as configured). */
  get unmeteredMs(): number {
    return this.unmetered?.ms ?? this.opts.unmeteredMs ?? 0;
  }

  /** Queues a job in its class; false when that queue is full (the caller answers 503 + Retry-After). */
  submit(name: string, job: LaneJob): boolean {
    const lane = this.lanes.get(name);
    if (!lane) throw new Error(`no lane named ${name}`);
    if (lane.waiting.length >= lane.bounds.queued) {
      lane.refused++;
      return false;
    }
    lane.waiting.push(job);
    this.schedule();
    return true;
  }

  stats(): LaneStats[] {
    return this.order.map((l) => ({
      name: l.name,
      running: l.running,
      queued: l.waiting.length,
      started: l.started,
      refused: l.refused,
    }));
  }

  /**
   * Pays the lanes their share of the wall time since the last payment (all of it, uncontended:
   * no request outside the lanes lately, or a loop with idle time).
   */
  private pay(): boolean {
    const t = this.now();
    const busyAbove = this.opts.busyAbove;
    const contended =
      t - this.lastOutsideAt < this.opts.contendedMs &&
      (busyAbove === undefined || (this.opts.loop?.utilization() ?? 1) >= busyAbove);
    // Uncontended, the lanes may take the whole loop; the budget starts full when contention does.
    this.credit = contended
      ? Math.min(this.opts.maxCreditMs, this.credit + (t - this.paidAt) * this.opts.share)
      : this.opts.maxCreditMs;
    this.paidAt = t;
    return contended;
  }

  /**
   * Starts the next job in the coming check phase, unless one is on its way or the credit is spent.
   * The job and its meter are two immediates queued together, so they run back to back in one check
   * phase with the job's microtasks between them: the meter reads the job's synchronous cost.
   */
  private schedule(): void {
    if (this.pending || !this.order.some(ready)) return;
    const contended = this.pay();
    this.pending = true;
    if (contended && this.credit <= 0) {
      // Out of credit: the loop is the other requests' until the share has paid for the last job.
      setTimeout(
        () => {
          this.pending = false;
          this.schedule();
        },
        Math.max(1, Math.ceil(-this.credit / this.opts.share)),
      );
      return;
    }
    let startedAt = 0;
    setImmediate(() => {
      const lane = this.pick();
      if (!lane) return;
      const job = lane.waiting.shift() as LaneJob;
      lane.running++;
      lane.started++;
      this.startedAll++;
      let finished = false;
      const done = () => {
        if (finished) return;
        finished = true;
        lane.running--;
        this.schedule();
      };
      startedAt = this.now();
      try {
        job(done);
      } catch (err) {
        // The lane's slot is freed; the error goes on as it would have from a request listener.
        done();
        throw err;
      }
    });
    setImmediate(() => {
      if (startedAt > 0) {
        const cost = this.now() - startedAt;
        this.meteredMs += cost;
        this.unmetered?.update(this.meteredMs, this.startedAll);
        this.credit -= cost + this.unmeteredMs;
      }
      this.pending = false;
      // Queued from the check phase, the next start waits for the next turn's ready sockets.
      this.schedule();
    });
  }

  /** The next lane with a job waiting and room to run it, round-robin. */
  private pick(): Lane | undefined {
    for (let i = 0; i < this.order.length; i++) {
      const lane = this.order[(this.next + i) % this.order.length] as Lane;
      if (ready(lane)) {
        this.next = (this.next + i + 1) % this.order.length;
        return lane;
      }
    }
    return undefined;
  }
}

function ready(lane: Lane): boolean {
  return lane.waiting.length > 0 && lane.running < lane.bounds.running;
}
