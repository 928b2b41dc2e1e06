import { V2_SWAP_TOPIC } from './chains/dex.ts';

/**
 * An in-memory index of one demo chain's Uniswap V2 Swap logs, per reference token: what the
 * simulated Mobula, Codex and Bitquery read instead of the model for windows inside the node's
 * retained history (issue 23, item 3). Read from the node with eth_getLogs, incrementally.
 */

/** Trading starts at block 2 (block 1 deploys the DEX): no Swap log is older. */
const FIRST_TRADE_BLOCK = 2;
/** Blocks per eth_getLogs call: Alchemy's range limit, a size every real node also accepts. */
const DEFAULT_MAX_RANGE = 2_000;
/** Headers per batch when a node's logs carry no blockTimestamp. */
const HEADER_BATCH = 500;

export interface DexPair {
  readonly address: string;
  readonly token0: string;
  readonly token1: string;
}

/** One Swap log of a token's pair. */
export interface IndexedSwap {
  readonly block: number;
  readonly logIndex: number;
  /** Block timestamp (ms). */
  readonly ts: number;
  readonly hash: string;
  /** `buy` when the pool paid the token out. */
  readonly side: 'buy' | 'sell';
}

export interface BlockRef {
  readonly block: number;
  readonly timestampMs: number;
}

export interface ChainTradeIndexOptions {
  readonly chain: string;
  readonly url: string;
  readonly pairs: readonly DexPair[];
  /** The tokens indexed (their pairs' logs are read); other pairs are ignored. */
  readonly tokens: readonly string[];
  /** Blocks the node keeps logs of (anvil's --transaction-block-keeper): older logs are silently missing. */
  readonly keptBlocks: number;
  readonly maxRange?: number;
  readonly timeoutMs?: number;
}

interface RpcLog {
  readonly address: string;
  readonly data: string;
  readonly blockNumber: string;
  readonly blockTimestamp?: string;
  readonly transactionHash: string;
  readonly logIndex: string;
  readonly removed?: boolean;
}

interface RpcReply {
  readonly id?: unknown;
  readonly result?: unknown;
  readonly error?: { readonly message?: string; readonly code?: number };
}

function quantity(n: number): string {
  return `0x${n.toString(16)}`;
}

function num(hex: unknown): number {
  if (typeof hex !== 'string' || !hex.startsWith('0x')) throw new Error(`not a hex quantity: ${String(hex)}`);
  return Number.parseInt(hex, 16);
}

/** Index of the first element whose key is ≥ `k` (elements sorted by key). */
export function lowerBound<T>(xs: readonly T[], k: number, key: (x: T) => number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (key(xs[mid] as T) < k) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class ChainTradeIndex {
  readonly chain: string;
  private readonly url: string;
  private readonly pairs: ReadonlyMap<string, { readonly token: string; readonly isToken0: boolean }[]>;
  private readonly byToken = new Map<string, IndexedSwap[]>();
  private readonly keptBlocks: number;
  private readonly maxRange: number;
  private readonly timeoutMs: number;
  private readonly abort = new AbortController();
  private synced = 0;
  private headRef: BlockRef | null = null;
  private firstRef: BlockRef | null = null;
  private inFlight: Promise<void> | null = null;
  private nextId = 1;
  /** The last sync's failure (null after a good one): answers then come from what was indexed before. */
  lastError: string | null = null;

  constructor(opts: ChainTradeIndexOptions) {
    this.chain = opts.chain;
    this.url = opts.url;
    this.keptBlocks = opts.keptBlocks;
    this.maxRange = opts.maxRange ?? DEFAULT_MAX_RANGE;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    const tokens = new Set(opts.tokens.map((t) => t.toLowerCase()));
    for (const t of tokens) this.byToken.set(t, []);
    const pairs = new Map<string, { token: string; isToken0: boolean }[]>();
    for (const p of opts.pairs) {
      const sides = [
        { token: p.token0.toLowerCase(), isToken0: true },
        { token: p.token1.toLowerCase(), isToken0: false },
      ].filter((s) => tokens.has(s.token));
      if (sides.length > 0) pairs.set(p.address.toLowerCase(), sides);
    }
    this.pairs = pairs;
  }

  /** Whether the token has pairs here (only those are answered from the chain). */
  has(token: string): boolean {
    return this.byToken.has(token.toLowerCase());
  }

  /** The token's Swap logs in retained blocks, sorted by (block, logIndex); empty when unknown. */
  rows(token: string): readonly IndexedSwap[] {
    return this.byToken.get(token.toLowerCase()) ?? [];
  }

  /** The newest block indexed (null before the first good sync). */
  head(): BlockRef | null {
    return this.headRef;
  }

  /** The node's oldest block with logs (head − keptBlocks + 1, at least block 2): windows starting earlier keep the model. */
  firstRetained(): BlockRef | null {
    return this.firstRef;
  }

  /** Reads the node's new blocks; concurrent calls share one read. */
  sync(): Promise<void> {
    this.inFlight ??= this.read()
      .then(
        () => {
          this.lastError = null;
        },
        (e: unknown) => {
          this.lastError = (e as Error).message;
          throw e;
        },
      )
      .finally(() => {
        this.inFlight = null;
      });
    return this.inFlight;
  }

  /** Aborts any read in flight; the index answers from what it holds. */
  close(): void {
    this.abort.abort();
  }

  private async batch(calls: readonly { method: string; params: readonly unknown[] }[]): Promise<unknown[]> {
    const first = this.nextId;
    this.nextId += calls.length;
    const body = calls.map((c, i) => ({ jsonrpc: '2.0', id: first + i, method: c.method, params: c.params }));
    const res = await fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.any([this.abort.signal, AbortSignal.timeout(this.timeoutMs)]),
    });
    if (!res.ok) throw new Error(`${this.chain} node: HTTP ${res.status}`);
    const replies = (await res.json()) as RpcReply[];
    const out: unknown[] = new Array(calls.length);
    for (const r of Array.isArray(replies) ? replies : [replies]) {
      const i = typeof r.id === 'number' ? r.id - first : -1;
      const call = calls[i];
      if (!call) throw new Error(`${this.chain} node: unexpected reply id ${String(r.id)}`);
      if (r.error) throw new Error(`${this.chain} ${call.method}: ${r.error.message ?? 'error'}`);
      out[i] = r.result;
    }
    return out;
  }

  private async timestamps(blocks: readonly number[]): Promise<Map<number, number>> {
    const out = new Map<number, number>();
    for (let k = 0; k < blocks.length; k += HEADER_BATCH) {
      const part = blocks.slice(k, k + HEADER_BATCH);
      const got = await this.batch(
        part.map((n) => ({ method: 'eth_getBlockByNumber', params: [quantity(n), false] })),
      );
      part.forEach((n, i) => {
        const b = got[i] as { timestamp?: string } | null;
        if (!b) throw new Error(`${this.chain}: block ${n} missing`);
        out.set(n, num(b.timestamp) * 1000);
      });
    }
    return out;
  }

  private async read(): Promise<void> {
    const [headHex] = await this.batch([{ method: 'eth_blockNumber', params: [] }]);
    const head = num(headHex);
    if (head < FIRST_TRADE_BLOCK || (head === this.synced && this.headRef)) return;
    const first = Math.max(FIRST_TRADE_BLOCK, head - this.keptBlocks + 1);
    // Blocks already read stay read; blocks the node has pruned since are no longer asked for.
    const from = Math.max(this.synced + 1, first);
    const ends = await this.timestamps([...new Set([first, head])]);
    const fresh: (IndexedSwap & { readonly token: string })[] = [];
    for (let a = from; a <= head; a += this.maxRange) {
      const b = Math.min(head, a + this.maxRange - 1);
      const [got] = await this.batch([
        {
          method: 'eth_getLogs',
          params: [
            {
              fromBlock: quantity(a),
              toBlock: quantity(b),
              address: [...this.pairs.keys()],
              topics: [V2_SWAP_TOPIC],
            },
          ],
        },
      ]);
      const logs = (got as RpcLog[]).filter((l) => !l.removed);
      const untimed = [...new Set(logs.filter((l) => !l.blockTimestamp).map((l) => num(l.blockNumber)))];
      const times = untimed.length > 0 ? await this.timestamps(untimed) : new Map<number, number>();
      for (const l of logs) {
        const block = num(l.blockNumber);
        const ts = l.blockTimestamp ? num(l.blockTimestamp) * 1000 : times.get(block);
        if (ts === undefined) throw new Error(`${this.chain}: no timestamp for block ${block}`);
        for (const s of this.pairs.get(l.address.toLowerCase()) ?? []) {
          // data: amount0In, amount1In, amount0Out, amount1Out (32 bytes each); the token's Out > 0 is a buy.
          const out = l.data.slice(2 + 64 * (s.isToken0 ? 2 : 3), 2 + 64 * (s.isToken0 ? 3 : 4));
          const side = /[1-9a-f]/i.test(out) ? 'buy' : 'sell';
          fresh.push({ token: s.token, block, logIndex: num(l.logIndex), ts, hash: l.transactionHash, side });
        }
      }
    }
    // Committed only after every range is read: a failed sync leaves the index as it was.
    fresh.sort((x, y) => x.block - y.block || x.logIndex - y.logIndex);
    for (const [token, rows] of this.byToken) {
      const keep = lowerBound(rows, first, (r) => r.block);
      if (keep > 0) rows.splice(0, keep);
      for (const r of fresh) {
        if (r.token === token)
          rows.push({ block: r.block, logIndex: r.logIndex, ts: r.ts, hash: r.hash, side: r.side });
      }
    }
    this.synced = head;
    this.headRef = { block: head, timestampMs: ends.get(head) ?? 0 };
    this.firstRef = { block: first, timestampMs: ends.get(first) ?? 0 };
  }
}
