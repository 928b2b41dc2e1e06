import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DexDeployment, dexDeployment } from '../../src/harness/families/trade-capture/dexes.ts';
import {
  discoverPools,
  memoryPoolCache,
  type Pool,
  poolCacheKey,
} from '../../src/harness/families/trade-capture/pools.ts';
import { createTruthReader } from '../../src/harness/families/trade-capture/truth.ts';
import { ReferenceRpc } from '../../src/harness/reference-rpc.ts';
import { type AnvilNode, startAnvil } from '../../src/sim/chains/anvil.ts';
import { RpcClient } from '../../src/sim/chains/rpc.ts';
import {
  createV3Pool,
  createV4Pool,
  type DexV3V4,
  deployDexV3V4,
  mineEmpty,
  swapV3Single,
  swapV4,
} from '../helpers/dex-v3v4.ts';

/**
 * Pool discovery and truth counting against Uniswap V3 and V4 deployed from the packages' artifacts
 * (issue 23 §4): the V3 factory's PoolCreated, the V4 PoolManager's Initialize (pool id in topic1,
 * currencies in topics 2 and 3) and Swap (emitted by the manager, pool id in topic1).
 */

const CHAIN = 'ethereum';
const URL_V3 = 'https://docs.uniswap.org/contracts/v3/reference/deployments/ethereum-deployments';
const URL_V4 = 'https://docs.uniswap.org/contracts/v4/deployments';

let node: AnvilNode | undefined;
let rpc: RpcClient;
let dex: DexV3V4;
let v3: DexDeployment;
let v4: DexDeployment;
let A: `0x${string}`;
let B: `0x${string}`;
let C: `0x${string}`;

beforeAll(async () => {
  node = await startAnvil({ chainId: 1 });
  rpc = new RpcClient(node.url);
  dex = await deployDexV3V4(rpc);
  v3 = dexDeployment(CHAIN, 'Local Uniswap V3', 'uniswap-v3', dex.v3.factory, dex.v3.fromBlock, URL_V3);
  v4 = dexDeployment(CHAIN, 'Local Uniswap V4', 'uniswap-v4', dex.v4.manager, dex.v4.fromBlock, URL_V4);
  [A, B, C] = dex.tokens.map((t) => t.address) as [`0x${string}`, `0x${string}`, `0x${string}`];
});

afterAll(async () => {
  await node?.stop();
});

const latest = async (): Promise<number> => Number(await rpc.call<string>('eth_blockNumber'));
const keys = (pools: readonly Pool[]): string[] => pools.map((p) => p.id ?? p.address).sort();
const v3PoolsOf = (t: string): string[] =>
  dex.v3.pools.filter((p) => p.token0 === t || p.token1 === t).map((p) => p.address);
const v4IdsOf = (t: string): string[] =>
  dex.v4.pools.filter((p) => p.currency0 === t || p.currency1 === t).map((p) => p.id);

/** The distinct swap txs of token `t` among the helper's records: a multi-hop tx once. */
function swapTxsOf(t: string): Set<string> {
  const v3Pools = new Set(v3PoolsOf(t));
  const v4Ids = new Set(v4IdsOf(t));
  return new Set([
    ...dex.v3.swaps.filter((s) => v3Pools.has(s.pool)).map((s) => s.tx),
    ...dex.v4.swaps.filter((s) => v4Ids.has(s.poolId)).map((s) => s.tx),
  ]);
}

async function blockMs(n: number): Promise<number> {
  const b = await rpc.call<{ timestamp: string }>('eth_getBlockByNumber', [`0x${n.toString(16)}`, false]);
  return Number(b.timestamp) * 1000;
}

describe('V3 and V4 pool discovery on anvil', () => {
  it('finds exactly the V3 pools and the V4 pool ids of a token, in either token position', async () => {
    const truthRpc = new ReferenceRpc(node?.url ?? '');
    const head = await latest();
    for (const t of [A, B, C]) {
      const cache = memoryPoolCache();
      const p3 = await discoverPools(truthRpc, v3, t, head, cache);
      expect(keys(p3)).toEqual(v3PoolsOf(t).sort());
      expect(p3.every((p) => p.kind === 'uniswap-v3' && p.id === undefined)).toBe(true);
      const p4 = await discoverPools(truthRpc, v4, t, head, cache);
      expect(keys(p4)).toEqual(v4IdsOf(t).sort());
      expect(p4.every((p) => p.kind === 'uniswap-v4' && p.address === dex.v4.manager)).toBe(true);
    }
    // A has pools as token0 and as token1 of its pairs (sorting decides), B in the middle of three.
    expect(v3PoolsOf(A)).toHaveLength(3);
    expect(v4IdsOf(B)).toHaveLength(2);
  });

  it('extends a cached scan with only the blocks after scannedTo', async () => {
    const truthRpc = new ReferenceRpc(node?.url ?? '');
    const cache = memoryPoolCache();
    const before = await latest();
    // A cache that says "scanned, no pools": only a scan from before + 1 on can find anything.
    cache.set(poolCacheKey(v3, C), { pools: [], scannedTo: before });
    cache.set(poolCacheKey(v4, C), { pools: [], scannedTo: before });
    const newV3 = await createV3Pool(rpc, dex, A, C, 10_000, 200);
    const newV4 = await createV4Pool(rpc, dex, A, C, 10_000, 200);
    const head = await latest();
    expect(keys(await discoverPools(truthRpc, v3, C, head, cache))).toEqual([newV3.address]);
    expect(keys(await discoverPools(truthRpc, v4, C, head, cache))).toEqual([newV4.id]);
    expect(cache.get(poolCacheKey(v3, C))?.scannedTo).toBe(head);
    // Up to date: a second call finds the same pools without a new scan range.
    expect(keys(await discoverPools(truthRpc, v4, C, head, cache))).toEqual([newV4.id]);
  });
});

describe('V3 and V4 truth on anvil', () => {
  it('counts each swap tx of a token once, multi-hop once, and only finalized blocks in T_fin', async () => {
    const reader = createTruthReader({
      references: new Map([[CHAIN, node?.url ?? '']]),
      dexes: () => [v3, v4],
    });
    const startMs = await blockMs(dex.v3.fromBlock);
    // Every swap of the deployment moves behind anvil's finalized block (latest - 64)...
    await mineEmpty(rpc, 70);
    // ...and these two stay within the last 64 blocks: in T, not in T_fin.
    const [p0] = dex.v3.pools;
    const [q0] = dex.v4.pools;
    if (p0 === undefined || q0 === undefined) throw new Error('no pools');
    const fresh = [await swapV3Single(rpc, dex, p0, A), await swapV4(rpc, dex, q0, q0.currency0 === A)];
    const endMs = (await blockMs(await latest())) + 1000;

    const expectedA = swapTxsOf(A);
    // Two exactInputSingle and the B -> A -> WETH multi-hop (one tx, two Swap logs) in A's V3 pools,
    // two swaps in A's V4 pools.
    expect(expectedA.size).toBe(5);
    const multiHop = dex.v3.swaps.find((s, i) => dex.v3.swaps.findIndex((x) => x.tx === s.tx) !== i);
    expect(multiHop && expectedA.has(multiHop.tx)).toBe(true);

    const truth = await reader.read(CHAIN, A, { startMs, endMs });
    if (truth.status !== 'ok') throw new Error(`truth unavailable: ${truth.reason}: ${truth.message}`);
    expect(truth.finalized.size).toBe(expectedA.size);
    for (const tx of expectedA) expect(truth.finalized.has(tx)).toBe(true);
    expect(truth.all.size).toBe(expectedA.size + fresh.length);
    for (const s of fresh) {
      expect(truth.all.has(s.tx)).toBe(true);
      expect(truth.finalized.has(s.tx)).toBe(false);
      expect(s.block).toBeGreaterThan(truth.finalizedTo);
    }
    expect(truth.toBlock).toBe(await latest());
    expect(truth.finalizedTo).toBe(truth.toBlock - 64);

    // C's cell holds C's swaps only (V3 C/WETH, V4 B/C), none of A's.
    const truthC = await reader.read(CHAIN, C, { startMs, endMs });
    if (truthC.status !== 'ok') throw new Error(`truth unavailable: ${truthC.reason}`);
    const expectedC = swapTxsOf(C);
    expect(expectedC.size).toBe(2);
    expect(truthC.all.size).toBe(2);
    for (const tx of expectedC) expect(truthC.finalized.has(tx)).toBe(true);
  });

  it('cuts the window at block timestamps: [start, end) holds exactly the swaps of its blocks', async () => {
    const reader = createTruthReader({
      references: new Map([[CHAIN, node?.url ?? '']]),
      dexes: () => [v3, v4],
    });
    const ofA = [...dex.v3.swaps, ...dex.v4.swaps].filter((s) => swapTxsOf(A).has(s.tx));
    const blocks = [...new Set(ofA.map((s) => s.block))].sort((x, y) => x - y);
    const second = blocks[1] ?? 0;
    const last = blocks.at(-1) ?? 0;
    // From the second swap block (at its timestamp: in) to the last one (at its timestamp: out).
    const truth = await reader.read(CHAIN, A, { startMs: await blockMs(second), endMs: await blockMs(last) });
    if (truth.status !== 'ok') throw new Error(`truth unavailable: ${truth.reason}`);
    const inside = new Set(ofA.filter((s) => s.block >= second && s.block < last).map((s) => s.tx));
    expect(inside.size).toBe(blocks.length - 2);
    expect(truth.fromBlock).toBe(second);
    expect(truth.toBlock).toBe(last - 1);
    expect(truth.finalized.size).toBe(inside.size);
    for (const tx of inside) expect(truth.finalized.has(tx)).toBe(true);
  });
});
