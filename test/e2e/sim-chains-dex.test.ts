import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { decodeFunctionResult, encodeFunctionData, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_TOKENS } from '../../src/harness/tokens.ts';
import { pairInitCodeHash } from '../../src/sim/chains/artifacts.ts';
import { DEX_ABI } from '../../src/sim/chains/dex.ts';
import { plannedBlock } from '../../src/sim/chains/history.ts';
import {
  BLOCK_TIME_MS,
  type DemoChain,
  demoDex,
  startDemoChains,
  V2_SWAP_TOPIC,
} from '../../src/sim/chains/index.ts';
import { RpcClient } from '../../src/sim/chains/rpc.ts';
import { BLOCKS_PER_HOUR, blockSwaps, type PlannedSwap } from '../../src/sim/chains/swaps.ts';
import { defaultTradesPerHour } from '../../src/sim/trades.ts';

/** Real anvil nodes: two builds of ethereum from one seed, stopped in afterAll (also after a failure). */
const ORIGIN = Date.UTC(2026, 0, 1, 12);
const SEED = 23;
const CHAIN = 'ethereum';
const CHAIN_ID = 1;
/** 40 min of 12 s blocks after the setup block. */
const HEAD = 201;
const at = (n: number): number => ORIGIN + (n - 1) * BLOCK_TIME_MS;

interface Log {
  readonly address: Hex;
  readonly topics: readonly Hex[];
  readonly transactionHash: Hex;
}
interface Receipt {
  readonly status: Hex;
  readonly transactionHash: Hex;
  readonly logs: readonly Log[];
}
/** One mined transaction beside what the history planned for it. */
interface Mined {
  readonly block: number;
  readonly receipt: Receipt;
  readonly swap: PlannedSwap | null;
  readonly setup: boolean;
}

const chains: DemoChain[] = [];
let a: DemoChain;
let b: DemoChain;
let rpc: RpcClient;
let mined: Mined[] = [];

afterAll(async () => {
  await Promise.allSettled(chains.map((c) => c.stop()));
});

beforeAll(async () => {
  const [x, y] = await Promise.all([
    startDemoChains({ seed: SEED, origin: ORIGIN, chains: [CHAIN] }),
    startDemoChains({ seed: SEED, origin: ORIGIN, chains: [CHAIN] }),
  ]);
  chains.push(...(x ?? []), ...(y ?? []));
  [a, b] = chains as [DemoChain, DemoChain];
  await Promise.all([a.buildTo(at(HEAD)), b.buildTo(at(HEAD))]);
  rpc = new RpcClient(a.node.url);
  const blocks = Array.from({ length: HEAD }, (_, i) => i + 1);
  const receipts = (await rpc.batch(
    blocks.map((n) => ({ method: 'eth_getBlockReceipts', params: [`0x${n.toString(16)}`] })),
  )) as Receipt[][];
  mined = blocks.flatMap((n, i) => {
    const plan = plannedBlock(SEED, CHAIN, CHAIN_ID, n);
    const got = receipts[i] ?? [];
    expect(got).toHaveLength(plan.txs.length);
    const setup = n === 1 ? plan.txs.length - plan.swaps.length : 0;
    const swapsFrom = plan.txs.length - plan.swaps.length;
    return got.map((receipt, j) => ({
      block: n,
      receipt,
      swap: j >= swapsFrom ? (plan.swaps[j - swapsFrom] ?? null) : null,
      setup: j < setup,
    }));
  });
});

const dex = demoDex(CHAIN);
const tokens = REFERENCE_TOKENS.filter((t) => t.chain === CHAIN).map((t) => t.address.toLowerCase() as Hex);
const poolsOf = (token: Hex): Hex[] =>
  dex.pairs.filter((p) => p.token0 === token || p.token1 === token).map((p) => p.address);
const swapLogs = (r: Receipt): Log[] => r.logs.filter((l) => l.topics[0] === V2_SWAP_TOPIC);

describe('the demo DEX', () => {
  it("Router02's hard-coded init-code hash is keccak256 of the package's pair creation code", () => {
    const path = createRequire(import.meta.url).resolve('@uniswap/v2-periphery/build/UniswapV2Router02.json');
    const router = JSON.parse(readFileSync(path, 'utf8')) as { evm: { bytecode: { object: string } } };
    expect(pairInitCodeHash()).toBe('0x96e8ac4277198ff8b6f785478aa9a39f403cb768dd02cbee326c3e7da348845f');
    expect(router.evm.bytecode.object).toContain(pairInitCodeHash().slice(2));
  });

  it('sits where demoDex says: getPair on the node gives each pair address', async () => {
    expect(dex.setupBlock).toBe(1);
    expect(dex.quote).toBe('0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48');
    expect(dex.pairs).toHaveLength(2 * tokens.length + 1);
    for (const addr of [dex.weth, dex.factory, dex.router, dex.quote, ...dex.pairs.map((p) => p.address)])
      expect((await rpc.call<string>('eth_getCode', [addr, 'latest'])).length).toBeGreaterThan(100);
    for (const p of dex.pairs) {
      expect(p.token0 < p.token1).toBe(true);
      const data = encodeFunctionData({ abi: DEX_ABI, functionName: 'getPair', args: [p.token1, p.token0] });
      const out = await rpc.call<Hex>('eth_call', [{ to: dex.factory, data }, 'latest']);
      expect(decodeFunctionResult({ abi: DEX_ABI, functionName: 'getPair', data: out }).toLowerCase()).toBe(
        p.address,
      );
    }
    expect(mined.filter((m) => m.setup).every((m) => m.receipt.status === '0x1')).toBe(true);
  });

  it('each reference token has Swap logs on both its pools; every Swap tx is one planned swap of one token', () => {
    const byPool = new Map<Hex, number>();
    for (const m of mined)
      for (const l of swapLogs(m.receipt)) {
        byPool.set(l.address, (byPool.get(l.address) ?? 0) + 1);
        expect(m.swap).not.toBeNull();
        expect(poolsOf(m.swap?.token as Hex)).toContain(l.address);
      }
    for (const t of tokens) for (const pool of poolsOf(t)) expect(byPool.get(pool) ?? 0).toBeGreaterThan(20);
    expect(mined.filter((m) => m.swap).every((m) => m.block >= 2)).toBe(true);
  });

  it("a multi-hop tx has two Swap logs, one in each of its token's pools", () => {
    const multi = mined.filter((m) => m.swap?.kind === 'multi');
    expect(multi.length).toBeGreaterThan(10);
    for (const m of multi) {
      const logs = swapLogs(m.receipt);
      expect(logs.map((l) => l.address).sort()).toEqual(poolsOf(m.swap?.token as Hex).sort());
      expect(new Set(logs.map((l) => l.transactionHash)).size).toBe(1);
    }
    for (const m of mined.filter((x) => x.swap?.kind === 'single'))
      expect(swapLogs(m.receipt)).toHaveLength(1);
  });

  it('reverted swaps are mined with status 0 and no logs; transfers emit no Swap', () => {
    const reverted = mined.filter((m) => m.swap?.kind === 'reverted');
    expect(reverted.length).toBeGreaterThan(3);
    for (const m of reverted) expect(m.receipt).toMatchObject({ status: '0x0', logs: [] });
    const transfers = mined.filter((m) => !m.swap && !m.setup);
    expect(transfers.length).toBeGreaterThan(300);
    for (const m of transfers) {
      expect(m.receipt.status).toBe('0x1');
      expect(swapLogs(m.receipt)).toEqual([]);
    }
  });

  it("per-token swap tx counts follow the model's mean rate", () => {
    const rate = defaultTradesPerHour(SEED);
    for (const t of tokens) {
      const pools = new Set(poolsOf(t));
      const txs = new Set(
        mined
          .flatMap((m) => swapLogs(m.receipt).filter((l) => pools.has(l.address)))
          .map((l) => l.transactionHash),
      );
      const mean = (rate(CHAIN, t) * (HEAD - 1)) / BLOCKS_PER_HOUR;
      // 40 min hold 8 burst segments: ±35 % is ~2.5 standard deviations at the lowest rate (150/h).
      expect(txs.size / mean).toBeGreaterThan(0.65);
      expect(txs.size / mean).toBeLessThan(1.35);
    }
    // Two days of the pure plan: within ±6 % of the mean (~3 sd), shares as stated.
    const days = 2 * 24 * BLOCKS_PER_HOUR;
    const kinds = { single: 0, multi: 0, reverted: 0 };
    const ok = new Map<Hex, number>();
    for (let n = 2; n < days + 2; n++)
      for (const s of blockSwaps(SEED, CHAIN, CHAIN_ID, n)) {
        kinds[s.kind]++;
        if (s.kind !== 'reverted') ok.set(s.token, (ok.get(s.token) ?? 0) + 1);
      }
    for (const t of tokens) {
      const ratio = (ok.get(t) ?? 0) / (rate(CHAIN, t) * 48);
      expect(ratio).toBeGreaterThan(0.94);
      expect(ratio).toBeLessThan(1.06);
    }
    const all = kinds.single + kinds.multi + kinds.reverted;
    expect(kinds.reverted / all).toBeCloseTo(0.03, 2);
    expect(kinds.multi / (kinds.single + kinds.multi)).toBeCloseTo(0.08, 2);
  });

  it('a swap that reverts against the plan stops the build loudly', async () => {
    const [c] = (await startDemoChains({ seed: SEED, origin: ORIGIN, chains: [CHAIN] })) as [DemoChain];
    chains.push(c);
    await c.buildTo(at(1));
    // An INVALID opcode for a router: every swap of block 2 now reverts.
    await new RpcClient(c.node.url).call('anvil_setCode', [dex.router, '0xfe']);
    await expect(c.buildTo(at(4))).rejects.toThrow(
      /^demo chain ethereum: block 2 has statuses 1*0+, expected 1+/,
    );
  });

  it('two builds from one seed give identical block hashes', async () => {
    const hashes = async (c: DemoChain): Promise<string[]> => {
      const calls = Array.from({ length: HEAD + 1 }, (_, n) => ({
        method: 'eth_getBlockByNumber',
        params: [`0x${n.toString(16)}`, false],
      }));
      return ((await new RpcClient(c.node.url).batch(calls)) as Array<{ hash: string }>).map((x) => x.hash);
    };
    const [ha, hb] = await Promise.all([hashes(a), hashes(b)]);
    expect(new Set(ha).size).toBe(HEAD + 1);
    expect(hb).toEqual(ha);
  });
});
