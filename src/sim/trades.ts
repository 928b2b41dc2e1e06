import { base58From, hashInts, hashString, hexFrom, mix32, unit } from './prng.ts';

/**
 * Trades are a pure function of (seed, chain, token, minute): nothing is stored, every page is
 * generated on demand from its position, so 50,000-trade windows cost no memory.
 */
export interface TradeModel {
  readonly seed: number;
  /** Mean distinct transactions per hour for a token. */
  tradesPerHour(chain: string, address: string): number;
  /**
   * Per-provider share of the true trades it returns, per (token, hour): [lo, hi]. By default drawn
   * from the seed for every provider alike (src/sim/profiles.ts); a provider missing here returns
   * every trade.
   */
  readonly capture: Readonly<Record<string, readonly [number, number]>>;
}

/** Default per-token rates: moderate and seed-stable, in the hundreds to low thousands per hour. */
export function defaultTradesPerHour(seed: number): (chain: string, address: string) => number {
  return (chain, address) => {
    const u = unit(hashString(`${seed}|${chain}|${address.toLowerCase()}`));
    return chain === 'stellar' ? 60 + Math.floor(u * 180) : 150 + Math.floor(u * 750);
  };
}

const MINUTE = 60_000;
const HOUR = 3_600_000;
/** Share of transactions that carry two swaps (same hash twice). */
const MULTI_SWAP = 0.08;

/** A row position: minute bucket, trade index in the bucket, swap leg. */
export interface Pos {
  readonly b: number;
  readonly i: number;
  readonly leg: number;
}

export interface TradeRow {
  readonly pos: Pos;
  readonly ts: number;
  readonly hash: string;
  readonly side: 'buy' | 'sell';
}

/**
 * What a simulated provider's trade endpoint pages through: the model (TokenStream) or a demo
 * chain's Swap logs (src/sim/chain-stream.ts). Rows come in position order, so one cursor format
 * (`b-i-leg`) pages both.
 */
export interface RowSource {
  /** Rows in [startMs, endMs), in position order, from `from` (inclusive) or the window start. */
  rows(startMs: number, endMs: number, from?: Pos): Generator<TradeRow>;
}

/**
 * A provider's share of a token's true trades in one hour, drawn in its capture range [lo, hi].
 * The model and the chain-backed answers share it, so a provider's capture level does not change
 * where the chain takes over.
 */
export function captureFraction(
  seed: number,
  [lo, hi]: readonly [number, number],
  providerH: number,
  tokenH: number,
  hour: number,
): number {
  return lo + (hi - lo) * unit(hashInts(seed, providerH, tokenH, hour, 7));
}

/** The token hash of the model (and of the chain answers' draws). */
export function tokenHash(chain: string, address: string): number {
  return hashString(`${chain}|${address.toLowerCase()}`);
}

export class TokenStream implements RowSource {
  private readonly tokenH: number;
  private readonly provH: number;
  private readonly perMinute: number;
  private readonly captureRange: readonly [number, number];
  private readonly fracCache = new Map<number, number>();
  private readonly countCache = new Map<number, number>();

  constructor(
    private readonly model: TradeModel,
    readonly provider: string,
    readonly chain: string,
    readonly address: string,
  ) {
    this.tokenH = tokenHash(chain, address);
    this.provH = hashString(provider);
    this.perMinute = model.tradesPerHour(chain, address) / 60;
    this.captureRange = model.capture[provider] ?? [1, 1];
  }

  /** True transactions in a minute (0.6×–1.4× the mean, seed-stable). */
  countIn(b: number): number {
    let n = this.countCache.get(b);
    if (n === undefined) {
      n = Math.floor(this.perMinute * (0.6 + 0.8 * unit(hashInts(this.model.seed, this.tokenH, b, 1))));
      if (this.countCache.size > 256) this.countCache.clear();
      this.countCache.set(b, n);
    }
    return n;
  }

  private fraction(b: number): number {
    const h = Math.floor((b * MINUTE) / HOUR);
    let f = this.fracCache.get(h);
    if (f === undefined) {
      f = captureFraction(this.model.seed, this.captureRange, this.provH, this.tokenH, h);
      this.fracCache.set(h, f);
    }
    return f;
  }

  private included(b: number, i: number): boolean {
    return unit(hashInts(this.model.seed, this.provH, this.tokenH, b, i)) < this.fraction(b);
  }

  private legs(b: number, i: number): number {
    return unit(hashInts(this.model.seed, this.tokenH, b, i, 2)) < MULTI_SWAP ? 2 : 1;
  }

  hashOf(b: number, i: number): string {
    const h = hashInts(this.model.seed, this.tokenH, b, i, 3);
    if (this.chain === 'solana') return base58From(h, 88);
    if (this.chain === 'stellar') return hexFrom(h, 64);
    return `0x${hexFrom(h, 64)}`;
  }

  /**
   * Rows of this provider in [startMs, endMs), in time order, starting at `from` (inclusive) or at the
   * window start. Timestamps are whole seconds so every provider's window bounds agree.
   */
  *rows(startMs: number, endMs: number, from?: Pos): Generator<TradeRow> {
    const firstB = Math.floor(startMs / MINUTE);
    const lastB = Math.floor((endMs - 1) / MINUTE);
    for (let b = from ? Math.max(from.b, firstB) : firstB; b <= lastB; b++) {
      const n = this.countIn(b);
      const i0 = from && b === from.b ? from.i : 0;
      for (let i = i0; i < n; i++) {
        const ts = b * MINUTE + Math.floor((i * 60) / n) * 1000;
        if (ts < startMs || ts >= endMs || !this.included(b, i)) continue;
        const legs = this.legs(b, i);
        const hash = this.hashOf(b, i);
        const side = mix32(hashInts(this.model.seed, this.tokenH, b, i, 4)) & 1 ? 'buy' : 'sell';
        const leg0 = from && b === from.b && i === from.i ? from.leg : 0;
        for (let leg = leg0; leg < legs; leg++) yield { pos: { b, i, leg }, ts, hash, side };
      }
    }
  }

  /** The true number of distinct transactions in the window (what a perfect provider returns). */
  trueCount(startMs: number, endMs: number): number {
    let total = 0;
    for (let b = Math.floor(startMs / MINUTE); b <= Math.floor((endMs - 1) / MINUTE); b++) {
      const n = this.countIn(b);
      for (let i = 0; i < n; i++) {
        const ts = b * MINUTE + Math.floor((i * 60) / n) * 1000;
        if (ts >= startMs && ts < endMs) total++;
      }
    }
    return total;
  }
}

/** Takes up to `limit` rows and says whether more follow. */
export function takePage(gen: Generator<TradeRow>, limit: number): { rows: TradeRow[]; more: boolean } {
  const rows: TradeRow[] = [];
  for (const r of gen) {
    if (rows.length === limit) return { rows, more: true };
    rows.push(r);
  }
  return { rows, more: false };
}

export function encodePos(p: Pos): string {
  return `${p.b}-${p.i}-${p.leg}`;
}

export function decodePos(s: string): Pos | null {
  const m = /^(\d+)-(\d+)-(\d+)$/.exec(s);
  return m ? { b: Number(m[1]), i: Number(m[2]), leg: Number(m[3]) } : null;
}

/** The position right after `p` (exclusive cursors). */
export function after(p: Pos): Pos {
  return { b: p.b, i: p.i, leg: p.leg + 1 };
}
