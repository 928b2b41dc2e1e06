import {
  encodeAbiParameters,
  encodeFunctionData,
  encodePacked,
  getContractAddress,
  type Hex,
  keccak256,
  maxUint256,
  parseAbi,
} from 'viem';
import { REFERENCE_TOKENS } from '../../harness/tokens.ts';
import { creationCode, pairInitCodeHash } from './artifacts.ts';
import { DEPLOYER, HOLDERS, type PlannedTx } from './txs.ts';

/**
 * The demo chains' Uniswap V2: where it sits and the transactions of block 1 that put it there.
 * Everything here is a pure function of the chain name: the truth reader, the simulated providers
 * and the tests compute these addresses without asking a node.
 */

export interface DemoPair {
  readonly address: Hex;
  /** token0 < token1, as the factory sorts them. */
  readonly token0: Hex;
  readonly token1: Hex;
}

export interface DemoDex {
  readonly chain: string;
  readonly deployer: Hex;
  readonly factory: Hex;
  readonly router: Hex;
  readonly weth: Hex;
  /** v2-core's ERC20 placed at the chain's real USDC address: each token's second pool. */
  readonly quote: Hex;
  /** The block that deploys the DEX; swaps start in the next one. */
  readonly setupBlock: 1;
  /** Per reference token (in REFERENCE_TOKENS order) its WETH pair, then its quote pair; WETH/quote last. */
  readonly pairs: readonly DemoPair[];
}

/** The real USDC address of each demo chain. */
export const QUOTE_TOKENS: Readonly<Record<string, Hex>> = {
  ethereum: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48',
  bsc: '0x8ac76a51cc950d9822d68b83fe1ad97b32cd580d',
  base: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913',
};

/** Swap(address indexed sender, uint amount0In, uint amount1In, uint amount0Out, uint amount1Out, address indexed to). */
export const V2_SWAP_TOPIC: Hex = '0xd78ad95fa46c994b6551d0da85fc275fe613ce37657fb8d5e3d130840159d822';

const E18 = 10n ** 18n;
/**
 * Initial reserves. Swaps move at most 1e-4 of a reserve, in random directions, so prices walk
 * and never drain a pool over days of blocks (a 1e6-swap walk moves them by ~10%).
 */
export const RESERVE_TOKEN = 100_000_000n * E18;
export const RESERVE_WETH = 100n * E18;
export const RESERVE_QUOTE = 10_000_000n * E18;
/** WETH each holder wraps in block 1: swaps take ≤ 0.01 WETH a time. */
export const HOLDER_WETH = 100n * E18;

/** Fixed gas per setup kind: measured use plus ≥ 30 % (factory 3.05M, Router02 4.76M, createPair 2.52M). */
const GAS = {
  weth: 1_000_000,
  factory: 4_000_000,
  router: 6_500_000,
  createPair: 3_300_000,
  deposit: 100_000,
  transfer: 100_000,
  mint: 300_000,
  approve: 100_000,
} as const;

export const DEX_ABI = parseAbi([
  'function createPair(address tokenA, address tokenB) returns (address pair)',
  'function getPair(address, address) view returns (address)',
  'function mint(address to) returns (uint liquidity)',
  'function transfer(address to, uint value) returns (bool)',
  'function approve(address spender, uint value) returns (bool)',
  'function deposit() payable',
  'function swapExactTokensForTokens(uint amountIn, uint amountOutMin, address[] path, address to, uint deadline) returns (uint[] amounts)',
]);

const lower = (a: string): Hex => a.toLowerCase() as Hex;

export function sortPair(a: Hex, b: Hex): [Hex, Hex] {
  return a < b ? [a, b] : [b, a];
}

/** The factory's CREATE2 address for a pair: salt keccak256(token0 ‖ token1), the pair's init-code hash. */
export function pairAddress(factory: Hex, a: Hex, b: Hex, initCodeHash: Hex = pairInitCodeHash()): Hex {
  const [token0, token1] = sortPair(a, b);
  const salt = keccak256(encodePacked(['address', 'address'], [token0, token1]));
  return lower(getContractAddress({ opcode: 'CREATE2', from: factory, salt, bytecodeHash: initCodeHash }));
}

/** The chain's reference tokens (REFERENCE_TOKENS order), lower-case. */
export function referenceTokens(chain: string): readonly Hex[] {
  return REFERENCE_TOKENS.filter((t) => t.chain === chain).map((t) => lower(t.address));
}

const dexes = new Map<string, DemoDex>();

/** The Uniswap V2 deployment of a demo chain. */
export function demoDex(chain: string): DemoDex {
  const hit = dexes.get(chain);
  if (hit) return hit;
  const quote = QUOTE_TOKENS[chain];
  if (!quote) throw new Error(`no demo DEX on ${chain}`);
  const created = (nonce: number): Hex => lower(getContractAddress({ from: DEPLOYER, nonce: BigInt(nonce) }));
  const weth = created(0);
  const factory = created(1);
  const router = created(2);
  const hash = pairInitCodeHash();
  const tokens = referenceTokens(chain);
  const pair = (a: Hex, b: Hex): DemoPair => {
    const [token0, token1] = sortPair(a, b);
    return { address: pairAddress(factory, a, b, hash), token0, token1 };
  };
  const pairs = [...tokens.flatMap((t) => [pair(t, weth), pair(t, quote)]), pair(weth, quote)];
  const dex: DemoDex = { chain, deployer: DEPLOYER, factory, router, weth, quote, setupBlock: 1, pairs };
  dexes.set(chain, dex);
  return dex;
}

/** A token's reserve in each of its pairs at setup: swap amounts are fractions of it. */
export function initialReserve(dex: DemoDex, token: Hex): bigint {
  if (token === dex.weth) return RESERVE_WETH;
  if (token === dex.quote) return RESERVE_QUOTE;
  return RESERVE_TOKEN;
}

/**
 * Block 1's transactions, in order: the deployer's (WETH9, factory, Router02, the pairs, each
 * pair's liquidity), then each holder wraps WETH and approves the router for every token. The
 * deployer's nonces 0–2 are what demoDex's CREATE addresses assume.
 */
export function dexSetupTxs(chain: string): PlannedTx[] {
  const dex = demoDex(chain);
  const call = (from: Hex, to: Hex, gas: number, data: Hex, value?: bigint): PlannedTx => ({
    from,
    to,
    data,
    gas,
    ...(value !== undefined ? { value } : {}),
  });
  const deploy = (data: Hex, gas: number): PlannedTx => ({ from: DEPLOYER, data, gas });
  const fn = encodeFunctionData;
  const wethPairs = dex.pairs.filter((p) => p.token0 === dex.weth || p.token1 === dex.weth).length;
  const txs: PlannedTx[] = [
    deploy(creationCode('@uniswap/v2-periphery/build/WETH9.json'), GAS.weth),
    deploy(
      `${creationCode('@uniswap/v2-core/build/UniswapV2Factory.json')}${encodeAbiParameters([{ type: 'address' }], [DEPLOYER]).slice(2)}`,
      GAS.factory,
    ),
    deploy(
      `${creationCode('@uniswap/v2-periphery/build/UniswapV2Router02.json')}${encodeAbiParameters(
        [{ type: 'address' }, { type: 'address' }],
        [dex.factory, dex.weth],
      ).slice(2)}`,
      GAS.router,
    ),
    ...dex.pairs.map((p) =>
      call(
        DEPLOYER,
        dex.factory,
        GAS.createPair,
        fn({ abi: DEX_ABI, functionName: 'createPair', args: [p.token0, p.token1] }),
      ),
    ),
    call(
      DEPLOYER,
      dex.weth,
      GAS.deposit,
      fn({ abi: DEX_ABI, functionName: 'deposit' }),
      RESERVE_WETH * BigInt(wethPairs),
    ),
  ];
  for (const p of dex.pairs) {
    for (const t of [p.token0, p.token1])
      txs.push(
        call(
          DEPLOYER,
          t,
          GAS.transfer,
          fn({ abi: DEX_ABI, functionName: 'transfer', args: [p.address, initialReserve(dex, t)] }),
        ),
      );
    txs.push(
      call(DEPLOYER, p.address, GAS.mint, fn({ abi: DEX_ABI, functionName: 'mint', args: [DEPLOYER] })),
    );
  }
  const approve = fn({ abi: DEX_ABI, functionName: 'approve', args: [dex.router, maxUint256] });
  const tokens = [...new Set(dex.pairs.flatMap((p) => [p.token0, p.token1]))];
  for (const h of HOLDERS) {
    txs.push(call(h, dex.weth, GAS.deposit, fn({ abi: DEX_ABI, functionName: 'deposit' }), HOLDER_WETH));
    for (const t of tokens) txs.push(call(h, t, GAS.approve, approve));
  }
  return txs;
}
