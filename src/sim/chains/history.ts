import { encodeFunctionData, type Hex } from 'viem';
import { hashInts, mix32, unit } from '../prng.ts';
import { runtimeCode } from './artifacts.ts';
import { demoDex, dexSetupTxs, referenceTokens } from './dex.ts';
import type { RpcCall } from './rpc.ts';
import { blockSwaps, type PlannedSwap } from './swaps.ts';
import { balanceSlot, DEPLOYER, HOLDERS, type PlannedTx, slot } from './txs.ts';

/**
 * The demo history as a pure function of (seed, chain id, block number): block 1 deploys the DEX
 * (dex.ts), every block holds token transfers and, from block 2, swaps (swaps.ts). Nothing here
 * depends on the time a block is mined, so a history rebuilt from a lost state file, or mined late
 * on a stretched clock, carries the same transactions.
 */

export { BLOCK_TIME_MS, HOLDERS } from './txs.ts';

/**
 * Bump whenever plannedBlock changes what a (seed, chain, n) holds: a state built by other code
 * is then rebuilt instead of resumed (1: transfers only; 2: Uniswap V2 and swaps).
 */
export const HISTORY_VERSION = 2;

/** 1e9 tokens of 18 decimals each: transfers of ≤ 1,000 tokens never run a holder dry in any demo. */
const HOLDER_BALANCE = 10n ** 27n;
const MAX_TRANSFERS_PER_BLOCK = 6;
/** Plenty for a UniswapV2ERC20 transfer (~35–52k gas); fixed so every build signs identical bytes. */
const TX_GAS = 100_000;

const TRANSFER_ABI = [
  {
    type: 'function',
    name: 'transfer',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'to', type: 'address' },
      { name: 'value', type: 'uint256' },
    ],
    outputs: [{ name: '', type: 'bool' }],
  },
] as const;

/** The runtime bytecode of @uniswap/v2-core's test ERC20: totalSupply at slot 0, balanceOf at slot 1. */
export function erc20RuntimeCode(): Hex {
  return runtimeCode('@uniswap/v2-core/build/ERC20.json');
}

export function chainTokens(chain: string): readonly Hex[] {
  return referenceTokens(chain);
}

/**
 * Installs the reference tokens and the quote token of a chain at their real addresses, before
 * block 1 is mined: every holder, and the deployer that seeds the pools, holds HOLDER_BALANCE.
 */
export function tokenSetupCalls(chain: string): RpcCall[] {
  const code = erc20RuntimeCode();
  const owners = [...HOLDERS, DEPLOYER];
  const calls: RpcCall[] = [];
  for (const token of [...chainTokens(chain), demoDex(chain).quote]) {
    calls.push({ method: 'anvil_setCode', params: [token, code] });
    calls.push({
      method: 'anvil_setStorageAt',
      params: [token, slot(0n), slot(HOLDER_BALANCE * BigInt(owners.length))],
    });
    for (const h of owners)
      calls.push({ method: 'anvil_setStorageAt', params: [token, balanceSlot(h), slot(HOLDER_BALANCE)] });
  }
  return calls;
}

/** Binomial(6, 1/3): 0–6 transfers, mean 2. */
function transferCount(h: number): number {
  let n = 0;
  for (let i = 0; i < MAX_TRANSFERS_PER_BLOCK; i++) if (unit(mix32(h + i * 0x9e3779b9)) < 1 / 3) n++;
  return n;
}

/** The transfers of block `n` (≥ 1), in block order: plain ERC20 transfers, never a trade. */
export function blockTransfers(
  seed: number,
  chainId: number,
  n: number,
  tokens: readonly Hex[],
): PlannedTx[] {
  if (tokens.length === 0) return [];
  const count = transferCount(hashInts(seed, chainId, n, 0));
  const out: PlannedTx[] = [];
  for (let i = 0; i < count; i++) {
    const h = hashInts(seed, chainId, n, i + 1);
    const from = HOLDERS[h % HOLDERS.length] as Hex;
    // A different holder: shift by 1..len-1.
    const to = HOLDERS[
      ((h % HOLDERS.length) + 1 + (mix32(h) % (HOLDERS.length - 1))) % HOLDERS.length
    ] as Hex;
    const token = tokens[mix32(h ^ 0x5bd1e995) % tokens.length] as Hex;
    const value = BigInt((mix32(h + 0x27d4eb2f) % 1_000_000) + 1) * 10n ** 15n;
    out.push({
      from,
      to: token,
      data: encodeFunctionData({ abi: TRANSFER_ABI, functionName: 'transfer', args: [to, value] }),
      gas: TX_GAS,
    });
  }
  return out;
}

export interface PlannedBlock {
  /** In block order: the DEX setup (block 1 only), the transfers, then the swaps. */
  readonly txs: readonly PlannedTx[];
  readonly swaps: readonly PlannedSwap[];
}

/** Everything block n (≥ 1) of `chain` holds. */
export function plannedBlock(seed: number, chain: string, chainId: number, n: number): PlannedBlock {
  const setup = n === demoDex(chain).setupBlock ? dexSetupTxs(chain) : [];
  const swaps = blockSwaps(seed, chain, chainId, n);
  return { txs: [...setup, ...blockTransfers(seed, chainId, n, chainTokens(chain)), ...swaps], swaps };
}
