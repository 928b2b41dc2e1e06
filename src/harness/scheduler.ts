import type { Clock, HarnessLog } from './types.ts';

export interface ScheduledJob {
  readonly slug: string;
  readonly cadenceMs: number;
  /** Offset of its slots from the cadence's epoch-aligned marks (default 0). */
  readonly offsetMs?: number;
  /** Runs one cycle for the aligned slot `at`. */
  run(at: number): Promise<unknown>;
}

/**
 * The first aligned slot (a multiple of the cadence since epoch, plus `offsetMs`) at or after
 * `now`, after `last`.
 */
export function nextSlot(now: number, cadenceMs: number, last?: number | null, offsetMs = 0): number {
  let s = Math.ceil((now - offsetMs) / cadenceMs) * cadenceMs + offsetMs;
  if (last !== undefined && last !== null && s <= last) s = last + cadenceMs;
  return s;
}

/**
 * What a job resumes from: its newest stored cycle, or the newest of each benchmark it runs (a
 * family's probe serves several), null where none was found.
 */
export type LastRuns = number | null | ReadonlyMap<string, number | null>;

/** Retries of a failed resume read: 5 s, doubling, at most a minute apart, until it answers. */
const RESUME_RETRY_MS = { first: 5_000, max: 60_000 } as const;

const iso = (t: number | null) => (t === null ? 'none' : new Date(t).toISOString());

/**
 * Runs each job at its clock-aligned slots. The next slot is planned only after a cycle ends, so a
 * job never overlaps itself; a slot whose time has long passed (downtime, a suspended host) is
 * skipped, never fabricated.
 */
export class Scheduler {
  private readonly timers = new Map<string, unknown>();
  private readonly running = new Set<Promise<unknown>>();
  private stopped = false;
  private started = false;

  constructor(
    private readonly jobs: readonly ScheduledJob[],
    private readonly clock: Clock,
    private readonly log: HarnessLog,
    private readonly lastRun: (slug: string) => Promise<LastRuns> = async () => null,
  ) {}

  /** Wakes resume retries waiting when stop() is called. */
  private readonly waiting = new Set<() => void>();

  start(): void {
    if (this.started && !this.stopped) return;
    this.started = true;
    this.stopped = false;
    for (const job of this.jobs) void this.resume(job);
  }

  /**
   * Reads where the job stopped, then plans its next slot. A failed read (the engine down or
   * refusing) is logged and retried: planning without it could run a slot already stored by the
   * previous process, so the job waits rather than guess.
   */
  private async resume(job: ScheduledJob): Promise<void> {
    for (
      let wait: number = RESUME_RETRY_MS.first;
      !this.stopped;
      wait = Math.min(wait * 2, RESUME_RETRY_MS.max)
    ) {
      let found: LastRuns;
      try {
        found = await this.lastRun(job.slug);
      } catch (e) {
        if (this.stopped) return;
        this.log(
          'warn',
          `${job.slug}: cannot read its last cycle from the store, retrying in ${wait / 1000} s before planning: ${(e as Error)?.message ?? String(e)}`,
        );
        await this.sleep(wait);
        continue;
      }
      if (this.stopped) return;
      const lasts: [string, number | null][] =
        found instanceof Map ? [...found] : [[job.slug, found as number | null]];
      const known = lasts.flatMap(([, t]) => (t === null ? [] : [t]));
      const last = known.length > 0 ? Math.max(...known) : null;
      const at = this.plan(job, last);
      for (const [name, t] of lasts) {
        this.log('info', `${name}: resuming lastSlot=${iso(t)} next=${iso(at)}`);
      }
      return;
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.waiting.delete(done);
        this.clock.clearTimeout(handle);
        resolve();
      };
      const handle = this.clock.setTimeout(done, ms);
      this.waiting.add(done);
    });
  }

  /** Sets the timer of the job's next slot, and returns that slot. */
  private plan(job: ScheduledJob, last: number | null): number | null {
    if (this.stopped) return null;
    const now = this.clock.now();
    const at = nextSlot(now, job.cadenceMs, last, job.offsetMs ?? 0);
    const handle = this.clock.setTimeout(() => this.fire(job, at), Math.max(0, at - now));
    this.timers.set(job.slug, handle);
    return at;
  }

  private fire(job: ScheduledJob, at: number): void {
    this.timers.delete(job.slug);
    if (this.stopped) return;
    const late = this.clock.now() - at;
    if (late > job.cadenceMs / 2) {
      // The timer fired far past its slot: the process was suspended. Skip rather than backdate.
      this.log(
        'warn',
        `${job.slug}: slot ${new Date(at).toISOString()} missed by ${Math.round(late / 1000)} s, skipped`,
      );
      this.plan(job, at);
      return;
    }
    const p = job
      .run(at)
      .catch((e: unknown) => this.log('error', `${job.slug}: cycle failed: ${(e as Error).message}`))
      .finally(() => {
        this.running.delete(p);
        this.plan(job, at);
      });
    this.running.add(p);
  }

  /** Stops planning and waits for running cycles (each is bounded by its own deadline). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const wake of [...this.waiting]) wake();
    for (const h of this.timers.values()) this.clock.clearTimeout(h);
    this.timers.clear();
    await Promise.all([...this.running]);
  }
}
