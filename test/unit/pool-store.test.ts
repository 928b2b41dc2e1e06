import { describe, expect, it } from 'vitest';
import { dexDeployment } from '../../src/harness/families/trade-capture/dexes.ts';
import { storedPoolCache } from '../../src/harness/families/trade-capture/pool-store.ts';
import { type Pool, poolCacheKey } from '../../src/harness/families/trade-capture/pools.ts';
import { openTestStore } from '../helpers/memory-store.ts';

const V2 = dexDeployment(
  'ethereum',
  'uniswap-v2',
  'uniswap-v2',
  `0x${'5c'.repeat(20)}`,
  10,
  'https://example.test',
);
const V4 = dexDeployment(
  'ethereum',
  'uniswap-v4',
  'uniswap-v4',
  `0x${'44'.repeat(20)}`,
  20,
  'https://example.test',
);
const dexes = () => [V2, V4];
const T = Date.now() - 3_600_000;
const TOKEN = `0x${'ab'.repeat(20)}`;
const pool = (n: number): Pool => ({
  dex: V2.name,
  kind: V2.kind,
  address: `0x${String(n).repeat(40)}` as `0x${string}`,
});

describe('the pool cache kept in the store (issue 23, item 4: cached in the store, extended incrementally)', () => {
  it('a second harness on the same store resumes each token scan where the first stopped', async () => {
    const store = await openTestStore();
    const errors: Error[] = [];
    const first = storedPoolCache(store, dexes, (e) => errors.push(e));
    await first.ready;
    const key = poolCacheKey(V2, TOKEN);
    expect(first.get(key)).toBeUndefined();
    first.set(key, { pools: [pool(1)], scannedTo: 100 }, T);
    first.set(key, { pools: [pool(1), pool(2)], scannedTo: 200 }, T + 1_000);
    const v4key = poolCacheKey(V4, TOKEN);
    const v4pool: Pool = { dex: V4.name, kind: V4.kind, address: V4.factory, id: `0x${'cd'.repeat(32)}` };
    first.set(v4key, { pools: [v4pool], scannedTo: 300 }, T + 1_000);
    // A token with no pool yet: its scan still resumes.
    const none = poolCacheKey(V2, `0x${'ef'.repeat(20)}`);
    first.set(none, { pools: [], scannedTo: 250 }, T + 1_000);
    const second = storedPoolCache(store, dexes, (e) => errors.push(e));
    // The first's writes are appended in order, in the background: a harness started later reads
    // them once the last one (the empty scan) is stored. Waited for, not slept on (50 ms failed on
    // a loaded CI machine).
    let third = storedPoolCache(store, dexes, (e) => errors.push(e));
    await third.ready;
    // Quiet, within a few ms; the bound (against a hang only) allows 30 s.
    for (const end = Date.now() + 30_000; third.get(none) === undefined && Date.now() < end; ) {
      await new Promise((r) => setTimeout(r, 25));
      third = storedPoolCache(store, dexes, (e) => errors.push(e));
      await third.ready;
    }
    await second.ready;
    expect(third.get(key)).toEqual({ pools: [pool(1), pool(2)], scannedTo: 200 });
    expect(third.get(v4key)).toEqual({ pools: [v4pool], scannedTo: 300 });
    expect(third.get(none)).toEqual({ pools: [], scannedTo: 250 });
    // Each pool is stored once, when found; each extension adds one marker.
    const pools = await store.select({ metric: 'token_trade_pool', after: 0, until: T + 10_000 });
    expect(pools.map((s) => [s.labels.pool, s.t])).toEqual(
      [
        [pool(1).address, T],
        [pool(2).address, T + 1_000],
        [v4pool.address, T + 1_000],
      ].sort(),
    );
    expect(errors).toEqual([]);
    await store.close();
  });
});
