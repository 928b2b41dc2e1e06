export type RateVerdict = { ok: true } | { ok: false; retryAfterSec: number };

/** A client's standing, as the RateLimit-Limit, -Remaining and -Reset fields say it. */
export interface RateState {
  readonly limit: number;
  /** Whole requests the client may still send now. */
  readonly remaining: number;
  /** Seconds until the bucket is full again (0 when it is). */
  readonly resetSec: number;
}

/**
 * Token bucket per key (client IP): `perMinute` tokens of capacity, refilled continuously. The map
 * is bounded: it is kept in least-recently-seen order and the oldest key goes when it is full
 * (an evicted client simply starts again with a full bucket).
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly perMs: number;

  constructor(
    private readonly perMinute: number,
    private readonly maxKeys = 10_000,
    private readonly now: () => number = () => Date.now(),
  ) {
    this.perMs = perMinute / 60_000;
  }

  take(key: string): RateVerdict {
    const now = this.now();
    const b = this.buckets.get(key);
    let tokens = this.perMinute;
    if (b) {
      tokens = this.refilled(b, now);
      this.buckets.delete(key);
    } else if (this.buckets.size >= this.maxKeys) {
      const oldest = this.buckets.keys().next().value;
      if (oldest !== undefined) this.buckets.delete(oldest);
    }
    if (tokens < 1) {
      this.buckets.set(key, { tokens, at: now });
      return { ok: false, retryAfterSec: Math.max(1, Math.ceil((1 - tokens) / this.perMs / 1000)) };
    }
    this.buckets.set(key, { tokens: tokens - 1, at: now });
    return { ok: true };
  }

  /** The client's standing now, spending nothing (answers that cost no token still say it). */
  state(key: string): RateState {
    const b = this.buckets.get(key);
    const tokens = b ? this.refilled(b, this.now()) : this.perMinute;
    return {
      limit: this.perMinute,
      remaining: Math.floor(tokens),
      resetSec: Math.ceil((this.perMinute - tokens) / this.perMs / 1000),
    };
  }

  get size(): number {
    return this.buckets.size;
  }

  private refilled(b: { tokens: number; at: number }, now: number): number {
    return Math.min(this.perMinute, b.tokens + (now - b.at) * this.perMs);
  }
}
