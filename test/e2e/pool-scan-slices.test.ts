import { afterAll, describe, expect, it } from 'vitest';
import { dexDeployment } from '../../src/harness/families/trade-capture/dexes.ts';
import {
  discoverPools,
  memoryPoolCache,
  poolCacheKey,
} from '../../src/harness/families/trade-capture/pools.ts';
import { ReferenceRpc } from '../../src/harness/reference-rpc.ts';
import { type RpcProxy, startRpcProxy } from '../helpers/rpc-proxy.ts';
import { deployV2Dex, startTestAnvil, type TestAnvil } from '../helpers/v2-dex.ts';

const nodes: TestAnvil[] = [];
const proxies: RpcProxy[] = [];
afterAll(async () => {
  await Promise.allSettled(proxies.map((p) => p.close()));
  await Promise.allSettled(nodes.map((n) => n.stop()));
});

describe('pool discovery keeps its progress slice by slice', () => {
  it('a scan cut short by a failing node resumes after the last completed slice, and finds every pool', async () => {
    const node = await startTestAnvil({ genesisSec: 1_767_225_600 });
    nodes.push(node);
    const dex = await deployV2Dex(node);
    await dex.mineEmpty(30);
    const head = Number.parseInt(await node.rpc.call<string>('eth_blockNumber', []), 16);
    const proxy = await startRpcProxy(node.url);
    proxies.push(proxy);
    let logsCalls = 0;
    let failAfter = 4;
    proxy.behave('p', (method) =>
      method === 'eth_getLogs' && ++logsCalls > failAfter
        ? { kind: 'status', status: 503 }
        : { kind: 'pass' },
    );
    const rpc = new ReferenceRpc(`${proxy.url}/p`);
    const d = dexDeployment('anvil', 'uniswap-v2', 'uniswap-v2', dex.factory, dex.factoryBlock, 'test');
    const cache = memoryPoolCache();
    const key = poolCacheKey(d, dex.tkn);
    const SLICE = 5;
    // Two filters (the token as token0, as token1) per slice: four calls finish two slices.
    await expect(
      discoverPools(rpc, d, dex.tkn, head, cache, undefined, undefined, undefined, SLICE),
    ).rejects.toThrow();
    expect(cache.get(key)?.scannedTo).toBe(dex.factoryBlock + 2 * SLICE - 1);
    failAfter = Number.POSITIVE_INFINITY;
    logsCalls = 0;
    const pools = await discoverPools(rpc, d, dex.tkn, head, cache, undefined, undefined, undefined, SLICE);
    expect(pools.map((p) => p.address).sort()).toEqual([dex.pairs.tknQuote, dex.pairs.tknWeth].sort());
    expect(cache.get(key)?.scannedTo).toBe(head);
    // Only the blocks after the kept slices were scanned again.
    const rest = head - (dex.factoryBlock + 2 * SLICE - 1);
    expect(logsCalls).toBe(2 * Math.ceil(rest / SLICE));
  });
});
