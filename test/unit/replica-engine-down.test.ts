import { afterEach, describe, expect, it } from 'vitest';
import { buildDataset } from '../../src/demo/dataset.ts';
import { loadSpecs } from '../../src/publication/load-specs.ts';
import { createPublication } from '../../src/publication/publication.ts';
import { FileSnapshotStore } from '../../src/store/file-snapshot-store.ts';
import { BENCHMARKS_DIR, H, NOW } from '../helpers/fixture.ts';
import { type Cleanup, deployment, replicaService } from '../helpers/replica-deployment.ts';

/**
 * Issue 27 rule 4: a replica outlives its engine. Started while the engine is away it serves the
 * frozen days of SNAPSHOT_DIR (bounded by the files, never asking the engine), answers live
 * routes 503 `engine_unavailable` with Retry-After, and serves live values once the engine answers
 * a poll, after the origin check, with no restart. Every engine read a view makes is bounded
 * (3 s, retries included) and query_prom has a client of its own, cut at 2 s: those bounds are
 * test/timing/replica-engine-deadlines.test.ts.
 */

const NETWORK = 'network-coverage';
const day = (t: number) => new Date(t).toISOString().slice(0, 10);
const YESTERDAY = day(NOW - 24 * H);
const cleanup: Cleanup = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

describe('a replica started while its engine is down', () => {
  it('serves frozen days from SNAPSHOT_DIR without asking the engine, answers live routes 503 engine_unavailable with Retry-After, and serves live once a poll answers and the origin check passed', async () => {
    const { underlying, writerStore, replicaStore, reach } = await deployment(cleanup);
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
    const { service, get } = await replicaService(replicaStore, () => now, cleanup);
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

    // Live routes: 503 engine_unavailable, Retry-After one poll, at once: no read asks the engine
    // (and waits for its refusals' back-off) while the last poll found it down.
    for (const path of [`/api/stat/${NETWORK}`, '/api/citable', '/api/freshness']) {
      const res = await get(path);
      expect(res.status, path).toBe(503);
      expect(res.headers.get('retry-after'), path).toBe('2');
      expect(((await res.json()) as { error: string }).error, path).toBe('engine_unavailable');
    }
    expect(reach.tried).toBe(tried);
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
});

describe('a replica lists what the writer froze', () => {
  it('the dataset index changes on a poll that found samples, and on a day the writer froze', async () => {
    const { underlying, writerStore, replicaStore } = await deployment(cleanup);
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
