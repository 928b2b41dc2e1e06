import type { Sample } from '../../../core/samples.ts';
import type { SampleStore } from '../../../store/sample-store.ts';
import type { DexDeployment, DexKind } from './dexes.ts';
import { TRADE_CAPTURE_METRICS as METRICS } from './metrics.ts';
import type { Pool, PoolCache } from './pools.ts';

export interface StoredPoolCache extends PoolCache {
  /** Resolves once the pools stored by earlier runs are loaded (a failed load starts empty). */
  readonly ready: Promise<void>;
}

type Entry = { pools: Pool[]; scannedTo: number; dex: string; kind: DexKind };

/** poolCacheKey's parts: chain|dex name|factory|token. */
function parts(key: string): { chain: string; dex: string; factory: string; token: string } | null {
  const [chain, dex, factory, token] = key.split('|');
  return chain && dex && factory && token ? { chain, dex, factory, token } : null;
}

/**
 * The pool cache kept in the sample store, so a restarted harness (or another one on the same
 * store) extends each token's scan from where it stopped instead of the factory's deployment block:
 * one `token_trade_pool` sample per pool when it is found, and a `token_trade_pool_scan` marker
 * (the block scanned to) each time a scan is extended, stamped with the cycle that extended it.
 * Reads stay synchronous (the truth reader waits for `ready` once); writes are appended in order
 * and a failed one is logged, never thrown: the cache is an optimisation, never the truth.
 */
export function storedPoolCache(
  store: SampleStore,
  dexes: (chain: string) => readonly DexDeployment[],
  onError: (e: Error) => void,
): StoredPoolCache {
  const kindOf = (chain: string, dex: string): DexKind | undefined =>
    dexes(chain).find((d) => d.name === dex)?.kind;
  // A bounded span: a remote engine refuses a range of the whole epoch.
  const now = Date.now();
  const span = { after: now - 400 * 86_400_000, until: now + 86_400_000 };
  const entries = new Map<string, Entry>();
  let writes: Promise<unknown> = Promise.resolve();
  const ready = (async () => {
    const [pools, scans] = await Promise.all([
      store.select({ metric: METRICS.tokenTradePool, ...span }),
      store.select({ metric: METRICS.tokenTradePoolScan, ...span }),
    ]);
    const keyOf = (s: Sample) => `${s.labels.chain}|${s.labels.dex}|${s.labels.factory}|${s.labels.token}`;
    const newest = new Map<string, Sample>();
    for (const s of scans) {
      const k = keyOf(s);
      const prev = newest.get(k);
      if (!prev || s.t > prev.t) newest.set(k, s);
    }
    for (const [k, s] of newest) {
      const kind = kindOf(s.labels.chain ?? '', s.labels.dex ?? '');
      if (kind) entries.set(k, { pools: [], scannedTo: s.v, dex: s.labels.dex ?? '', kind });
    }
    for (const s of pools) {
      const e = entries.get(keyOf(s));
      // A pool stored after the last marker (a scan that failed its retained check) is not trusted.
      if (!e || s.t > (newest.get(keyOf(s))?.t ?? 0)) continue;
      const id = s.labels.pool_id;
      e.pools.push({
        dex: e.dex,
        kind: e.kind,
        address: (s.labels.pool ?? '') as `0x${string}`,
        ...(id ? { id: id as `0x${string}` } : {}),
      });
    }
  })().catch((e: unknown) => onError(e as Error));
  return {
    ready,
    get: (key) => {
      const e = entries.get(key);
      return e ? { pools: [...e.pools], scannedTo: e.scannedTo } : undefined;
    },
    set(key, v, at = Date.now()) {
      const p = parts(key);
      const dex = v.pools[0]?.dex ?? p?.dex ?? '';
      const kind = v.pools[0]?.kind ?? kindOf(p?.chain ?? '', dex);
      const prev = entries.get(key);
      if (kind) entries.set(key, { pools: [...v.pools], scannedTo: v.scannedTo, dex, kind });
      if (!p) return;
      const known = new Set((prev?.pools ?? []).map((x) => x.id ?? x.address));
      const cell = { chain: p.chain, dex: p.dex, factory: p.factory, token: p.token };
      const samples: Sample[] = v.pools
        .filter((x) => !known.has(x.id ?? x.address))
        .map((x) => ({
          metric: METRICS.tokenTradePool,
          labels: { ...cell, pool: x.address, pool_id: x.id ?? '' },
          t: at,
          v: 1,
        }));
      // The marker last, in the same append: pools stored without their marker are never read.
      samples.push({ metric: METRICS.tokenTradePoolScan, labels: cell, t: at, v: v.scannedTo });
      writes = writes.then(() => store.append(samples)).catch((e: unknown) => onError(e as Error));
    },
  };
}
