import { keccak256, toHex } from 'viem';

export type DexKind = 'uniswap-v2' | 'uniswap-v3' | 'uniswap-v4' | 'pancakeswap-v3' | 'aerodrome';

export interface DexDeployment {
  readonly chain: string;
  readonly name: string;
  readonly kind: DexKind;
  /** The factory; for V4 the singleton PoolManager, which also emits every Swap. */
  readonly factory: `0x${string}`;
  /** The factory's deployment block: pool discovery scans from here. */
  readonly fromBlock: number;
  readonly creationEvent: string;
  readonly creationTopic: `0x${string}`;
  readonly swapEvent: string;
  readonly swapTopic: `0x${string}`;
  /** The official deployment list the address was taken from. */
  readonly deploymentsUrl: string;
}

/** The events of each kind (indexed fields: see pools.ts, which reads the pool from them). */
export const KIND_EVENTS: Readonly<Record<DexKind, { readonly creation: string; readonly swap: string }>> = {
  'uniswap-v2': {
    creation: 'PairCreated(address,address,address,uint256)',
    swap: 'Swap(address,uint256,uint256,uint256,uint256,address)',
  },
  'uniswap-v3': {
    creation: 'PoolCreated(address,address,uint24,int24,address)',
    swap: 'Swap(address,address,int256,int256,uint160,uint128,int24)',
  },
  'pancakeswap-v3': {
    creation: 'PoolCreated(address,address,uint24,int24,address)',
    swap: 'Swap(address,address,int256,int256,uint160,uint128,int24,uint128,uint128)',
  },
  'uniswap-v4': {
    creation: 'Initialize(bytes32,address,address,uint24,int24,address,uint160,int24)',
    swap: 'Swap(bytes32,address,int128,int128,uint160,uint128,int24,uint24)',
  },
  aerodrome: {
    creation: 'PoolCreated(address,address,bool,address,uint256)',
    swap: 'Swap(address,address,uint256,uint256,uint256,uint256)',
  },
};

export function eventTopic(signature: string): `0x${string}` {
  return keccak256(toHex(signature));
}

/** A deployment of `kind`, its topics computed from the event signatures. */
export function dexDeployment(
  chain: string,
  name: string,
  kind: DexKind,
  factory: `0x${string}`,
  fromBlock: number,
  deploymentsUrl: string,
): DexDeployment {
  const ev = KIND_EVENTS[kind];
  return {
    chain,
    name,
    kind,
    factory,
    fromBlock,
    creationEvent: ev.creation,
    creationTopic: eventTopic(ev.creation),
    swapEvent: ev.swap,
    swapTopic: eventTopic(ev.swap),
    deploymentsUrl,
  };
}

const UNI_V2 = 'https://docs.uniswap.org/contracts/v2/reference/smart-contracts/v2-deployments';
const UNI_V3_ETH = 'https://docs.uniswap.org/contracts/v3/reference/deployments/ethereum-deployments';
const UNI_V3_BSC = 'https://docs.uniswap.org/contracts/v3/reference/deployments/bnb-deployments';
const UNI_V3_BASE = 'https://docs.uniswap.org/contracts/v3/reference/deployments/base-deployments';
const UNI_V4 = 'https://docs.uniswap.org/contracts/v4/deployments';
// SushiSwap's own deployment note for its V2 ("(Uni|Sushi)swapV2Factory") on ethereum.
const SUSHI = 'https://www.npmjs.com/package/@sushiswap/core';
const CAKE_V2 = 'https://developer.pancakeswap.finance/contracts/v2/addresses';
const CAKE_V3 = 'https://developer.pancakeswap.finance/contracts/v3/addresses';
const AERO = 'https://aerodrome.finance/security';

/**
 * The real deployments of issue 23 §4. Addresses are from the official lists (deploymentsUrl),
 * checked on 2026-07 against the Uniswap docs repository (v2, v3 Base, v4 every chain), the
 * PancakeSwap developer docs (v2, v3) and the SushiSwap and Aerodrome deployment notes.
 * Deployment blocks: Uniswap V2/V3 ethereum (10000835, 12369621), V4 ethereum (21688329), V4 base
 * (25350988) and Aerodrome (3200559) match published indexer configurations; the others are the
 * factory creation blocks as we recorded them and are NOT confirmed from a second source. A block
 * set too late would miss early pools, so each unconfirmed one errs early where we were unsure.
 */
export const DEXES: readonly DexDeployment[] = [
  dexDeployment(
    'ethereum',
    'uniswap-v2',
    'uniswap-v2',
    '0x5C69bEe701ef814a2B6a3EDD4B1652CB9cc5aA6f',
    10_000_835,
    UNI_V2,
  ),
  dexDeployment(
    'ethereum',
    'uniswap-v3',
    'uniswap-v3',
    '0x1F98431c8aD98523631AE4a59f267346ea31F984',
    12_369_621,
    UNI_V3_ETH,
  ),
  dexDeployment(
    'ethereum',
    'uniswap-v4',
    'uniswap-v4',
    '0x000000000004444c5dc75cB358380D2e3dE08A90',
    21_688_329,
    UNI_V4,
  ),
  // Unconfirmed block (SushiSwap's factory, September 2020).
  dexDeployment(
    'ethereum',
    'sushiswap-v2',
    'uniswap-v2',
    '0xC0AEe478e3658e2610c5F7A4A2E1777cE9e4f2Ac',
    10_794_229,
    SUSHI,
  ),
  // Unconfirmed block (PancakeFactory v2, April 2021).
  dexDeployment(
    'bsc',
    'pancakeswap-v2',
    'uniswap-v2',
    '0xcA143Ce32Fe78f1f7019d7d551a6402fC5350c73',
    6_809_737,
    CAKE_V2,
  ),
  // Unconfirmed block (PancakeV3Factory, March 2023).
  dexDeployment(
    'bsc',
    'pancakeswap-v3',
    'pancakeswap-v3',
    '0x0BFbCF9fa4f9C56B0F40a671Ad40E0805A091865',
    26_956_207,
    CAKE_V3,
  ),
  // Unconfirmed block (UniswapV3Factory on BNB Chain, March 2023).
  dexDeployment(
    'bsc',
    'uniswap-v3',
    'uniswap-v3',
    '0xdB1d10011AD0Ff90774D0C6Bb92e5C5c8b4461F7',
    26_324_014,
    UNI_V3_BSC,
  ),
  // Unconfirmed block (PoolManager on BNB Chain, January 2025): set to 45,000,000, before any estimate we had.
  dexDeployment(
    'bsc',
    'uniswap-v4',
    'uniswap-v4',
    '0x28e2Ea090877bF75740558f6BFB36A5ffeE9e9dF',
    45_000_000,
    UNI_V4,
  ),
  // Unconfirmed block (UniswapV2Factory on Base, 2024).
  dexDeployment(
    'base',
    'uniswap-v2',
    'uniswap-v2',
    '0x8909Dc15e40173Ff4699343b6eB8132c65e18eC6',
    6_601_915,
    UNI_V2,
  ),
  // Unconfirmed block (UniswapV3Factory on Base, July 2023).
  dexDeployment(
    'base',
    'uniswap-v3',
    'uniswap-v3',
    '0x33128a8fC17869897dcE68Ed026d694621f6FDfD',
    1_371_680,
    UNI_V3_BASE,
  ),
  dexDeployment(
    'base',
    'uniswap-v4',
    'uniswap-v4',
    '0x498581fF718922c3f8e6A244956aF099B2652b2b',
    25_350_988,
    UNI_V4,
  ),
  dexDeployment(
    'base',
    'aerodrome',
    'aerodrome',
    '0x420DD381b31aEf6683db6B902084cB0FFECe40Da',
    3_200_559,
    AERO,
  ),
];

export function dexesOf(chain: string): readonly DexDeployment[] {
  return DEXES.filter((d) => d.chain === chain);
}
