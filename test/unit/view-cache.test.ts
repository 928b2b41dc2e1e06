import { describe, expect, it } from 'vitest';
import { ViewCache } from '../../src/publication/view-cache.ts';

function deferred<T>() {
  let resolve: (v: T) => void = () => undefined;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe('ViewCache', () => {
  it('answers an aged-out view while its successor computes; never after new samples', async () => {
    const clock = { now: 0 };
    const cache = new ViewCache<{ v: number }>(60_000, () => clock.now, 100, 60_000);
    const first = { v: 1 };
    expect(await cache.get('k', 'g', async () => first)).toBe(first);
    expect(cache.holds(first)).toBe(true);

    // Aged out, not invalidated: the old value at once, one background computation.
    clock.now = 61_000;
    expect(cache.holds(first)).toBe(false);
    const next = deferred<{ v: number }>();
    let computations = 0;
    const compute = () => {
      computations++;
      return next.promise;
    };
    expect(await cache.get('k', 'g', compute)).toBe(first);
    expect(await cache.get('k', 'g', compute)).toBe(first);
    expect(computations).toBe(1);
    const second = { v: 2 };
    next.resolve(second);
    await next.promise;
    expect(await cache.get('k', 'g', compute)).toBe(second);
    expect(cache.holds(second)).toBe(true);

    // Past maxAge + staleMs: the caller waits for a fresh value.
    clock.now = 61_000 + 121_000;
    const third = { v: 3 };
    const fresh = cache.get('k', 'g', async () => third);
    expect(await fresh).toBe(third);

    // Invalidated by new samples: never the old value.
    cache.invalidate('g');
    expect(cache.holds(third)).toBe(false);
    const fourth = { v: 4 };
    expect(await cache.get('k', 'g', async () => fourth)).toBe(fourth);
  });

  it('without staleMs an aged-out view is recomputed before it is answered', async () => {
    const clock = { now: 0 };
    const cache = new ViewCache<{ v: number }>(60_000, () => clock.now);
    await cache.get('k', 'g', async () => ({ v: 1 }));
    clock.now = 61_000;
    expect((await cache.get('k', 'g', async () => ({ v: 2 }))).v).toBe(2);
  });
});
