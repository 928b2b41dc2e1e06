import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { testConfig } from '../../src/config.ts';
import { buildDataset } from '../../src/demo/dataset.ts';
import { createLogger } from '../../src/log.ts';
import {
  createPassthroughQueryEngine,
  QUERY_PROM_DEADLINE_MS,
} from '../../src/mcp/promql/engine-passthrough.ts';
import { VIEW_READ_DEADLINE_MS } from '../../src/publication/engine-deadlines.ts';
import { loadSpecs } from '../../src/publication/load-specs.ts';
import { createPublication } from '../../src/publication/publication.ts';
import { EngineUnavailableError } from '../../src/publication/types.ts';
import { defaultRoutes } from '../../src/routes.ts';
import { createService, type Service } from '../../src/service.ts';
import { type DuckDbStore, openDuckDbStore } from '../../src/store/duckdb-store.ts';
import { FileSnapshotStore } from '../../src/store/file-snapshot-store.ts';
import { openPrometheusStore } from '../../src/store/prometheus-store.ts';
import type { Store } from '../../src/store/sample-store.ts';
import { BENCHMARKS_DIR, H, NOW } from '../helpers/fixture.ts';

/**
 * Issue 27 rule 4: a replica outlives its engine. Started while the engine is away it serves the
 * frozen days of SNAPSHOT_DIR (bounded by the files, never asking the engine), answers live
 * routes 503 `engine_unavailable` with Retry-After, and serves live values once the engine answers
 * a poll, after the origin check, with no restart. Every engine read a view makes is bounded
 * (3 s, retries included); query_prom has a client of its own, cut at 2 s.
 */

const NETWORK = 'network-coverage';
const day = (t: number) => new Date(t).toISOString().slice(0, 10);
const YESTERDAY = day(NOW - 24 * H);
const ENGINE_READS = ['select', 'latest', 'series', 'timeBounds'];

const cleanup: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

/** How the replica reaches the engine: answering, refusing at once, or hanging. */
interface Reach {
  mode: 'up' | 'refused' | 'hung';
  /** Engine reads asked for while not up. */
  tried: number;
}

/**
 * Samples in DuckDB (the "engine" the replica reaches through `reach`), snapshots in a shared
 * SNAPSHOT_DIR as on a split deployment. The writer reaches the engine directly and freezes.
 */
async function deployment(): Promise<{
  underlying: DuckDbStore;
  writerStore: Store;
  replicaStore: Store;
  reach: Reach;
}> {
  const underlying = await openDuckDbStore({ path: ':memory:' });
  const dir = await mkdtemp(join(tmpdir(), 'cb-replica-snap-'));
  cleanup.push(
    () => underlying.close(),
    () => rm(dir, { recursive: true, force: true }),
  );
  const files = new FileSnapshotStore(dir);
  const reach: Reach = { mode: 'up', tried: 0 };
  const withFiles = (
    through: (key: PropertyKey, v: (...a: unknown[]) => unknown) => (...a: unknown[]) => unknown,
  ) =>
    new Proxy(underlying as Store, {
      get(target, key) {
        if (key === 'getSnapshot' || key === 'putSnapshot' || key === 'firstFrozenDay') {
          const f: unknown = Reflect.get(files, key);
          return (f as (...a: unknown[]) => unknown).bind(files);
        }
        if (key === 'putSnapshots') return undefined;
        const v: unknown = Reflect.get(target, key);
        if (typeof v !== 'function') return v;
        return through(key, (...a: unknown[]) => (v as (...b: unknown[]) => unknown).apply(target, a));
      },
    });
  const writerStore = withFiles((_key, v) => v);
  const replicaStore = withFiles((key, v) => {
    // A replica never hears the writer's appends.
    if (key === 'onAppend') return () => () => undefined;
    if (!ENGINE_READS.includes(String(key))) return v;
    return (...a: unknown[]) => {
      if (reach.mode === 'up') return v(...a);
      reach.tried++;
      if (reach.mode === 'refused') return Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:9090'));
      return new Promise(() => undefined);
    };
  });
  return { underlying, writerStore, replicaStore, reach };
}

async function replicaService(
  store: Store,
  now: () => number,
): Promise<{ service: Service; get: (p: string) => Promise<Response> }> {
  const service = await createService({
    config: testConfig({
      port: 0,
      benchmarksDir: BENCHMARKS_DIR,
      baseUrl: 'http://bench.test',
      logLevel: 'silent',
    }),
    log: createLogger('silent'),
    clock: now,
    routes: defaultRoutes,
    openedStore: store,
    // An engine store: reads bounded, Retry-After of one poll (2 s).
    store: { backend: 'prometheus', prometheus: { url: 'http://127.0.0.1:9' }, replicaPollMs: 2_000 },
  });
  cleanup.push(() => service.close());
  const port = await service.listen();
  return { service, get: (p) => fetch(`http://127.0.0.1:${port}${p}`) };
}

describe('a replica started while its engine is down', () => {
  it('serves frozen days from SNAPSHOT_DIR without asking the engine, answers live routes 503 engine_unavailable with Retry-After, and serves live once a poll answers and the origin check passed', async () => {
    const { underlying, writerStore, replicaStore, reach } = await deployment();
    const specs = await loadSpecs(BENCHMARKS_DIR);
    const now = NOW + 60_000;
    await underlying.append(buildDataset({ seed: 7, days: 3, end: NOW, markers: true }));
    const writer = createPublication({
      specs,
      store: writerStore,
      site: { name: 'Citebench', baseUrl: 'http://bench.test' },
      clock: () => now,
    });
    cleanup.push(() => writer.close());
    expect(await writer.freezeClosedDays()).toBeGreaterThanOrEqual(2);
    const firstFrozen = await new FileSnapshotStore('/nonexistent').firstFrozenDay();
    expect(firstFrozen).toBeNull();

    reach.mode = 'refused';
    const { service, get } = await replicaService(replicaStore, () => now);
    const pub = service.publication;
    const origin: string[] = [];
    const checkOrigin = async () => {
      origin.push('checked');
    };
    await expect(pub.followStore(checkOrigin)).rejects.toThrow(/ECONNREFUSED/);
    expect(pub.engineDown).toBe(true);
    expect(origin).toEqual([]);

    // Frozen days: 200 from the files, the engine not asked.
    const tried = reach.tried;
    for (const path of [`/api/citable/${YESTERDAY}`, `/api/stat/${NETWORK}?date=${YESTERDAY}`]) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
    }
    expect(reach.tried).toBe(tried);
    // A day before the first frozen file is before the first snapshot; a later one not frozen yet.
    const before = await get(`/api/citable/${day(NOW - 10 * 24 * H)}`);
    expect(before.status).toBe(400);
    expect(((await before.json()) as { message: string }).message).toMatch(/before the first snapshot/);

    // Live routes: 503 engine_unavailable, Retry-After one poll, at once (no read waits).
    const t0 = performance.now();
    for (const path of [`/api/stat/${NETWORK}`, '/api/citable', '/api/freshness']) {
      const res = await get(path);
      expect(res.status, path).toBe(503);
      expect(res.headers.get('retry-after'), path).toBe('2');
      expect(((await res.json()) as { error: string }).error, path).toBe('engine_unavailable');
    }
    expect(performance.now() - t0).toBeLessThan(2_000);
    expect(await (await get('/healthz')).json()).toMatchObject({ status: 'degraded' });
    // A region filter while the region values could not be read (main.ts reads them before ready):
    // the engine's failure, not a 404 calling a measured region unknown.
    await pub.loadDataValues();
    for (const path of [`/api/stat/${NETWORK}?region=eu-west`, `/api/series/${NETWORK}?region=eu-west`]) {
      const res = await get(path);
      expect(res.status, path).toBe(503);
      expect(res.headers.get('retry-after'), path).toBe('2');
      expect(((await res.json()) as { error: string }).error, path).toBe('engine_unavailable');
    }

    // The origin check runs in the first poll that answers, before any view reads the engine;
    // its failure keeps the engine down.
    reach.mode = 'up';
    await expect(
      pub.followStore(async () => {
        throw new Error('the engine holds measured samples');
      }),
    ).rejects.toThrow(/measured samples/);
    expect(pub.engineDown).toBe(true);
    expect((await get(`/api/stat/${NETWORK}`)).status).toBe(503);
    await pub.followStore(checkOrigin);
    expect(origin).toEqual(['checked']);
    expect(pub.engineDown).toBe(false);
    const live = await get(`/api/stat/${NETWORK}`);
    expect(live.status).toBe(200);
    expect(((await live.json()) as { status: string }).status).toBe('live');
    expect(await (await get('/healthz')).json()).toMatchObject({ status: 'ok' });
    // Once answered, the origin is not checked again.
    await pub.followStore(checkOrigin);
    expect(origin).toEqual(['checked']);
  });

  it('bounds every engine read a view makes: a hung engine gives engine_unavailable within the deadline, and is down until a poll answers', async () => {
    const { underlying, replicaStore, reach } = await deployment();
    await underlying.append(buildDataset({ seed: 7, days: 1, end: NOW, markers: true }));
    const { service } = await replicaService(replicaStore, () => NOW + 60_000);
    await service.publication.followStore();
    // Hung, and no poll has noticed yet: the read's own deadline answers.
    reach.mode = 'hung';
    service.publication.statAt(NETWORK, null, NOW).catch(() => undefined);
    const t0 = performance.now();
    await expect(service.publication.statAt(NETWORK, null, NOW - H)).rejects.toBeInstanceOf(
      EngineUnavailableError,
    );
    const took = performance.now() - t0;
    expect(took).toBeGreaterThan(VIEW_READ_DEADLINE_MS - 200);
    expect(took).toBeLessThan(VIEW_READ_DEADLINE_MS + 1_500);
    // The miss took the engine as down until a poll answers: the next read fails at once, so a view
    // of many reads (the index) waits one deadline, not one per read.
    expect(service.publication.engineDown).toBe(true);
    const t1 = performance.now();
    await expect(service.publication.statAt(NETWORK, null, NOW - 2 * H)).rejects.toBeInstanceOf(
      EngineUnavailableError,
    );
    expect(performance.now() - t1).toBeLessThan(500);
    reach.mode = 'up';
    await service.publication.followStore();
    expect(service.publication.engineDown).toBe(false);
  });
});

describe('a replica lists what the writer froze', () => {
  it('the dataset index changes on a poll that found samples, and on a day the writer froze', async () => {
    const { underlying, writerStore, replicaStore } = await deployment();
    const specs = await loadSpecs(BENCHMARKS_DIR);
    let now = NOW + 60_000;
    const site = { name: 'Citebench', baseUrl: 'http://bench.test' };
    const writer = createPublication({ specs, store: writerStore, site, clock: () => now });
    const replica = createPublication({ specs, store: replicaStore, site, clock: () => now });
    cleanup.push(
      () => writer.close(),
      () => replica.close(),
    );
    // The replica has polled (and listed) an empty store before the writer wrote.
    await replica.followStore();
    expect((await replica.dataset.index()).days).toEqual([]);
    const v0 = replica.dataset.version;
    await underlying.append(buildDataset({ seed: 7, days: 2, end: NOW, markers: true }));
    await replica.followStore();
    const v1 = replica.dataset.version;
    expect(v1).toBeGreaterThan(v0);
    // Yesterday is closed, not frozen: not listed yet. The writer freezes it; the next poll sees it.
    expect((await replica.dataset.index()).days.some((d) => d.date === YESTERDAY && d.frozen)).toBe(false);
    await writer.freezeClosedDays();
    await writer.dataset.freezeClosedDays(NOW - (NOW % (24 * H)));
    await replica.followStore();
    expect(replica.dataset.version).toBeGreaterThan(v1);
    expect((await replica.dataset.index()).days.some((d) => d.date === YESTERDAY && d.frozen)).toBe(true);
    // Nothing new: the version stands.
    const v2 = replica.dataset.version;
    now += 1000;
    await replica.followStore();
    expect(replica.dataset.version).toBe(v2);
  });
});

describe('query_prom on an engine', () => {
  let hung: Server | undefined;
  afterEach(async () => {
    hung?.closeAllConnections();
    await new Promise((r) => hung?.close(r));
    hung = undefined;
  });

  it('has a client of its own, cut at 2 s client-side, one attempt, leaving the store’s client alone', async () => {
    // An engine that accepts the connection and never answers.
    hung = createServer(() => undefined);
    await new Promise<void>((r) => hung?.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(hung.address() as AddressInfo).port}`;
    const store = await openPrometheusStore({ url, skipStartupCheck: true });
    cleanup.push(() => store.close());
    const client = store.queryClient(QUERY_PROM_DEADLINE_MS, 2);
    const engine = createPassthroughQueryEngine(client, url, { deadlineMs: QUERY_PROM_DEADLINE_MS });
    const t0 = performance.now();
    await expect(engine.instant('networks_supported', NOW)).rejects.toThrow(/timed out after 2000 ms/);
    const took = performance.now() - t0;
    expect(took).toBeGreaterThan(QUERY_PROM_DEADLINE_MS - 100);
    expect(took).toBeLessThan(QUERY_PROM_DEADLINE_MS + 1_000);
    expect(client.counts.reads).toBe(1);
    expect(store.http.counts.reads).toBe(0);
  });
});
