import { afterEach, describe, expect, it, vi } from 'vitest';
import { HARNESS_CYCLE_METRIC } from '../../src/core/family.ts';
import { buildDataset } from '../../src/demo/dataset.ts';
import { specMetrics } from '../../src/publication/compute.ts';
import { loadSpecs } from '../../src/publication/load-specs.ts';
import { createPublication, type Publication } from '../../src/publication/publication.ts';
import { POLL_DEADLINE_MS } from '../../src/publication/store-follower.ts';
import { type DuckDbStore, openDuckDbStore } from '../../src/store/duckdb-store.ts';
import type { Store } from '../../src/store/sample-store.ts';
import { BENCHMARKS_DIR, H, NOW } from '../helpers/fixture.ts';

/**
 * Issue 27 rule 3: a replica never appends, so no append tells it of new samples. It polls the
 * store (Publication.followStore, every REPLICA_POLL_MS in a replica process) and a moved cycle
 * marker does there what the writer's append does: newer views, the first day, region values.
 */

const NETWORK = 'network-coverage';
const RPC = 'rpc-latency';
const YESTERDAY = new Date(NOW - 24 * H).toISOString().slice(0, 10);

interface Reads {
  latest: number;
  timeBounds: number;
  series: number;
  failNextTimeBounds: boolean;
}

/** The store as another process sees it: reads counted, and no append of its own to hear. */
function replicaOf(store: Store): {
  store: Store;
  reads: Reads;
} {
  const reads: Reads = { latest: 0, timeBounds: 0, series: 0, failNextTimeBounds: false };
  const view = new Proxy(store, {
    get(target, key) {
      if (key === 'onAppend') return () => () => undefined;
      if (key === 'timeBounds' && reads.failNextTimeBounds) {
        reads.failNextTimeBounds = false;
        return () => Promise.reject(new Error('socket hang up'));
      }
      if (key === 'latest' || key === 'timeBounds' || key === 'series') reads[key]++;
      const v: unknown = Reflect.get(target, key);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return { store: view, reads };
}

const open: Array<{ close(): Promise<void> | void }> = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

async function setUp(): Promise<{
  underlying: DuckDbStore;
  writer: Publication;
  replica: Publication;
  reads: Reads;
}> {
  const specs = await loadSpecs(BENCHMARKS_DIR);
  const underlying = await openDuckDbStore({ path: ':memory:' });
  open.push(underlying);
  const site = { name: 'Citebench', baseUrl: 'http://b' };
  const clock = () => NOW + 60_000;
  const writer = createPublication({ specs, store: underlying, site, clock });
  const r = replicaOf(underlying);
  const replica = createPublication({ specs, store: r.store, site, clock });
  open.push({ close: () => writer.close() }, { close: () => replica.close() });
  return { underlying, writer, replica, reads: r.reads };
}

describe('a replica follows the store its writer fills', () => {
  it('a replica that served before the writer wrote catches up on its next poll: same bytes as the writer', async () => {
    const { underlying, writer, replica } = await setUp();
    // Served before anything was written: draft, and no day yet.
    expect((await replica.stat(NETWORK, null)).value.status).toBe('draft');
    expect((await replica.snapshot(YESTERDAY)).kind).toBe('bad_date');

    await underlying.append(buildDataset({ seed: 7, days: 2, end: NOW, markers: true }));
    // Without a poll nothing tells it (the bug of issue 27): still the draft.
    expect((await replica.stat(NETWORK, null)).value.status).toBe('draft');

    const moved = await replica.followStore();
    expect(moved.has(NETWORK) && moved.has('token-trade-coverage')).toBe(true);
    expect(moved.has(RPC)).toBe(false);
    const mine = await replica.stat(NETWORK, null);
    const theirs = await writer.stat(NETWORK, null);
    expect(mine.value.status).toBe('live');
    expect(mine.etag).toBe(theirs.etag);
    expect(Buffer.from(mine.body).equals(Buffer.from(theirs.body))).toBe(true);
    expect((await replica.freshness()).status[NETWORK]?.lastSampleAt).toBe(
      (await writer.freshness()).status[NETWORK]?.lastSampleAt,
    );
    // The first day is known now: yesterday is closed, waiting for the writer's freeze.
    expect((await replica.snapshot(YESTERDAY)).kind).not.toBe('bad_date');
  });

  it("learns a new region's values on the poll that sees its cycle, and a poll with nothing new costs one query", async () => {
    const { underlying, replica, reads } = await setUp();
    await underlying.append(buildDataset({ seed: 7, days: 1, end: NOW, markers: true }));
    await replica.followStore();
    expect(replica.resolveFilters(RPC, { region: 'eu-west' }).ok).toBe(false);

    const spec = (await loadSpecs(BENCHMARKS_DIR)).find((s) => s.slug === RPC);
    const metric = spec ? specMetrics(spec)[0] : undefined;
    if (!metric) throw new Error('rpc-latency has no metric');
    const t = NOW;
    await underlying.append([
      {
        metric,
        labels: { provider: 'alchemy', chain: 'ethereum', kind: 'block', region: 'eu-west' },
        t,
        v: 42,
      },
      { metric: HARNESS_CYCLE_METRIC, labels: { benchmark: RPC, region: 'eu-west' }, t, v: 1 },
    ]);
    // A poll cut short after reading the markers reads the benchmark again on the next one.
    reads.failNextTimeBounds = true;
    await expect(replica.followStore()).rejects.toThrow(/socket hang up/);
    expect([...(await replica.followStore())]).toEqual([RPC]);
    expect(replica.resolveFilters(RPC, { region: 'eu-west' }).ok).toBe(true);
    expect(replica.dimensionValues(RPC, 'region')).toEqual(['eu-west']);

    reads.latest = 0;
    reads.timeBounds = 0;
    reads.series = 0;
    expect((await replica.followStore()).size).toBe(0);
    expect(reads).toEqual({ latest: 1, timeBounds: 0, series: 0, failNextTimeBounds: false });

    // A new cycle of a known (benchmark, region): its time bounds, and no region values read again
    // (bench/split.ts counted 11 series reads per poll, twice when a reload timer also fired). The
    // reload timer (200 ms) runs on a fake clock, moved past it: whatever it would read, it has read.
    await underlying.append([
      {
        metric,
        labels: { provider: 'alchemy', chain: 'ethereum', kind: 'block', region: 'eu-west' },
        t: t + 60_000,
        v: 43,
      },
      { metric: HARNESS_CYCLE_METRIC, labels: { benchmark: RPC, region: 'eu-west' }, t: t + 60_000, v: 1 },
    ]);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      expect([...(await replica.followStore())]).toEqual([RPC]);
      await vi.advanceTimersByTimeAsync(400);
    } finally {
      vi.useRealTimers();
    }
    // (`latest` also counts the origin check of the new samples' range, one read per family metric.)
    expect({ timeBounds: reads.timeBounds, series: reads.series }).toEqual({ timeBounds: 1, series: 0 });
  });
});

describe('a replica outlives the engine (issue 27 rule 4, in part)', () => {
  it('a failed poll marks the engine down at once: last views degraded, engine reads fail at once, live again on the next good poll', async () => {
    const specs = await loadSpecs(BENCHMARKS_DIR);
    const underlying = await openDuckDbStore({ path: ':memory:' });
    open.push(underlying);
    await underlying.append(buildDataset({ seed: 7, days: 1, end: NOW, markers: true }));
    // The engine as the replica reaches it: down, the poll's read is refused at once and any
    // other read would hang for 30 s (a hung engine).
    const engine = { down: false, hangs: false, hung: 0 };
    const reached = new Proxy(underlying as Store, {
      get(target, key) {
        const v: unknown = Reflect.get(target, key);
        if (typeof v !== 'function') return v;
        if (key === 'onAppend') return () => () => undefined;
        return (...args: unknown[]) => {
          if (engine.hangs && key === 'latest') return new Promise(() => undefined);
          if (engine.down && key === 'latest') return Promise.reject(new Error('connect ECONNREFUSED'));
          if (engine.down && ['select', 'series', 'timeBounds'].includes(String(key))) {
            engine.hung++;
            return new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 30_000));
          }
          return (v as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    let now = NOW + 60_000;
    const replica = createPublication({
      specs,
      store: reached,
      site: { name: 'Citebench', baseUrl: 'http://b' },
      clock: () => now,
    });
    open.push({ close: () => replica.close() });
    await replica.followStore();
    const live = await replica.stat(NETWORK, null);
    expect(live.value.degraded).toBeUndefined();
    // Every benchmark's last good view exists once the index was served live.
    expect((await replica.citable()).value.site.degraded).toBeUndefined();
    expect(replica.engineDown).toBe(false);

    engine.down = true;
    await expect(replica.followStore()).rejects.toThrow(/ECONNREFUSED/);
    expect(replica.engineDown).toBe(true);
    // The cached view is dropped; its recompute fails at once and the last good one is served.
    now += 20 * 60_000;
    const down = await replica.stat(NETWORK, null);
    const index = await replica.citable();
    const llm = new TextDecoder().decode((await replica.llmContext()).body);
    // At once: no read went to the engine (each would hang 30 s).
    expect(engine.hung).toBe(0);
    expect(down.value.degraded).toBe(true);
    expect(down.value.value).toBe(live.value.value);
    expect(index.value.site.degraded).toBe(true);
    expect(llm).toMatch(/^# .*\n\n> \*\*DEGRADED\.\*\*/);

    engine.down = false;
    await replica.followStore();
    expect(replica.engineDown).toBe(false);
    expect((await replica.stat(NETWORK, null)).value.degraded).toBeUndefined();

    // A hung engine (the marker read never answers) is down once the poll's deadline passes, not
    // after the client's timeouts and retries: the failure names the poll's deadline (a read that
    // never answers, so without the deadline the poll would never end).
    engine.hangs = true;
    await expect(replica.followStore()).rejects.toThrow(
      new RegExp(`did not answer within ${POLL_DEADLINE_MS} ms`),
    );
    expect(replica.engineDown).toBe(true);
  });
});
