import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import {
  type Abi,
  decodeAbiParameters,
  encodeAbiParameters,
  encodeFunctionData,
  encodePacked,
  type Hex,
  keccak256,
  parseAbi,
  toHex,
} from 'viem';
import { hexToNumber, type RpcClient, toQuantity } from '../../src/sim/chains/rpc.ts';

/**
 * Uniswap V3 and V4 on a running anvil, from the packages' own artifacts, for discovery and
 * parsing tests. The V3/V4 packages are BUSL-1.1 dev dependencies: their bytecode runs only inside
 * the test's anvil process and nothing of them ships with Citebench. startAnvil runs --no-mining:
 * each transaction is sent, then mined alone with evm_mine (12 s apart), so each swap has its own block.
 */

export type DexToken = { readonly label: string; readonly address: Hex };
export type V3Pool = {
  readonly address: Hex;
  readonly token0: Hex;
  readonly token1: Hex;
  readonly fee: number;
};
/** One entry per Swap log: a multi-hop tx gives one entry per pool it crosses, with the same tx. */
export type V3Swap = { readonly tx: Hex; readonly pool: Hex; readonly block: number };
export type V4Pool = {
  readonly id: Hex;
  readonly currency0: Hex;
  readonly currency1: Hex;
  readonly fee: number;
  readonly tickSpacing: number;
};
export type V4Swap = { readonly tx: Hex; readonly poolId: Hex; readonly block: number };
export interface DexV3V4 {
  readonly sender: Hex;
  /** Labels A, B, C (v2-core ERC20s) and WETH (WETH9), all pool tokens. */
  readonly tokens: readonly DexToken[];
  readonly v3: {
    readonly factory: Hex;
    readonly positionManager: Hex;
    readonly router: Hex;
    readonly fromBlock: number;
    readonly pools: readonly V3Pool[];
    readonly swaps: readonly V3Swap[];
  };
  readonly v4: {
    readonly manager: Hex;
    readonly modifyLiquidity: Hex;
    readonly swapTest: Hex;
    readonly fromBlock: number;
    readonly pools: readonly V4Pool[];
    readonly swaps: readonly V4Swap[];
  };
}

export const V3_SWAP_TOPIC = '0xc42079f94a6350d7e6235f29174924f928cc2ac818eb64fed8004e115fbcca67';
export const V4_SWAP_TOPIC = '0x40e9cecb9f5f1f1c5b9c97dec2917b7ee92e57ba5563708daca94dd84ad7112f';
const POOL_CREATED = keccak256(toHex('PoolCreated(address,address,uint24,int24,address)'));

const ERC20 = parseAbi([
  'function approve(address spender, uint256 value) returns (bool)',
  'function deposit() payable',
]);
const NPM = parseAbi([
  'struct MintParams { address token0; address token1; uint24 fee; int24 tickLower; int24 tickUpper; uint256 amount0Desired; uint256 amount1Desired; uint256 amount0Min; uint256 amount1Min; address recipient; uint256 deadline; }',
  'function createAndInitializePoolIfNecessary(address token0, address token1, uint24 fee, uint160 sqrtPriceX96) payable returns (address pool)',
  'function mint(MintParams params) payable returns (uint256 tokenId, uint128 liquidity, uint256 amount0, uint256 amount1)',
]);
const ROUTER = parseAbi([
  'struct ExactInputSingleParams { address tokenIn; address tokenOut; uint24 fee; address recipient; uint256 deadline; uint256 amountIn; uint256 amountOutMinimum; uint160 sqrtPriceLimitX96; }',
  'struct ExactInputParams { bytes path; address recipient; uint256 deadline; uint256 amountIn; uint256 amountOutMinimum; }',
  'function exactInputSingle(ExactInputSingleParams params) payable returns (uint256 amountOut)',
  'function exactInput(ExactInputParams params) payable returns (uint256 amountOut)',
]);
const V4 = parseAbi([
  'struct PoolKey { address currency0; address currency1; uint24 fee; int24 tickSpacing; address hooks; }',
  'struct ModifyLiquidityParams { int24 tickLower; int24 tickUpper; int256 liquidityDelta; bytes32 salt; }',
  'struct SwapParams { bool zeroForOne; int256 amountSpecified; uint160 sqrtPriceLimitX96; }',
  'struct TestSettings { bool takeClaims; bool settleUsingBurn; }',
  'function initialize(PoolKey key, uint160 sqrtPriceX96) returns (int24 tick)',
  'function modifyLiquidity(PoolKey key, ModifyLiquidityParams params, bytes hookData) payable returns (int256 delta)',
  'function swap(PoolKey key, SwapParams params, TestSettings testSettings, bytes hookData) payable returns (int256 delta)',
]);

const ZERO: Hex = '0x0000000000000000000000000000000000000000';
const MAX_UINT = 2n ** 256n - 1n;
const PRICE_ONE = 2n ** 96n; // sqrtPriceX96 of a 1:1 price
const DEADLINE = 2n ** 40n;
// TickMath's bounds; the V4 swap limits sit one inside them (MIN_SQRT_PRICE + 1, MAX_SQRT_PRICE - 1).
const MAX_TICK = 887_272;
const MIN_SQRT_LIMIT = 4_295_128_740n;
const MAX_SQRT_LIMIT = 1_461_446_703_485_210_103_287_273_052_203_988_822_378_723_970_341n;
const SUPPLY = 10n ** 30n;
const LIQUIDITY = 10n ** 20n;
export const SWAP_AMOUNT = 10n ** 18n;
const V3_CORE = '@uniswap/v3-core/artifacts/contracts';
const V3_PERIPHERY = '@uniswap/v3-periphery/artifacts/contracts';
const V4_OUT = '@uniswap/v4-core/out';

const requireFrom = createRequire(import.meta.url);

/** Creation code of an artifact in any of the three layouts (truffle-like v2, hardhat v3, foundry v4). */
function creationCode(path: string): Hex {
  const j = JSON.parse(readFileSync(requireFrom.resolve(path), 'utf8')) as {
    bytecode?: string | { object?: string };
    evm?: { bytecode?: { object?: string } };
  };
  const raw = typeof j.bytecode === 'string' ? j.bytecode : (j.bytecode?.object ?? j.evm?.bytecode?.object);
  if (!raw) throw new Error(`no bytecode in ${path}`);
  return (raw.startsWith('0x') ? raw : `0x${raw}`) as Hex;
}

type Log = { readonly address: string; readonly topics: readonly string[]; readonly data: string };
interface Receipt {
  readonly transactionHash: string;
  readonly blockNumber: string;
  readonly status: string;
  readonly contractAddress: string | null;
  readonly logs: readonly Log[];
}
/** Who sends: the node and its first unlocked account. */
type Env = { readonly rpc: RpcClient; readonly from: Hex };

const lower = (s: string): Hex => s.toLowerCase() as Hex;
const sorted = (a: Hex, b: Hex): [Hex, Hex] => (a < b ? [a, b] : [b, a]);
const fullRange = (spacing: number): [number, number] => {
  const t = Math.floor(MAX_TICK / spacing) * spacing;
  return [-t, t];
};
const addressArg = (a: Hex): Hex => encodeAbiParameters([{ type: 'address' }], [a]);
const txOf = (r: Receipt) => ({ tx: lower(r.transactionHash), block: hexToNumber(r.blockNumber) });

/** Sends one transaction, mines it alone in a block and returns its receipt; a revert throws. */
async function send(e: Env, to: Hex | null, data: Hex, value = 0n): Promise<Receipt> {
  const tx: Record<string, string> = { from: e.from, data };
  if (to !== null) tx.to = to;
  if (value > 0n) tx.value = toQuantity(value);
  // anvil estimates at the head's timestamp; mined a second later, a V3 mint also writes an oracle
  // observation (a fresh SSTORE) and ran out of gas on the bare estimate in 2 of 7 runs.
  const estimate = hexToNumber(await e.rpc.call<string>('eth_estimateGas', [tx]));
  tx.gas = toQuantity(Math.ceil(estimate * 1.5) + 100_000);
  const hash = await e.rpc.call<string>('eth_sendTransaction', [tx]);
  await e.rpc.call('evm_mine');
  const r = await e.rpc.call<Receipt | null>('eth_getTransactionReceipt', [hash]);
  if (r === null) throw new Error(`no receipt for ${hash} after evm_mine`);
  if (r.status !== '0x1') throw new Error(`transaction ${hash} reverted`);
  return r;
}

function call(e: Env, to: Hex, abi: Abi, functionName: string, args: readonly unknown[], value = 0n) {
  return send(e, to, encodeFunctionData({ abi, functionName, args }), value);
}

/** Deploys an artifact; returns its address and deployment block. */
async function deploy(e: Env, artifact: string, args: readonly Hex[] = []): Promise<[Hex, number]> {
  const ctorArgs = args.map((a) => addressArg(a).slice(2)).join('');
  const r = await send(e, null, `${creationCode(artifact)}${ctorArgs}` as Hex);
  if (!r.contractAddress) throw new Error(`${artifact}: no contract address`);
  return [lower(r.contractAddress), hexToNumber(r.blockNumber)];
}

function poolKey(p: V4Pool) {
  return {
    currency0: p.currency0,
    currency1: p.currency1,
    fee: p.fee,
    tickSpacing: p.tickSpacing,
    hooks: ZERO,
  };
}

/** keccak256(abi.encode(PoolKey)): the V4 pool id (PoolIdLibrary.toId). */
export function v4PoolId(c0: Hex, c1: Hex, fee: number, tickSpacing: number): Hex {
  const types = ['address', 'address', 'uint24', 'int24', 'address'].map((type) => ({ type }));
  return keccak256(encodeAbiParameters(types, [c0, c1, fee, tickSpacing, ZERO]));
}

const envOf = (rpc: RpcClient, dex: DexV3V4): Env => ({ rpc, from: dex.sender });

/** One exactInputSingle through `pool`, `tokenIn` in, the pool's other token out. */
export async function swapV3Single(
  rpc: RpcClient,
  dex: DexV3V4,
  pool: V3Pool,
  tokenIn: Hex,
): Promise<V3Swap> {
  const params = {
    tokenIn,
    tokenOut: tokenIn === pool.token0 ? pool.token1 : pool.token0,
    fee: pool.fee,
    recipient: dex.sender,
    deadline: DEADLINE,
    amountIn: SWAP_AMOUNT,
    amountOutMinimum: 0n,
    sqrtPriceLimitX96: 0n,
  };
  const r = await call(envOf(rpc, dex), dex.v3.router, ROUTER, 'exactInputSingle', [params]);
  return { ...txOf(r), pool: pool.address };
}

/** One exactInput along `tokens` (fee `fee` at every hop): one tx, one Swap log per hop. */
export async function swapV3Path(
  rpc: RpcClient,
  dex: DexV3V4,
  tokens: readonly Hex[],
  fee: number,
): Promise<V3Swap[]> {
  const types: string[] = [];
  const values: (Hex | number)[] = [];
  const pools: Hex[] = [];
  tokens.forEach((t, i) => {
    if (i > 0) {
      const [t0, t1] = sorted(tokens[i - 1] as Hex, t);
      const pool = dex.v3.pools.find((p) => p.token0 === t0 && p.token1 === t1 && p.fee === fee);
      if (!pool) throw new Error(`no V3 pool ${t0}/${t1} fee ${fee}`);
      pools.push(pool.address);
      types.push('uint24');
      values.push(fee);
    }
    types.push('address');
    values.push(t);
  });
  const params = {
    path: encodePacked(types, values),
    recipient: dex.sender,
    deadline: DEADLINE,
    amountIn: SWAP_AMOUNT,
    amountOutMinimum: 0n,
  };
  const r = await call(envOf(rpc, dex), dex.v3.router, ROUTER, 'exactInput', [params]);
  return pools.map((pool) => ({ ...txOf(r), pool }));
}

/** One exact-input swap through PoolSwapTest (V4: a negative amountSpecified is exact input). */
export async function swapV4(
  rpc: RpcClient,
  dex: DexV3V4,
  pool: V4Pool,
  zeroForOne: boolean,
): Promise<V4Swap> {
  const limit = zeroForOne ? MIN_SQRT_LIMIT : MAX_SQRT_LIMIT;
  const params = { zeroForOne, amountSpecified: -SWAP_AMOUNT, sqrtPriceLimitX96: limit };
  const settings = { takeClaims: false, settleUsingBurn: false };
  const r = await call(envOf(rpc, dex), dex.v4.swapTest, V4, 'swap', [poolKey(pool), params, settings, '0x']);
  return { ...txOf(r), poolId: pool.id };
}

/** `n` empty blocks, e.g. to move earlier swaps behind anvil's `finalized` (latest − 64). */
export async function mineEmpty(rpc: RpcClient, n: number): Promise<void> {
  await rpc.call('anvil_mine', [toQuantity(n)]);
}

async function deployTokens(e: Env): Promise<DexToken[]> {
  const supply = encodeAbiParameters([{ type: 'uint256' }], [SUPPLY]);
  const tokens: DexToken[] = [];
  for (const label of ['A', 'B', 'C']) {
    const r = await send(e, null, `${creationCode('@uniswap/v2-core/build/ERC20.json')}${supply.slice(2)}`);
    tokens.push({ label, address: lower(r.contractAddress ?? '') });
  }
  const [weth] = await deploy(e, '@uniswap/v2-periphery/build/WETH9.json');
  // Enough WETH for every WETH pool's liquidity and the swaps (anvil's accounts hold 10,000 ETH).
  await call(e, weth, ERC20, 'deposit', [], 1000n * 10n ** 18n);
  tokens.push({ label: 'WETH', address: weth });
  return tokens;
}

async function v3Pool(e: Env, npm: Hex, a: Hex, b: Hex, fee: number, spacing: number): Promise<V3Pool> {
  const [token0, token1] = sorted(a, b);
  const init = await call(e, npm, NPM, 'createAndInitializePoolIfNecessary', [
    token0,
    token1,
    fee,
    PRICE_ONE,
  ]);
  const created = init.logs.find((l) => l.topics[0] === POOL_CREATED);
  if (!created) throw new Error(`no PoolCreated for ${token0}/${token1} fee ${fee}`);
  const [, pool] = decodeAbiParameters([{ type: 'int24' }, { type: 'address' }], created.data as Hex);
  const [tickLower, tickUpper] = fullRange(spacing);
  const amounts = { amount0Desired: LIQUIDITY, amount1Desired: LIQUIDITY, amount0Min: 0n, amount1Min: 0n };
  const mint = {
    token0,
    token1,
    fee,
    tickLower,
    tickUpper,
    ...amounts,
    recipient: e.from,
    deadline: DEADLINE,
  };
  await call(e, npm, NPM, 'mint', [mint]);
  return { address: lower(pool), token0, token1, fee };
}

async function v4Pool(
  e: Env,
  c: { manager: Hex; liq: Hex },
  a: Hex,
  b: Hex,
  fee: number,
  spacing: number,
): Promise<V4Pool> {
  const [currency0, currency1] = sorted(a, b);
  const id = v4PoolId(currency0, currency1, fee, spacing);
  const pool: V4Pool = { id, currency0, currency1, fee, tickSpacing: spacing };
  await call(e, c.manager, V4, 'initialize', [poolKey(pool), PRICE_ONE]);
  const [tickLower, tickUpper] = fullRange(spacing);
  const params = { tickLower, tickUpper, liquidityDelta: LIQUIDITY, salt: `0x${'0'.repeat(64)}` };
  await call(e, c.liq, V4, 'modifyLiquidity', [poolKey(pool), params, '0x']);
  return pool;
}

/** One more V3 pool of `a` and `b` (created, initialized at 1:1, full-range liquidity). */
export function createV3Pool(rpc: RpcClient, dex: DexV3V4, a: Hex, b: Hex, fee: number, spacing: number) {
  return v3Pool(envOf(rpc, dex), dex.v3.positionManager, a, b, fee, spacing);
}

/** One more V4 pool of `a` and `b` (initialized at 1:1, full-range liquidity). */
export function createV4Pool(rpc: RpcClient, dex: DexV3V4, a: Hex, b: Hex, fee: number, spacing: number) {
  return v4Pool(
    envOf(rpc, dex),
    { manager: dex.v4.manager, liq: dex.v4.modifyLiquidity },
    a,
    b,
    fee,
    spacing,
  );
}

/**
 * Deploys tokens A, B, C and WETH, Uniswap V3 (factory, NonfungiblePositionManager, SwapRouter)
 * and V4 (PoolManager, PoolModifyLiquidityTest, PoolSwapTest), pools with full-range liquidity,
 * then swaps. Token A has three V3 pools (A/WETH 0.3% and 0.05%, A/B) and two V4 pools (A/WETH,
 * A/B); C's pools (V3 C/WETH, V4 B/C) are the ones a discovery for A must not return.
 */
export async function deployDexV3V4(rpc: RpcClient): Promise<DexV3V4> {
  const from = lower((await rpc.call<string[]>('eth_accounts'))[0] ?? '');
  const e: Env = { rpc, from };
  // 12 s blocks, as on ethereum: every block has its own timestamp, so a window can cut between any two.
  await rpc.call('anvil_setBlockTimestampInterval', [12]);
  const tokens = await deployTokens(e);
  const [A, B, C, WETH] = tokens.map((t) => t.address) as [Hex, Hex, Hex, Hex];

  const [factory, v3From] = await deploy(e, `${V3_CORE}/UniswapV3Factory.sol/UniswapV3Factory.json`);
  const npmPath = `${V3_PERIPHERY}/NonfungiblePositionManager.sol/NonfungiblePositionManager.json`;
  const [positionManager] = await deploy(e, npmPath, [factory, WETH, ZERO]);
  const [router] = await deploy(e, `${V3_PERIPHERY}/SwapRouter.sol/SwapRouter.json`, [factory, WETH]);
  const [manager, v4From] = await deploy(e, `${V4_OUT}/PoolManager.sol/PoolManager.json`, [from]);
  const liqPath = `${V4_OUT}/PoolModifyLiquidityTest.sol/PoolModifyLiquidityTest.json`;
  const [modifyLiquidity] = await deploy(e, liqPath, [manager]);
  const [swapTest] = await deploy(e, `${V4_OUT}/PoolSwapTest.sol/PoolSwapTest.json`, [manager]);
  for (const t of tokens)
    for (const spender of [positionManager, router, modifyLiquidity, swapTest])
      await call(e, t.address, ERC20, 'approve', [spender, MAX_UINT]);

  const v3Pools = [
    await v3Pool(e, positionManager, A, WETH, 3000, 60),
    await v3Pool(e, positionManager, A, WETH, 500, 10),
    await v3Pool(e, positionManager, A, B, 3000, 60),
    await v3Pool(e, positionManager, C, WETH, 3000, 60),
  ];
  const c = { manager, liq: modifyLiquidity };
  const v4Pools = [
    await v4Pool(e, c, A, WETH, 3000, 60),
    await v4Pool(e, c, A, B, 500, 10),
    await v4Pool(e, c, B, C, 3000, 60),
  ];
  const v3 = { factory, positionManager, router, fromBlock: v3From, pools: v3Pools, swaps: [] };
  const v4 = { manager, modifyLiquidity, swapTest, fromBlock: v4From, pools: v4Pools, swaps: [] };
  const base: DexV3V4 = { sender: from, tokens, v3, v4 };
  const [p0, p1, , p3] = v3Pools as [V3Pool, V3Pool, V3Pool, V3Pool];
  const v3Swaps = [
    await swapV3Single(rpc, base, p0, A),
    await swapV3Single(rpc, base, p1, WETH),
    await swapV3Single(rpc, base, p3, C),
    ...(await swapV3Path(rpc, base, [B, A, WETH], 3000)),
  ];
  const [q0, q1, q2] = v4Pools as [V4Pool, V4Pool, V4Pool];
  const v4Swaps = [
    await swapV4(rpc, base, q0, q0.currency0 === A),
    await swapV4(rpc, base, q1, q1.currency0 !== A),
    await swapV4(rpc, base, q2, true),
  ];
  return { ...base, v3: { ...v3, swaps: v3Swaps }, v4: { ...v4, swaps: v4Swaps } };
}
