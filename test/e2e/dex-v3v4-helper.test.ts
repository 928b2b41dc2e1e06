import { type Hex, keccak256, toHex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnvilNode, startAnvil } from '../../src/sim/chains/anvil.ts';
import { RpcClient, toQuantity } from '../../src/sim/chains/rpc.ts';
import { type DexV3V4, deployDexV3V4, V3_SWAP_TOPIC, V4_SWAP_TOPIC } from '../helpers/dex-v3v4.ts';

interface Log {
  readonly address: string;
  readonly topics: readonly string[];
  readonly data: string;
  readonly transactionHash: string;
}

const topic = (sig: string): Hex => keccak256(toHex(sig));
const POOL_CREATED = topic('PoolCreated(address,address,uint24,int24,address)');
const INITIALIZE = topic('Initialize(bytes32,address,address,uint24,int24,address,uint160,int24)');
const word = (a: string): string => `0x${a.slice(2).padStart(64, '0')}`;

let node: AnvilNode | undefined;
let rpc: RpcClient;
let dex: DexV3V4;

beforeAll(async () => {
  node = await startAnvil({ chainId: 1 });
  rpc = new RpcClient(node.url);
  dex = await deployDexV3V4(rpc);
});

afterAll(async () => {
  await node?.stop();
});

async function logs(
  address: string | readonly string[],
  topics: (string | null)[],
  fromBlock: number,
): Promise<Log[]> {
  return rpc.call<Log[]>('eth_getLogs', [
    { address, topics, fromBlock: toQuantity(fromBlock), toBlock: 'latest' },
  ]);
}

async function receiptLogs(tx: string): Promise<Log[]> {
  return (await rpc.call<{ logs: Log[] }>('eth_getTransactionReceipt', [tx])).logs;
}

describe('Uniswap V3 and V4 deployed from the packages on anvil', () => {
  it('uses the Swap topics of the issue, recomputed from the event signatures', () => {
    expect(topic('Swap(address,address,int256,int256,uint160,uint128,int24)')).toBe(V3_SWAP_TOPIC);
    expect(topic('Swap(bytes32,address,int128,int128,uint160,uint128,int24,uint24)')).toBe(V4_SWAP_TOPIC);
  });

  it('records lower-case addresses, pools of sorted tokens and deployment blocks before every pool', () => {
    const hexes = [
      dex.v3.factory,
      dex.v4.manager,
      ...dex.tokens.map((t) => t.address),
      ...dex.v4.pools.map((p) => p.id),
    ];
    for (const h of hexes) expect(h).toBe(h.toLowerCase());
    expect(dex.tokens.map((t) => t.label)).toEqual(['A', 'B', 'C', 'WETH']);
    for (const p of dex.v3.pools) expect(p.token0 < p.token1).toBe(true);
    for (const p of dex.v4.pools) expect(p.currency0 < p.currency1).toBe(true);
    expect(dex.v3.fromBlock).toBeGreaterThan(0);
    expect(dex.v4.fromBlock).toBeGreaterThan(dex.v3.fromBlock);
  });

  it('finds every V3 pool from the factory PoolCreated logs, tokens in topic1 and topic2', async () => {
    const created = await logs(dex.v3.factory, [POOL_CREATED], dex.v3.fromBlock);
    const found = created.map((l) => ({
      address: `0x${l.data.slice(2 + 64 + 24, 2 + 128)}`,
      token0: `0x${l.topics[1]?.slice(26)}`,
      token1: `0x${l.topics[2]?.slice(26)}`,
      fee: Number(BigInt(l.topics[3] ?? '0x0')),
    }));
    expect(found).toEqual(dex.v3.pools);
    const a = dex.tokens[0]?.address ?? '0x';
    const ofA = [
      ...(await logs(dex.v3.factory, [POOL_CREATED, word(a)], dex.v3.fromBlock)),
      ...(await logs(dex.v3.factory, [POOL_CREATED, null, word(a)], dex.v3.fromBlock)),
    ];
    expect(ofA).toHaveLength(3);
  });

  it('finds every V4 pool from the manager Initialize logs, id in topic1', async () => {
    const init = await logs(dex.v4.manager, [INITIALIZE], dex.v4.fromBlock);
    expect(init.map((l) => l.topics[1])).toEqual(dex.v4.pools.map((p) => p.id));
    expect(init.map((l) => [`0x${l.topics[2]?.slice(26)}`, `0x${l.topics[3]?.slice(26)}`])).toEqual(
      dex.v4.pools.map((p) => [p.currency0, p.currency1]),
    );
  });

  it('gives every recorded V3 swap a Swap log emitted by its pool; the multi-hop tx has two', async () => {
    expect(dex.v3.swaps).toHaveLength(5);
    for (const s of dex.v3.swaps) {
      const swapLogs = (await receiptLogs(s.tx)).filter((l) => l.topics[0] === V3_SWAP_TOPIC);
      expect(swapLogs.map((l) => l.address)).toContain(s.pool);
    }
    const txs = dex.v3.swaps.map((s) => s.tx);
    const multi = txs.find((t, i) => txs.indexOf(t) !== i);
    expect(multi).toBeDefined();
    const hops = (await receiptLogs(multi ?? '')).filter((l) => l.topics[0] === V3_SWAP_TOPIC);
    expect(new Set(hops.map((l) => l.address)).size).toBe(2);
    const all = await logs(
      dex.v3.pools.map((p) => p.address),
      [V3_SWAP_TOPIC],
      dex.v3.fromBlock,
    );
    expect(all).toHaveLength(dex.v3.swaps.length);
  });

  it('gives every recorded V4 swap a Swap log of the PoolManager with the pool id in topic1', async () => {
    expect(dex.v4.swaps).toHaveLength(3);
    for (const s of dex.v4.swaps) {
      const swapLogs = (await receiptLogs(s.tx)).filter((l) => l.topics[0] === V4_SWAP_TOPIC);
      expect(swapLogs.map((l) => [l.address, l.topics[1]])).toEqual([[dex.v4.manager, s.poolId]]);
    }
    const all = await logs(dex.v4.manager, [V4_SWAP_TOPIC], dex.v4.fromBlock);
    expect(all.map((l) => l.transactionHash)).toEqual(dex.v4.swaps.map((s) => s.tx));
  });
});
