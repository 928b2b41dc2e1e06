/** How far a start-up backfill has got, summed over its parts (steps done of steps known). */
export interface BackfillProgress {
  readonly done: number;
  readonly total: number;
}

/** What a start-up hook (the demo's backfill) reports while the service is not ready yet. */
export interface StartupProgress {
  /**
   * `done` of `total` steps of one part of the backfill (the demo has two running side by side:
   * harness cycles and json-rpc slots). Each part's latest report counts; /healthz shows the sum.
   */
  backfill(part: string, done: number, total: number): void;
}

/**
 * Where start-up is: "starting" from the moment the port is bound until the first views can be
 * served, then "ok" for good. Until then every request is answered 503 `starting`
 * (src/http/starting.ts). Pure state: the process reads and sets it, nothing here does I/O.
 */
export class StartupState implements StartupProgress {
  /** A plain field: the request listener reads it on every request (src/service.ts). */
  ready = false;
  /**
   * An API replica's first poll of its engine, settled either way (src/replica-poll.ts). The
   * replica is ready before it ends, since what SNAPSHOT_DIR holds needs no engine; /healthz waits
   * for it (bounded) so a probe reads "ok" or "degraded", not a state the poll is about to change.
   */
  firstPoll: Promise<void> | undefined;
  private readonly parts = new Map<string, BackfillProgress>();

  backfill(part: string, done: number, total: number): void {
    if (!Number.isFinite(done) || !Number.isFinite(total) || total <= 0) return;
    this.parts.set(part, { done: Math.min(Math.max(0, done), total), total });
  }

  /** The backfill so far (every part's latest report summed), or undefined when none reported. */
  get progress(): BackfillProgress | undefined {
    if (this.parts.size === 0) return undefined;
    let done = 0;
    let total = 0;
    for (const p of this.parts.values()) {
      done += p.done;
      total += p.total;
    }
    return { done, total };
  }

  markReady(): void {
    this.ready = true;
  }
}
