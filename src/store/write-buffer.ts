import type { Sample } from '../core/samples.ts';
import { EngineError } from './prometheus-http.ts';

export interface WriteBufferOptions {
  /** Bound on buffered samples; beyond it the oldest are dropped (recent cycles feed the live views). */
  readonly maxSamples: number;
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
  /** Sends one batch (one attempt); throws EngineError with `down` while the engine is away. */
  readonly send: (batch: readonly Sample[]) => Promise<void>;
  readonly onDropped: (n: number) => void;
  readonly onError: (e: Error) => void;
}

/**
 * Writes that found the engine down, kept in memory in their original batches and sent again with
 * exponential back-off until the engine answers. Batches stay whole so a batch the engine rejects
 * (4xx) costs only that batch, as it would have cost had the engine been up.
 */
export class WriteBuffer {
  private readonly batches: Sample[][] = [];
  private count = 0;
  private droppedTotal = 0;
  private timer: NodeJS.Timeout | null = null;
  private delay: number;
  private draining: Promise<boolean> | null = null;
  private closed = false;

  constructor(private readonly opts: WriteBufferOptions) {
    this.delay = opts.retryBaseMs;
  }

  get size(): number {
    return this.count;
  }

  get dropped(): number {
    return this.droppedTotal;
  }

  add(batch: readonly Sample[]): void {
    this.batches.push([...batch]);
    this.count += batch.length;
    let over = this.count - this.opts.maxSamples;
    while (over > 0) {
      const head = this.batches[0];
      if (!head) break;
      const n = Math.min(over, head.length);
      head.splice(0, n);
      if (head.length === 0) this.batches.shift();
      this.count -= n;
      over -= n;
      this.drop(n);
    }
    this.schedule();
  }

  private drop(n: number): void {
    if (n <= 0) return;
    this.droppedTotal += n;
    this.opts.onDropped(n);
  }

  private schedule(): void {
    if (this.timer || this.closed || this.count === 0) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.drain();
    }, this.delay);
    // A pending retry must not keep a finished process alive.
    this.timer.unref();
  }

  /** Sends batches in order until empty (true) or the engine is still down (false, retried later). */
  drain(): Promise<boolean> {
    if (!this.draining) {
      this.draining = this.sendAll().finally(() => {
        this.draining = null;
      });
    }
    return this.draining;
  }

  private async sendAll(): Promise<boolean> {
    for (let head = this.batches[0]; head; head = this.batches[0]) {
      try {
        await this.opts.send(head);
      } catch (e) {
        if (e instanceof EngineError && e.down) {
          this.delay = Math.min(this.opts.retryMaxMs, this.delay * 2);
          this.schedule();
          return false;
        }
        // The engine refused this batch for good (bad request): drop it, keep the rest flowing.
        this.opts.onError(
          new Error(
            `buffered batch of ${head.length} samples rejected: ${e instanceof Error ? e.message : e}`,
          ),
        );
        this.drop(head.length);
      }
      // The batch may have shrunk meanwhile (overflow dropped its oldest samples): remove what is there.
      if (this.batches[0] === head) {
        this.batches.shift();
        this.count -= head.length;
      }
    }
    this.delay = this.opts.retryBaseMs;
    return true;
  }

  /** One last attempt; whatever is still buffered afterwards is counted as dropped. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.count > 0) await this.drain();
    if (this.count > 0) {
      this.opts.onError(new Error(`closing with ${this.count} samples still buffered: dropped`));
      this.drop(this.count);
      this.batches.length = 0;
      this.count = 0;
    }
  }
}
