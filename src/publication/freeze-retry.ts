/**
 * A failed freeze is retried soon, not at the next day close (a closed day would answer "not
 * frozen" for ~24 h): first after 30 s, then doubling up to once every 15 min until a pass of every
 * closed day succeeds. Timers count real milliseconds; `retryAt` is on the publication's clock.
 */
export const RETRY_FIRST_MS = 30_000;
export const RETRY_MAX_MS = 15 * 60_000;

/** The delay before retry number `attempt` (0 = the first after a failure). */
export function retryDelayMs(attempt: number): number {
  return Math.min(RETRY_FIRST_MS * 2 ** attempt, RETRY_MAX_MS);
}

export class FreezeRetry {
  private attempt = 0;
  private timer: NodeJS.Timeout | undefined;
  private at: number | undefined;
  /** Failed freezes (a day, or the read of which days are closed) since the process started. */
  failures = 0;

  constructor(
    private readonly clock: () => number,
    private readonly rate = 1,
  ) {}

  /** When the next retry runs, on the publication's clock; undefined when none is due. */
  get retryAt(): number | undefined {
    return this.at;
  }

  /** After a pass: schedules `run` with the next backoff when it failed, resets when it succeeded. */
  after(failed: boolean, run: () => void): void {
    this.cancel();
    if (!failed) {
      this.attempt = 0;
      return;
    }
    const delay = retryDelayMs(this.attempt++);
    this.at = this.clock() + delay * this.rate;
    this.timer = setTimeout(run, delay);
    this.timer.unref();
  }

  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.at = undefined;
  }
}
