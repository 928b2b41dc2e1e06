import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type Abi, type AbiEvent, getAddress, keccak256, toBytes, toEventSelector } from 'viem';
import { describe, expect, it } from 'vitest';
import { DEXES, type DexKind, dexesOf, KIND_EVENTS } from '../../src/harness/families/trade-capture/dexes.ts';

const req = createRequire(import.meta.url);
const abiOf = (path: string): Abi =>
  (JSON.parse(readFileSync(req.resolve(path), 'utf8')) as { abi: Abi }).abi;
const eventIn = (abi: Abi, name: string): AbiEvent => {
  const e = abi.find((x): x is AbiEvent => x.type === 'event' && x.name === name);
  if (!e) throw new Error(`no event ${name}`);
  return e;
};

/** The Swap topic0s issue 23 §4 lists, recomputed below from the signatures. */
const ISSUE_SWAP_TOPICS: Partial<Record<DexKind, string>> = {
  'uniswap-v2': '0xd78ad95fa46c994b6551d0da85fc275fe613ce37657fb8d5e3d130840159d822',
  'uniswap-v3': '0xc42079f94a6350d7e6235f29174924f928cc2ac818eb64fed8004e115fbcca67',
  'uniswap-v4': '0x40e9cecb9f5f1f1c5b9c97dec2917b7ee92e57ba5563708daca94dd84ad7112f',
};

describe('DEX deployments', () => {
  it('carries topics that are the keccak256 of their event signatures', () => {
    for (const d of DEXES) {
      expect(d.creationTopic).toBe(keccak256(toBytes(d.creationEvent)));
      expect(d.swapTopic).toBe(keccak256(toBytes(d.swapEvent)));
      expect(d.creationEvent).toBe(KIND_EVENTS[d.kind].creation);
      expect(d.swapEvent).toBe(KIND_EVENTS[d.kind].swap);
    }
    for (const [kind, topic] of Object.entries(ISSUE_SWAP_TOPICS))
      expect(keccak256(toBytes(KIND_EVENTS[kind as DexKind].swap))).toBe(topic);
  });

  it('states the signatures the issue names for PancakeSwap V3 and Aerodrome', () => {
    expect(KIND_EVENTS['pancakeswap-v3'].swap).toBe(
      'Swap(address,address,int256,int256,uint160,uint128,int24,uint128,uint128)',
    );
    expect(KIND_EVENTS.aerodrome.swap).toBe('Swap(address,address,uint256,uint256,uint256,uint256)');
    expect(KIND_EVENTS.aerodrome.creation).toBe('PoolCreated(address,address,bool,address,uint256)');
  });

  it('matches the events of the Uniswap artifacts', () => {
    const v2Pair = abiOf('@uniswap/v2-core/build/UniswapV2Pair.json');
    const v2Factory = abiOf('@uniswap/v2-core/build/UniswapV2Factory.json');
    const v3Pool = abiOf('@uniswap/v3-core/artifacts/contracts/UniswapV3Pool.sol/UniswapV3Pool.json');
    const v3Factory = abiOf(
      '@uniswap/v3-core/artifacts/contracts/UniswapV3Factory.sol/UniswapV3Factory.json',
    );
    const v4 = abiOf('@uniswap/v4-core/out/PoolManager.sol/PoolManager.json');
    const cases: [DexKind, AbiEvent, AbiEvent][] = [
      ['uniswap-v2', eventIn(v2Factory, 'PairCreated'), eventIn(v2Pair, 'Swap')],
      ['uniswap-v3', eventIn(v3Factory, 'PoolCreated'), eventIn(v3Pool, 'Swap')],
      ['uniswap-v4', eventIn(v4, 'Initialize'), eventIn(v4, 'Swap')],
    ];
    for (const [kind, creation, swap] of cases) {
      expect(toEventSelector(creation)).toBe(keccak256(toBytes(KIND_EVENTS[kind].creation)));
      expect(toEventSelector(swap)).toBe(keccak256(toBytes(KIND_EVENTS[kind].swap)));
    }
    // pools.ts reads the tokens from topics 1-2 (V4: 2-3, after the pool id): they must be indexed.
    const indexed = (e: AbiEvent) => e.inputs.map((i) => i.indexed === true);
    expect(indexed(eventIn(v2Factory, 'PairCreated')).slice(0, 2)).toEqual([true, true]);
    expect(indexed(eventIn(v3Factory, 'PoolCreated')).slice(0, 3)).toEqual([true, true, true]);
    expect(indexed(eventIn(v4, 'Initialize')).slice(0, 4)).toEqual([true, true, true, false]);
    expect(indexed(eventIn(v4, 'Swap')).slice(0, 2)).toEqual([true, true]);
  });

  it('lists the DEXes of issue 23 §4 per chain, with checksummed addresses and their sources', () => {
    const names = (chain: string) => dexesOf(chain).map((d) => d.name);
    expect(names('ethereum')).toEqual(['uniswap-v2', 'uniswap-v3', 'uniswap-v4', 'sushiswap-v2']);
    expect(names('bsc')).toEqual(['pancakeswap-v2', 'pancakeswap-v3', 'uniswap-v3', 'uniswap-v4']);
    expect(names('base')).toEqual(['uniswap-v2', 'uniswap-v3', 'uniswap-v4', 'aerodrome']);
    expect(dexesOf('solana')).toEqual([]);
    for (const d of DEXES) {
      expect(getAddress(d.factory)).toBe(d.factory);
      expect(d.fromBlock).toBeGreaterThan(0);
      expect(d.deploymentsUrl).toMatch(/^https:\/\//);
    }
  });
});
