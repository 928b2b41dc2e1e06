import { type DexDeployment, dexDeployment } from '../harness/families/trade-capture/dexes.ts';
import { memoryPoolCache, type PoolCache, poolCacheKey } from '../harness/families/trade-capture/pools.ts';
import { createTruthReader, type TruthReader } from '../harness/families/trade-capture/truth.ts';
import { BLOCK_TIME_MS, DEMO_CHAINS, demoDex } from '../sim/chains/index.ts';

/**
 * The truth reader's DEX list on the demo chains: their one Uniswap V2, deployed in block 1 by
 * src/sim/chains/dex.ts (the real deployments of trade-capture/dexes.ts do not exist there). Its
 * pools are still found from the factory's PairCreated logs, as on a real chain.
 */
export function demoDexes(chain: string): readonly DexDeployment[] {
  if (!DEMO_CHAINS.some((c) => c.chain === chain)) return [];
  const d = demoDex(chain);
  return [
    dexDeployment(
      chain,
      'demo-uniswap-v2',
      'uniswap-v2',
      d.factory,
      d.setupBlock,
      'https://github.com/citebench/citebench/tree/main/src/sim/chains/dex.ts',
    ),
  ];
}

/**
 * The demo's pools, known before any scan: the nodes keep the last KEPT_BLOCKS blocks' logs, so
 * after nine hours block 1's PairCreated logs are gone and a scan from there would be refused
 * (`before-history`) for good. The demo built these pools itself and creates no other.
 */
export function demoPoolCache(): PoolCache {
  const cache = memoryPoolCache();
  for (const { chain } of DEMO_CHAINS) {
    const d = demoDex(chain);
    const [dex] = demoDexes(chain);
    if (!dex) continue;
    const tokens = new Set(d.pairs.flatMap((p) => [p.token0, p.token1]));
    for (const token of tokens) {
      const pools = d.pairs
        .filter((p) => p.token0 === token || p.token1 === token)
        .map((p) => ({ dex: dex.name, kind: dex.kind, address: p.address }));
      cache.set(poolCacheKey(dex, token), { pools, scannedTo: Number.MAX_SAFE_INTEGER });
    }
  }
  return cache;
}

/**
 * The demo's truth reader: the chains' own nodes and DEX, and `before-history` for a window that
 * opens before the chains' first swap block (block 2, one block after `origin`). The demo's older
 * cycles run while the chains are still being built, so their truth must not be read from them.
 */
export function demoTruthReader(
  chains: readonly { chain: string; origin: number; node: { url: string } }[],
): TruthReader {
  const real = createTruthReader({
    references: new Map(chains.map((c) => [c.chain, c.node.url])),
    dexes: demoDexes,
    cache: demoPoolCache(),
  });
  const firstSwapMs = new Map(chains.map((c) => [c.chain, c.origin + BLOCK_TIME_MS]));
  return {
    read(chain, token, w, signal) {
      const first = firstSwapMs.get(chain);
      if (first !== undefined && w.startMs < first)
        return Promise.resolve({
          status: 'unavailable',
          reason: 'before-history',
          message: "the window opens before the demo chain's first swap block",
        });
      return real.read(chain, token, w, signal);
    },
    phantoms: (chain, token, hashes, signal) => real.phantoms(chain, token, hashes, signal),
  };
}
