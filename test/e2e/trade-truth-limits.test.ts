import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dexDeployment } from '../../src/harness/families/trade-capture/dexes.ts';
import type { GetLogsStats } from '../../src/harness/families/trade-capture/logs.ts';
import { createTruthReader, type Truth } from '../../src/harness/families/trade-capture/truth.ts';
import {
  LIMIT_PROFILES,
  type LimitProfile,
  type LogLimitsProxy,
  startLogLimitsProxy,
} from '../helpers/log-limits-proxy.ts';
import { deployV2Dex, startTestAnvil, type TestAnvil, type TxSpec, type V2Dex } from '../helpers/v2-dex.ts';

/**
 * The same cell read from the bare anvil and through each provider profile of the limits proxy
 * (limits / 100): every count must be the bare node's, and every profile must have refused at
 * least once on the way (else the window did not test its limit).
 */
let node: TestAnvil;
let proxy: LogLimitsProxy;
let dex: V2Dex;
let window = { startMs: 0, endMs: 0 };
let crowded = { startMs: 0, endMs: 0 };
const swapTxs: string[] = [];

beforeAll(async () => {
  node = await startTestAnvil({ genesisSec: 1_767_225_600 });
  proxy = await startLogLimitsProxy(node.url, 100);
  dex = await deployV2Dex(node);
  const { tkn, weth, quote } = dex;
  const paths: TxSpec[] = [
    { kind: 'swap', path: [tkn, weth] },
    { kind: 'swap', path: [tkn, quote] },
    // Both hops in pools of the token: two Swap logs, one trade.
    { kind: 'swap', path: [weth, tkn, quote] },
    { kind: 'swap', path: [quote, tkn] },
    { kind: 'transfer' },
  ];
  // 150 blocks (over QuickNode's 100, Infura's 100, BlockPI's 10) of 16 txs, 15 of them swaps
  // with up to 2 logs each: ~2,700 logs in the window (over Ankr's 2,000, Alchemy's and Infura's 100).
  const first = dex.clockSec + 12;
  for (let b = 0; b < 150; b++) {
    const specs = Array.from({ length: 16 }, (_, i) => paths[(b + i) % paths.length] as TxSpec);
    const mined = await dex.block(specs, first + b * 12);
    specs.forEach((s, i) => {
      if (s.kind === 'swap') swapTxs.push((mined.hashes[i] as string).toLowerCase());
    });
  }
  window = { startMs: first * 1000, endMs: (first + 150 * 12) * 1000 };
  // One block of 101 single-hop swaps: over Infura's 100 results on its own.
  const big = await dex.block(
    Array.from({ length: 101 }, () => paths[0] as TxSpec),
    dex.clockSec + 12,
  );
  crowded = { startMs: big.timestampSec * 1000, endMs: (big.timestampSec + 1) * 1000 };
  await dex.mineEmpty(70);
});

afterAll(async () => {
  await proxy?.close();
  await node?.stop();
});

function reader(url: string, stats?: GetLogsStats) {
  return createTruthReader({
    references: new Map([['anvil', url]]),
    dexes: () => [dexDeployment('anvil', 'uniswap-v2', 'uniswap-v2', dex.factory, dex.factoryBlock, 'test')],
    ...(stats ? { stats } : {}),
  });
}

function same(a: Truth, b: Truth): boolean {
  if (a.status !== 'ok' || b.status !== 'ok') return false;
  let equal = a.all.size === b.all.size && a.finalized.size === b.finalized.size;
  a.all.forEach((hi, lo) => {
    if (!b.all.hasDigest(hi, lo)) equal = false;
  });
  a.finalized.forEach((hi, lo) => {
    if (!b.finalized.hasDigest(hi, lo)) equal = false;
  });
  return equal && a.fromBlock === b.fromBlock && a.toBlock === b.toBlock && a.finalizedTo === b.finalizedTo;
}

describe('eth_getLogs limits of real providers', () => {
  let bare: Truth;
  beforeAll(async () => {
    bare = await reader(node.url).read('anvil', dex.tkn, window);
  });

  it('reads every swap of the window from the bare node', () => {
    expect(bare.status).toBe('ok');
    if (bare.status !== 'ok') return;
    expect(bare.all.size).toBe(swapTxs.length);
    expect(bare.finalized.size).toBe(swapTxs.length);
    expect(swapTxs.every((h) => bare.status === 'ok' && bare.finalized.has(h))).toBe(true);
  });

  it.each(LIMIT_PROFILES)(
    'counts the same through %s, splitting every refused range',
    async (p: LimitProfile) => {
      const stats: GetLogsStats = { requests: 0, limitErrors: 0 };
      const t = await reader(proxy.url(p), stats).read('anvil', dex.tkn, window);
      expect(t.status === 'unavailable' ? t.message : 'ok').toBe('ok');
      expect(same(t, bare)).toBe(true);
      expect(proxy.stats.get(p)?.refused).toBeGreaterThan(0);
      expect(stats.limitErrors).toBe(proxy.stats.get(p)?.refused);
    },
  );

  it('gives limit, never a count, when a single block is over the limit', async () => {
    const t = await reader(proxy.url('infura')).read('anvil', dex.tkn, crowded);
    expect(t).toMatchObject({ status: 'unavailable', reason: 'limit' });
    const ok = await reader(node.url).read('anvil', dex.tkn, crowded);
    expect(ok.status === 'ok' && ok.finalized.size).toBe(101);
  });
});
