import type { ReferenceRpc } from '../../reference-rpc.ts';
import { checkRetained } from './block-search.ts';
import type { DexDeployment, DexKind } from './dexes.ts';
import { type GetLogsStats, getLogsSplit, type Hex, type SlimLog, TruthFailure } from './logs.ts';

export interface Pool {
  readonly dex: string;
  readonly kind: DexKind;
  /** The pool contract; for V4 the PoolManager, which emits the Swaps of all its pools. */
  readonly address: `0x${string}`;
  /** V4 only: the pool id, topic1 of its Swap logs. */
  readonly id?: `0x${string}`;
}

export interface PoolCache {
  get(key: string): { pools: Pool[]; scannedTo: number } | undefined;
  /** `at`: the time of the read that extended the scan (a stored cache stamps its samples with it). */
  set(key: string, v: { pools: Pool[]; scannedTo: number }, at?: number): void;
}

/** The in-memory PoolCache: a token's pools are scanned once from the factory's deployment, then only new blocks. */
export function memoryPoolCache(): PoolCache {
  const m = new Map<string, { pools: Pool[]; scannedTo: number }>();
  return { get: (k) => m.get(k), set: (k, v) => void m.set(k, v) };
}

/** Blocks of creation logs scanned per step of a token's pool discovery (progress is kept per step). */
export const SCAN_SLICE_BLOCKS = 500_000;

export function poolCacheKey(dex: DexDeployment, token: string): string {
  return `${dex.chain}|${dex.name}|${dex.factory.toLowerCase()}|${token.toLowerCase()}`;
}

/** An address as a 32-byte topic (left-padded), the form indexed address parameters take. */
export function addressTopic(address: string): Hex {
  return `0x${address.slice(2).toLowerCase().padStart(64, '0')}`;
}

function wordAddress(data: string, word: number): Hex {
  const start = 2 + word * 64;
  const hex = data.slice(start + 24, start + 64);
  if (hex.length !== 40) throw new TruthFailure('node-error', 'pool creation log: data too short');
  return `0x${hex.toLowerCase()}`;
}

/**
 * The pool a creation log announces. Indexed fields (topics) and data words per event:
 * V2 PairCreated(token0*, token1*, pair, n): pair = data word 0.
 * V3 / PancakeSwap V3 PoolCreated(token0*, token1*, fee*, tickSpacing, pool): pool = data word 1.
 * Aerodrome PoolCreated(token0*, token1*, stable*, pool, n): pool = data word 0.
 * V4 Initialize(id*, currency0*, currency1*, fee, tickSpacing, hooks, sqrtPriceX96, tick): id = topic1.
 */
function poolOf(dex: DexDeployment, log: SlimLog): Pool {
  switch (dex.kind) {
    case 'uniswap-v2':
    case 'aerodrome':
      return { dex: dex.name, kind: dex.kind, address: wordAddress(log.data, 0) };
    case 'uniswap-v3':
    case 'pancakeswap-v3':
      return { dex: dex.name, kind: dex.kind, address: wordAddress(log.data, 1) };
    case 'uniswap-v4': {
      const id = log.topics[1];
      if (id === undefined) throw new TruthFailure('node-error', 'Initialize log without a pool id');
      return {
        dex: dex.name,
        kind: dex.kind,
        address: dex.factory.toLowerCase() as Hex,
        id: id.toLowerCase() as Hex,
      };
    }
  }
}

/** The topic positions a token can take in the creation event: both tokens are indexed. */
function tokenFilters(dex: DexDeployment, token: string): (string | null)[][] {
  const t = addressTopic(token);
  // V4's topic1 is the pool id: the currencies are topics 2 and 3.
  return dex.kind === 'uniswap-v4'
    ? [
        [dex.creationTopic, null, t],
        [dex.creationTopic, null, null, t],
      ]
    : [
        [dex.creationTopic, t],
        [dex.creationTopic, null, t],
      ];
}

/**
 * Every pool of `token` on `dex` created up to `toBlock`, from the factory's creation logs with the
 * token in either indexed position. The scan starts at the factory's deployment block once, then
 * continues from the cached `scannedTo`; creation scans go through the same range splitting as
 * the Swap reads, so a provider's limits cost requests, never pools. A chain whose node no longer
 * holds the factory's early blocks cannot be scanned: seed the cache (`poolCacheKey`) with the
 * pools and the block they are known to.
 */
export async function discoverPools(
  rpc: ReferenceRpc,
  dex: DexDeployment,
  token: `0x${string}`,
  toBlock: number,
  cache: PoolCache,
  signal?: AbortSignal,
  stats?: GetLogsStats,
  at?: number,
  sliceBlocks = SCAN_SLICE_BLOCKS,
): Promise<Pool[]> {
  const key = poolCacheKey(dex, token);
  const cached = cache.get(key);
  const from = Math.max(dex.fromBlock, (cached?.scannedTo ?? -1) + 1);
  if (from > toBlock) return cached?.pools ?? [];
  const pools = [...(cached?.pools ?? [])];
  const seen = new Set(pools.map((p) => p.id ?? p.address));
  // In slices, each kept when done: a first scan from a factory deployed millions of blocks ago
  // outlasts one cycle's budget, and the next cycle (or a restart, through a stored cache)
  // continues from the last slice instead of the deployment block.
  for (let a = from; a <= toBlock; a += sliceBlocks) {
    const b = Math.min(toBlock, a + sliceBlocks - 1);
    for (const topics of tokenFilters(dex, token)) {
      await getLogsSplit(
        rpc,
        { address: dex.factory, topics },
        a,
        b,
        (log) => {
          const pool = poolOf(dex, log);
          const k = pool.id ?? pool.address;
          if (seen.has(k)) return;
          seen.add(k);
          pools.push(pool);
        },
        signal,
        stats,
      );
    }
    // A node that pruned part of the scan omits those creation logs silently: no pool list then
    // (before-history); the demo, whose nodes keep 2,700 blocks, seeds the cache with its pools.
    await checkRetained(rpc, a, b, signal);
    cache.set(key, { pools: [...pools], scannedTo: b }, at);
  }
  return pools;
}
