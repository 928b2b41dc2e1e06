import { encodeFunctionData, type Hex, maxUint256 } from 'viem';
import { hashInts, mix32, unit } from '../prng.ts';
import { defaultTradesPerHour } from '../trades.ts';
import { DEX_ABI, type DemoDex, demoDex, initialReserve, referenceTokens } from './dex.ts';
import { BLOCK_TIME_MS, HOLDERS, type PlannedTx } from './txs.ts';

/**
 * The swaps of block n ≥ 2, a pure function of (seed, chain id, n): per reference token a count
 * whose hourly mean is the model's defaultTradesPerHour, so a window read from the chain and one
 * drawn by src/sim/trades.ts show the same level.
 */

export type SwapKind = 'single' | 'multi' | 'reverted';

export interface PlannedSwap extends PlannedTx {
  readonly kind: SwapKind;
  /** The reference token whose pools the swap touches (one token per transaction, never two). */
  readonly token: Hex;
}

export const BLOCKS_PER_HOUR = 3_600_000 / BLOCK_TIME_MS;
/** A burst segment: 5 min of 12 s blocks share one rate multiplier. */
export const SEGMENT_BLOCKS = 25;
/** Multiplier per segment, uniform on [0.4, 1.6]: mean 1, so bursts leave the hourly mean alone. */
const BURST_LO = 0.4;
const BURST_SPAN = 1.2;
/** Share of swap transactions sent to revert (not trades). */
export const REVERT_SHARE = 0.03;
/** Share of the successful ones that go quote → token → WETH (or back): one tx, two Swap logs. */
export const MULTI_HOP_SHARE = 0.08;
/** Amounts are 10^-7..10^-4 of the input's initial reserve (log-uniform). */
const AMOUNT_MIN_EXP = -7;
const AMOUNT_EXP_SPAN = 3;
const GAS = { single: 250_000, multi: 400_000, reverted: 250_000 } as const;
const MAX_PER_TOKEN = 60;

const SALT_BURST = 0x62757273;
const SALT_COUNT = 0x636e7473;
const SALT_SWAP = 0x73776170;

/** The rate multiplier of the segment holding block n (n ≥ 2). */
export function burstMultiplier(seed: number, chainId: number, tokenIndex: number, n: number): number {
  const segment = Math.floor((n - 2) / SEGMENT_BLOCKS);
  return BURST_LO + BURST_SPAN * unit(hashInts(seed, chainId, tokenIndex, segment, SALT_BURST));
}

/** Poisson(λ) by inversion of one uniform; λ here stays below ~6. */
function poisson(lambda: number, u: number): number {
  let p = Math.exp(-lambda);
  let cdf = p;
  let k = 0;
  while (u > cdf && k < MAX_PER_TOKEN) {
    k++;
    p *= lambda / k;
    cdf += p;
  }
  return k;
}

/** 1e-7..1e-4 of `reserve`, from a 32-bit hash. */
function amountOf(reserve: bigint, h: number): bigint {
  const f = 10 ** (AMOUNT_MIN_EXP + AMOUNT_EXP_SPAN * unit(h));
  return (reserve * BigInt(Math.round(f * 1e12))) / 10n ** 12n;
}

function swapData(amountIn: bigint, minOut: bigint, path: readonly Hex[], to: Hex): Hex {
  return encodeFunctionData({
    abi: DEX_ABI,
    functionName: 'swapExactTokensForTokens',
    args: [amountIn, minOut, path, to, maxUint256],
  });
}

function planSwap(dex: DemoDex, token: Hex, h: number): PlannedSwap {
  const u = unit(mix32(h));
  const kind: SwapKind =
    u < REVERT_SHARE
      ? 'reverted'
      : u < REVERT_SHARE + (1 - REVERT_SHARE) * MULTI_HOP_SHARE
        ? 'multi'
        : 'single';
  const from = HOLDERS[mix32(h + 1) % HOLDERS.length] as Hex;
  const backwards = (mix32(h + 2) & 1) === 1;
  let path: Hex[];
  if (kind === 'multi') path = [dex.quote, token, dex.weth];
  else path = [token, (mix32(h + 3) & 1) === 1 ? dex.quote : dex.weth];
  if (backwards) path.reverse();
  const first = path[0] as Hex;
  const amountIn = amountOf(initialReserve(dex, first), mix32(h + 4));
  // amountOutMin = 2^256-1: the router's INSUFFICIENT_OUTPUT_AMOUNT revert, mined with status 0.
  const minOut = kind === 'reverted' ? maxUint256 : 0n;
  return { from, to: dex.router, data: swapData(amountIn, minOut, path, from), gas: GAS[kind], kind, token };
}

/**
 * How many swap transactions (reverted ones included) token `tokenIndex` gets in block n ≥ 2:
 * Poisson at its bursty per-block rate. Reverts come on top, so the successful ones keep the
 * model's mean of `perHour`.
 */
export function tokenSwapCount(
  seed: number,
  chainId: number,
  tokenIndex: number,
  perHour: number,
  n: number,
): number {
  const mean = (perHour / BLOCKS_PER_HOUR) * burstMultiplier(seed, chainId, tokenIndex, n);
  return poisson(mean / (1 - REVERT_SHARE), unit(hashInts(seed, chainId, n, tokenIndex, SALT_COUNT)));
}

function tokenSwaps(
  seed: number,
  chainId: number,
  dex: DemoDex,
  token: { index: number; address: Hex; perHour: number },
  n: number,
): PlannedSwap[] {
  const count = tokenSwapCount(seed, chainId, token.index, token.perHour, n);
  const out: PlannedSwap[] = [];
  for (let i = 0; i < count; i++)
    out.push(planSwap(dex, token.address, hashInts(seed, chainId, n, token.index, i, SALT_SWAP)));
  return out;
}

/** Every swap of block n on `chain`: none before the DEX exists (block 1 deploys it). */
export function blockSwaps(seed: number, chain: string, chainId: number, n: number): PlannedSwap[] {
  const dex = demoDex(chain);
  if (n <= dex.setupBlock) return [];
  const rate = defaultTradesPerHour(seed);
  return referenceTokens(chain).flatMap((address, index) =>
    tokenSwaps(seed, chainId, dex, { index, address, perHour: rate(chain, address) }, n),
  );
}
