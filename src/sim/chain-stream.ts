import { type IndexedSwap, lowerBound } from './chain-trades.ts';
import { hashInts, hashString, hexFrom, mix32, unit } from './prng.ts';
import type { ChainFaultProfile } from './profiles.ts';
import { captureFraction, type Pos, type RowSource, type TradeRow, tokenHash } from './trades.ts';

const HOUR = 3_600_000;
/**
 * A chain row's position is (block, log index, leg): leg 0 the Swap log itself, leg 1 its repeat
 * at the start of the next page, leg 2 a phantom row after it. Extra rows get positions of their
 * own, so a cursor taken after one of them always moves forward.
 */
const LEG_DUPLICATE = 1;
const LEG_PHANTOM = 2;
/** Log indexes stay far below 2^20 in a block: (block, log index) as one sortable number. */
const LOG_SPAN = 2 ** 20;

export interface ChainStreamParts {
  readonly seed: number;
  readonly provider: string;
  readonly chain: string;
  readonly address: string;
  /** The provider's capture range (the model's); undefined: every tx. */
  readonly capture: readonly [number, number] | undefined;
  readonly faults: ChainFaultProfile;
  /** The token's Swap logs, sorted by (block, log index). */
  readonly swaps: readonly IndexedSwap[];
  /** The indexed head's timestamp (ms): the lag counts back from it. */
  readonly headMs: number;
}

function notBefore(p: Pos, from: Pos | undefined): boolean {
  if (!from) return true;
  return p.b !== from.b ? p.b > from.b : p.i !== from.i ? p.i > from.i : p.leg >= from.leg;
}

/**
 * One provider's answer for a token, read from the chain's Swap logs with that provider's faults:
 * dropped txs (its capture range, per token and hour, as in the model), indexing lag, repeats
 * across pages, real rows from outside the window and phantom hashes. Every draw is a pure
 * function of (seed, provider, chain, token, row or window).
 */
export class ChainTokenStream implements RowSource {
  private readonly provH: number;
  private readonly tokenH: number;
  private readonly fracCache = new Map<number, number>();

  constructor(private readonly p: ChainStreamParts) {
    this.provH = hashString(p.provider);
    this.tokenH = tokenHash(p.chain, p.address);
  }

  private draw(...parts: number[]): number {
    return unit(hashInts(this.p.seed, this.provH, this.tokenH, ...parts));
  }

  /** Dropped or kept per tx, so both Swap logs of a multi-hop tx go together. */
  private kept(r: IndexedSwap): boolean {
    const range = this.p.capture;
    if (!range) return true;
    const hour = Math.floor(r.ts / HOUR);
    let f = this.fracCache.get(hour);
    if (f === undefined) {
      f = captureFraction(this.p.seed, range, this.provH, this.tokenH, hour);
      this.fracCache.set(hour, f);
    }
    return this.draw(hashString(r.hash), 8) < f;
  }

  /** How many real rows from beyond one edge of the window (1 before the start, 2 after the end) an answer adds. */
  private outside(startMs: number, endMs: number, edge: 1 | 2): number {
    const max = this.p.faults.outOfWindowMax;
    if (max <= 0) return 0;
    const sec = Math.floor((edge === 1 ? startMs : endMs) / 1000);
    return Math.floor(this.draw(sec, 20 + edge) * (max + 1));
  }

  *rows(startMs: number, endMs: number, from?: Pos): Generator<TradeRow> {
    const s = this.p.swaps;
    const f = this.p.faults;
    const lo = lowerBound(s, startMs, (r) => r.ts);
    const hi = lowerBound(s, endMs, (r) => r.ts);
    const end = Math.min(s.length, hi + this.outside(startMs, endMs, 2));
    let k = Math.max(0, lo - this.outside(startMs, endMs, 1));
    if (from)
      k = Math.max(
        k,
        lowerBound(s, from.b * LOG_SPAN + from.i, (r) => r.block * LOG_SPAN + r.logIndex),
      );
    // Logs newer than the indexed head's time minus the lag are not indexed by the provider yet.
    const cut = this.p.headMs - f.lagSec * 1000;
    for (; k < end; k++) {
      const r = s[k] as IndexedSwap;
      if (r.ts > cut) break;
      const kept = this.kept(r);
      const row = { pos: { b: r.block, i: r.logIndex, leg: 0 }, ts: r.ts, hash: r.hash, side: r.side };
      if (kept && notBefore(row.pos, from)) yield row;
      // A page that ended on this row: the next one starts with it again.
      const dup = { ...row, pos: { b: r.block, i: r.logIndex, leg: LEG_DUPLICATE } };
      if (
        kept &&
        from?.b === r.block &&
        from.i === r.logIndex &&
        notBefore(dup.pos, from) &&
        this.draw(r.block, r.logIndex, 23) < f.duplicateRate
      )
        yield dup;
      if (this.draw(r.block, r.logIndex, 24) < f.phantomRate) {
        const h = hashInts(this.p.seed, this.provH, this.tokenH, r.block, r.logIndex, 25);
        const pos = { b: r.block, i: r.logIndex, leg: LEG_PHANTOM };
        const side = mix32(h) & 1 ? 'buy' : 'sell';
        if (notBefore(pos, from)) yield { pos, ts: r.ts, hash: `0x${hexFrom(h, 64)}`, side };
      }
    }
  }
}
