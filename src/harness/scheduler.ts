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
    private readonly lastRun: (slug: string) => Promise<number | null> = async () => null,
  ) {}

  start(): void {
    if (this.started && !this.stopped) return;
    this.started = true;
    this.stopped = false;
    for (const job of this.jobs) {
      this.lastRun(job.slug)
        .catch(() => null)
        .then((last) => this.plan(job, last));
    }
  }

  private plan(job: ScheduledJob, last: number | null): void {
    if (this.stopped) return;
    const now = this.clock.now();
    const at = nextSlot(now, job.cadenceMs, last, job.offsetMs ?? 0);
    const handle = this.clock.setTimeout(() => this.fire(job, at), Math.max(0, at - now));
    this.timers.set(job.slug, handle);
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
    for (const h of this.timers.values()) this.clock.clearTimeout(h);
    this.timers.clear();
    await Promise.all([...this.running]);
  }
}
