import type { Hono } from 'hono';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../../src/config.ts';
import { buildApp } from '../../src/http/app.ts';
import { createPublication, type Publication } from '../../src/publication/publication.ts';
import { COLD_FILTERED_VIEWS, COLD_VIEW_RETRY_AFTER_S } from '../../src/publication/types.ts';
import type { Store } from '../../src/store/sample-store.ts';
import { type Fixture, fixture } from '../helpers/fixture.ts';

/**
 * The store, with every time-bounds read (the first read of a Stat's computation) held while
 * `hold` is set, until `release()`: Stats being computed stay so, as long as the test needs.
 * `held(n)` resolves once n reads are held.
 */
function holdingStore(store: Store): {
  store: Store;
  hold: boolean;
  held(n: number): Promise<void>;
  release(): void;
} {
  const waiting: (() => void)[] = [];
  const watchers: { n: number; resolve: () => void }[] = [];
  const h = {
    hold: false,
    held: (n: number) =>
      waiting.length >= n ? Promise.resolve() : new Promise<void>((resolve) => watchers.push({ n, resolve })),
    release() {
      h.hold = false;
      for (const w of waiting.splice(0)) w();
    },
    store: new Proxy(store, {
      get(target, key) {
        const v: unknown = Reflect.get(target, key);
        if (typeof v !== 'function') return v;
        if (key !== 'timeBounds') return v.bind(target);
        return async (...args: unknown[]) => {
          if (h.hold) {
            const released = new Promise<void>((r) => waiting.push(r));
            for (const w of watchers.filter((x) => waiting.length >= x.n)) w.resolve();
            await released;
          }
          return (v as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        };
      },
    }),
  };
  return h;
}

/** True when `p` settles within `turns` turns of the event loop (no clock: each is one check phase). */
async function settlesWithin(p: Promise<unknown>, turns: number): Promise<boolean> {
  let settled = false;
  void p.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  for (let i = 0; i < turns && !settled; i++) await new Promise((r) => setImmediate(r));
  return settled;
}

const get = (path: string): Promise<Response> => Promise.resolve(app.request(path));

let f: Fixture;
let held: ReturnType<typeof holdingStore>;
let pub: Publication;
let app: Hono;
beforeAll(async () => {
  f = await fixture();
  held = holdingStore(f.store);
  pub = createPublication({
    specs: f.specs,
    store: held.store,
    config: testConfig({ baseUrl: 'http://bench.test' }),
    clock: () => f.clock.now,
  });
  app = buildApp({
    config: testConfig({ baseUrl: 'http://bench.test' }),
    publication: pub,
    store: held.store,
    metrics: new Registry(),
    clock: () => f.clock.now,
  });
});
afterAll(async () => {
  held.release();
  pub.close();
  await f.close();
});

// Declared values, so every combination resolves: 3 + 5 single filters, 15 pairs.
const CHAINS = ['ethereum', 'bsc', 'base'];
const KINDS = ['block-number', 'balance', 'call', 'logs', 'block'];
const filteredViews = [
  ...CHAINS.map((c) => `chain=${c}`),
  ...KINDS.map((k) => `kind=${k}`),
  ...CHAINS.flatMap((c) => KINDS.map((k) => `chain=${c}&kind=${k}`)),
].map((q) => `/api/stat/rpc-latency?${q}`);

describe('uncached filtered views per process', () => {
  it(`computes ${COLD_FILTERED_VIEWS} at once, refuses the next with 503 busy and Retry-After, and serves cached views meanwhile`, async () => {
    expect(filteredViews.length).toBeGreaterThan(COLD_FILTERED_VIEWS);
    // A cached view and the evaluation points, before any computation is held.
    expect((await get('/api/stat/token-trade-coverage')).status).toBe(200);
    held.hold = true;
    const admitted = filteredViews
      .slice(0, COLD_FILTERED_VIEWS)
      .map((path) => get(path).then((r) => r.status));
    // Two are computed at a time (STAT_CONCURRENCY), so two reach the store; the others wait behind.
    await held.held(2);
    const refused = get(filteredViews[COLD_FILTERED_VIEWS] as string);
    // A view being computed is joined, not counted again; an unfiltered one is never refused.
    const joined = get(filteredViews[0] as string).then((r) => r.status);
    const unfiltered = get('/api/stat/rpc-head-lag').then((r) => r.status);
    // Refused at once, not queued behind the held computations: it answers within a few turns of
    // the event loop while they are still held (queued, it would wait for the release).
    expect(
      await settlesWithin(refused, 50),
      'the view past the bound is answered while the others are held',
    ).toBe(true);
    const res = await refused;
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe(String(COLD_VIEW_RETRY_AFTER_S));
    expect(((await res.json()) as { error: string }).error).toBe('busy');
    // Cached bytes are still answered at once.
    expect((await get('/api/stat/token-trade-coverage')).status).toBe(200);
    held.release();
    expect(await Promise.all(admitted)).toEqual(admitted.map(() => 200));
    expect(await joined).toBe(200);
    expect(await unfiltered).toBe(200);
    // Their computations done, the refused view is computed on the next request.
    expect((await get(filteredViews[COLD_FILTERED_VIEWS] as string)).status).toBe(200);
  });
});
