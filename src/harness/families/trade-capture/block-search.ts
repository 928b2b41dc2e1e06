import { parseQuantity, quantity, type ReferenceRpc, RpcFailure } from '../../reference-rpc.ts';
import { TruthFailure } from './logs.ts';

/** keccak256(rlp([])): the transactionsRoot of a block without transactions. */
export const EMPTY_TX_ROOT = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421';

interface Header {
  readonly number: number;
  readonly timestamp: number;
  readonly transactionsRoot: string;
  readonly txCount: number;
}

function header(raw: unknown, what: string): Header | null {
  if (raw === null) return null;
  const r = raw as Record<string, unknown>;
  if (typeof r !== 'object' || typeof r.transactionsRoot !== 'string' || !Array.isArray(r.transactions))
    throw new TruthFailure('node-error', `${what}: malformed block`);
  return {
    number: parseQuantity(r.number, `${what} number`),
    timestamp: parseQuantity(r.timestamp, `${what} timestamp`),
    transactionsRoot: r.transactionsRoot.toLowerCase(),
    txCount: r.transactions.length,
  };
}

/** A block's header fields the reader uses, or null when the node does not serve the block. */
export async function fetchHeader(
  rpc: ReferenceRpc,
  n: number | 'finalized',
  signal?: AbortSignal,
): Promise<Header | null> {
  const tag = typeof n === 'number' ? quantity(n) : n;
  return header(await rpc.call('eth_getBlockByNumber', [tag, false], signal), `block ${tag}`);
}

/** Entries of the timestamp cache before it starts over (about 25 per search on a 20M-block chain). */
const CACHE_LIMIT = 100_000;

/**
 * Block numbers by timestamp for one chain, by binary search on headers. Timestamps are cached
 * for the run, only for finalized blocks: a reorganised head can change a block's timestamp.
 */
export class BlockClock {
  private readonly ts = new Map<number, number>();

  constructor(private readonly rpc: ReferenceRpc) {}

  header(n: number | 'finalized', signal?: AbortSignal): Promise<Header | null> {
    return fetchHeader(this.rpc, n, signal);
  }

  private async timestamp(n: number, finalized: number, signal?: AbortSignal): Promise<number> {
    const hit = this.ts.get(n);
    if (hit !== undefined) return hit;
    const h = await this.header(n, signal);
    if (h === null) throw new TruthFailure('node-error', `block ${n} (at or below latest) not served`);
    if (n <= finalized) {
      if (this.ts.size >= CACHE_LIMIT) this.ts.clear();
      this.ts.set(n, h.timestamp);
    }
    return h.timestamp;
  }

  /**
   * The first block in [lo, hi] whose timestamp (ms) is >= atMs; hi + 1 when none is. Interpolation
   * on the timestamps of the bracketing blocks first (block times are regular, so a guess lands on
   * or next to the answer), then bisection if it has not converged: a few headers, not log2(hi − lo).
   */
  async firstAtOrAfter(
    atMs: number,
    lo: number,
    hi: number,
    finalized: number,
    signal?: AbortSignal,
  ): Promise<number> {
    if (lo > hi) return lo;
    const at = (n: number) => this.timestamp(n, finalized, signal).then((t) => t * 1000);
    let tL = await at(lo);
    if (tL >= atMs) return lo;
    let tR = await at(hi);
    if (tR < atMs) return hi + 1;
    // Invariant: block L is before atMs, block R at or after it; the answer is in (L, R].
    let L = lo;
    let R = hi;
    for (let step = 0; R - L > 1; step++) {
      const guess = step < 4 ? L + Math.round(((atMs - tL) / (tR - tL)) * (R - L)) : Math.floor((L + R) / 2);
      const g = Math.min(R - 1, Math.max(L + 1, guess));
      const t = await at(g);
      if (t >= atMs) {
        R = g;
        tR = t;
      } else {
        L = g;
        tL = t;
      }
    }
    return R;
  }
}

/**
 * Fails with `before-history` when the node no longer holds the transactions of [from, to]. Anvil
 * prunes the oldest blocks first (--transaction-block-keeper) and then serves their headers with
 * `transactions: []` under a non-empty transactionsRoot, and silently omits their logs: so the
 * first block of the range that has transactions tells whether the whole range is retained. A
 * node that no longer serves the block at all (null, or a "pruned" error) is the same case.
 * Pool discovery runs the same check over its creation scan: a pruned PairCreated is a lost pool.
 */
export async function checkRetained(
  rpc: ReferenceRpc,
  from: number,
  to: number,
  signal?: AbortSignal,
): Promise<void> {
  // One header first (almost every block of a window has transactions), then 8 at a time.
  for (let n = from, batch = 1; n <= to; n += batch, batch = 8) {
    const nums: number[] = [];
    for (let k = n; k <= Math.min(to, n + batch - 1); k++) nums.push(k);
    const headers = await Promise.all(
      nums.map((k) =>
        fetchHeader(rpc, k, signal).catch((e: unknown) => {
          if (e instanceof RpcFailure && /prun|history|not (found|available)/i.test(e.message))
            throw new TruthFailure('before-history', `block ${k}: ${e.message}`);
          throw e;
        }),
      ),
    );
    for (const [i, h] of headers.entries()) {
      const k = nums[i] as number;
      if (h === null) throw new TruthFailure('before-history', `block ${k} is not served by the node`);
      if (h.transactionsRoot === EMPTY_TX_ROOT) continue;
      if (h.txCount === 0)
        throw new TruthFailure(
          'before-history',
          `block ${k}'s transactions are pruned (window starts before the node's history)`,
        );
      return;
    }
  }
}
