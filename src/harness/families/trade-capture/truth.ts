import { DigestSet } from '../../digest-set.ts';
import { parseQuantity, ReferenceRpc } from '../../reference-rpc.ts';
import { BlockClock, checkRetained } from './block-search.ts';
import { type DexDeployment, dexesOf } from './dexes.ts';
import { chunked, type GetLogsStats, getLogsSplit, type Hex, type LogFilter, TruthFailure } from './logs.ts';
import { countPhantoms } from './phantoms.ts';
import { discoverPools, memoryPoolCache, type Pool, type PoolCache } from './pools.ts';

export type TruthReason = 'no-reference-node' | 'before-history' | 'node-error' | 'limit';

export type Truth =
  | {
      readonly status: 'ok';
      /** T: distinct tx hashes of the token's Swap logs in the window, up to the node's latest block. */
      readonly all: DigestSet;
      /** T_fin: the same, only blocks <= finalizedTo. */
      readonly finalized: DigestSet;
      readonly fromBlock: number;
      readonly toBlock: number;
      /** min(node's finalized block, toBlock): T_fin covers [fromBlock, finalizedTo]. */
      readonly finalizedTo: number;
      /** The node held a block after the window: every transaction of the window is on it. */
      readonly complete: boolean;
    }
  | { readonly status: 'unavailable'; readonly reason: TruthReason; readonly message: string };

export interface TruthReader {
  read(
    chain: string,
    token: `0x${string}`,
    w: { startMs: number; endMs: number },
    signal?: AbortSignal,
  ): Promise<Truth>;
  /**
   * Of a provider's hashes the cell's truth does not hold, how many are verified phantoms
   * (countPhantoms), looked up on the chain's reference node. Throws on a node error.
   */
  phantoms(
    chain: string,
    token: `0x${string}`,
    hashes: readonly string[],
    signal?: AbortSignal,
  ): Promise<number>;
}

export interface TruthReaderOptions {
  /** chain -> node URL (REFERENCE_RPC_<CHAIN>). */
  readonly references: ReadonlyMap<string, string>;
  /** The DEXes of a chain: dexesOf by default; the demo passes its own deployments. */
  readonly dexes?: (chain: string) => readonly DexDeployment[];
  readonly cache?: PoolCache;
  /** Per request (default 10 s). */
  readonly timeoutMs?: number;
  /** Requests and limit errors of every read, added up (benches and tests read it). */
  readonly stats?: GetLogsStats;
}

/** Hashes a cell may hold before its truth is refused as over the limit (a digest costs 16 bytes). */
const TRUTH_CAPACITY = 10_000_000;

/** The getLogs filters that return every Swap of `pools`: by pool address, or V4 by manager and pool id. */
export function swapFilters(dex: DexDeployment, pools: readonly Pool[]): LogFilter[] {
  if (pools.length === 0) return [];
  if (dex.kind === 'uniswap-v4') {
    const ids = pools.flatMap((p) => (p.id ? [p.id] : []));
    return chunked(ids).map((c) => ({ address: dex.factory, topics: [dex.swapTopic, c] }));
  }
  return chunked(pools.map((p) => p.address)).map((c) => ({ address: c, topics: [dex.swapTopic] }));
}

interface Chain {
  readonly rpc: ReferenceRpc;
  readonly clock: BlockClock;
  readonly ranges: Map<string, { readonly at: number; readonly range: Promise<BlockRange> }>;
}

/** The blocks of one window on one node: shared by every token of the chain read at that time. */
interface BlockRange {
  readonly fromBlock: number;
  readonly toBlock: number;
  readonly finalizedTo: number;
  readonly complete: boolean;
}

async function readRange(
  c: Chain,
  w: { startMs: number; endMs: number },
  signal: AbortSignal | undefined,
): Promise<BlockRange> {
  const latest = parseQuantity(await c.rpc.call('eth_blockNumber', [], signal), 'eth_blockNumber');
  const fin = await c.clock.header('finalized', signal);
  if (fin === null) throw new TruthFailure('node-error', 'the node serves no finalized block');
  // Read after latest, finalized may have moved past it: T_fin never runs past the range read.
  const finalized = Math.min(fin.number, latest);
  const fromBlock = await c.clock.firstAtOrAfter(w.startMs, 0, latest, finalized, signal);
  if (fromBlock === 0) {
    // The window opens before the chain's first block (a young demo chain): not its history.
    const genesis = await c.clock.header(0, signal);
    if (genesis !== null && genesis.timestamp * 1000 > w.startMs)
      throw new TruthFailure('before-history', "the window starts before the chain's first block");
  }
  // Never past latest: anvil clamps a range past its head, and a block mined since has no place here.
  const toBlock = (await c.clock.firstAtOrAfter(w.endMs, fromBlock, latest, finalized, signal)) - 1;
  return { fromBlock, toBlock, finalizedTo: Math.min(finalized, toBlock), complete: toBlock < latest };
}

/** How long a window's block range is shared between the cells of a chain (one cycle reads them together). */
const RANGE_SHARE_MS = 5_000;

async function readCell(
  c: Chain,
  dexes: readonly DexDeployment[],
  token: Hex,
  w: { startMs: number; endMs: number },
  cache: PoolCache,
  signal: AbortSignal | undefined,
  stats: GetLogsStats | undefined,
): Promise<Truth> {
  const key = `${w.startMs}|${w.endMs}`;
  let shared = c.ranges.get(key);
  if (!shared || performance.now() - shared.at > RANGE_SHARE_MS) {
    shared = { at: performance.now(), range: readRange(c, w, signal) };
    c.ranges.clear();
    c.ranges.set(key, shared);
    // A failed read is not shared: the next cell asks again.
    shared.range.catch(() => c.ranges.delete(key));
  }
  const { fromBlock, toBlock, finalizedTo, complete } = await shared.range;
  const all = new DigestSet(TRUTH_CAPACITY);
  const fins = new DigestSet(TRUTH_CAPACITY);
  if (fromBlock > toBlock)
    return { status: 'ok', all, finalized: fins, fromBlock, toBlock, finalizedTo, complete };
  await checkRetained(c.rpc, fromBlock, toBlock, signal);
  for (const dex of dexes) {
    const pools = await discoverPools(c.rpc, dex, token, toBlock, cache, signal, stats, w.endMs);
    for (const filter of swapFilters(dex, pools)) {
      await getLogsSplit(
        c.rpc,
        filter,
        fromBlock,
        toBlock,
        (log) => {
          if (
            !all.add(log.transactionHash) ||
            (log.blockNumber <= finalizedTo && !fins.add(log.transactionHash))
          )
            throw new TruthFailure('limit', `more than ${TRUTH_CAPACITY} swaps in one cell`);
        },
        signal,
        stats,
      );
    }
  }
  // Pruning only moves forward: retained after the reads means retained during them.
  await checkRetained(c.rpc, fromBlock, toBlock, signal);
  return { status: 'ok', all, finalized: fins, fromBlock, toBlock, finalizedTo, complete };
}

/**
 * The on-chain truth of a (chain, token) cell (issue 23 §5): the distinct transaction hashes of
 * the Swap logs of the token's pools in the blocks whose timestamps lie in [start, end), read from
 * the chain's reference node. Any doubt gives no truth, never a low count: a chain without a
 * reference node, a window before the node's retained history, a node error, or a single block
 * over the node's eth_getLogs limit each give `unavailable` with the reason.
 */
export function createTruthReader(opts: TruthReaderOptions): TruthReader {
  const chains = new Map<string, Chain>();
  const cache = opts.cache ?? memoryPoolCache();
  const dexes = opts.dexes ?? dexesOf;
  const chainOf = (chain: string): Chain | null => {
    const url = opts.references.get(chain);
    if (url === undefined) return null;
    let c = chains.get(chain);
    if (c === undefined) {
      const rpc = new ReferenceRpc(url, opts.timeoutMs);
      c = { rpc, clock: new BlockClock(rpc), ranges: new Map() };
      chains.set(chain, c);
    }
    return c;
  };
  return {
    async phantoms(chain, token, hashes, signal) {
      const c = chainOf(chain);
      if (c === null) throw new Error(`no reference node for ${chain}`);
      return countPhantoms(c.rpc, token, hashes, signal);
    },
    async read(chain, token, w, signal) {
      const c = chainOf(chain);
      if (c === null)
        return {
          status: 'unavailable',
          reason: 'no-reference-node',
          message: `no reference node for ${chain}`,
        };
      try {
        return await readCell(c, dexes(chain), token.toLowerCase() as Hex, w, cache, signal, opts.stats);
      } catch (e) {
        if (e instanceof TruthFailure) return { status: 'unavailable', reason: e.reason, message: e.message };
        return {
          status: 'unavailable',
          reason: 'node-error',
          message: e instanceof Error ? e.message : String(e),
        };
      }
    },
  };
}
