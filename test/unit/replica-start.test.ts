import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { testConfig } from '../../src/config.ts';
import { buildDataset } from '../../src/demo/dataset.ts';
import { createLogger } from '../../src/log.ts';
import { loadSpecs } from '../../src/publication/load-specs.ts';
import { createPublication } from '../../src/publication/publication.ts';
import { startReplicaPoll } from '../../src/replica-poll.ts';
import { defaultRoutes } from '../../src/routes.ts';
import { createService } from '../../src/service.ts';
import { StartupState } from '../../src/startup-state.ts';
import { openDuckDbStore } from '../../src/store/duckdb-store.ts';
import { FileSnapshotStore } from '../../src/store/file-snapshot-store.ts';
import type { Store } from '../../src/store/sample-store.ts';
import { BENCHMARKS_DIR, H, NOW } from '../helpers/fixture.ts';

/**
 * A replica starting while its engine is away does not wait for it (src/main.ts, src/replica-poll.ts):
 * its first poll is started, not waited for, and until a poll answers the engine counts as down.
 * So from its first request it serves the days frozen in SNAPSHOT_DIR, answers live routes and a
 * region 503 `engine_unavailable` at once (a region is never called unknown before it could be
 * read), and /healthz waits for that first poll to say "degraded" or "ok". The engine here holds
 * every read until the test lets it answer, so "before the engine answered" is an event, not a time.
 */

const NETWORK = 'network-coverage';
const TRADE = 'token-trade-coverage';
const YESTERDAY = new Date(NOW - 24 * H).toISOString().slice(0, 10);
const ENGINE_READS = new Set<PropertyKey>(['select', 'latest', 'series', 'timeBounds']);

const cleanup: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

/** An engine whose reads wait until the test says how it answers: as it is, or refused. */
interface HeldEngine {
  /** Reads asked for and not answered yet. */
  readonly held: Array<(how: 'up' | 'refused') => void>;
  /** Resolves when the next read arrives (at once if one is held). */
  nextRead(): Promise<void>;
  /** Answers every held read, and every later one at once, this way. */
  answer(how: 'up' | 'refused'): void;
}

async function deployment(): Promise<{ replicaStore: Store; engine: HeldEngine }> {
  const underlying = await openDuckDbStore({ path: ':memory:' });
  const dir = await mkdtemp(join(tmpdir(), 'cb-replica-start-'));
  cleanup.push(
    () => underlying.close(),
    () => rm(dir, { recursive: true, force: true }),
  );
  const files = new FileSnapshotStore(dir);
  const snapshotsIn = (store: Store, read: (key: PropertyKey, run: () => unknown) => unknown): Store =>
    new Proxy(store, {
      get(target, key) {
        if (key === 'getSnapshot' || key === 'putSnapshot' || key === 'firstFrozenDay') {
          const f: unknown = Reflect.get(files, key);
          return (f as (...a: unknown[]) => unknown).bind(files);
        }
        if (key === 'putSnapshots') return undefined;
        // A replica never hears the writer's appends.
        if (key === 'onAppend' && read !== passThrough) return () => () => undefined;
        const v: unknown = Reflect.get(target, key);
        if (typeof v !== 'function') return v;
        return (...a: unknown[]) => read(key, () => (v as (...b: unknown[]) => unknown).apply(target, a));
      },
    });
  const passThrough = (_key: PropertyKey, run: () => unknown) => run();
  // The writer: two days of cycles, yesterday frozen into SNAPSHOT_DIR.
  await underlying.append(buildDataset({ seed: 7, days: 2, end: NOW, markers: true }));
  const writer = createPublication({
    specs: await loadSpecs(BENCHMARKS_DIR),
    store: snapshotsIn(underlying, passThrough),
    site: { name: 'Citebench', baseUrl: 'http://bench.test' },
    clock: () => NOW + 60_000,
  });
  cleanup.push(() => writer.close());
  expect(await writer.freezeClosedDays()).toBeGreaterThanOrEqual(1);

  let answered: 'up' | 'refused' | undefined;
  const held: HeldEngine['held'] = [];
  const waiting: Array<() => void> = [];
  const engine: HeldEngine = {
    held,
    nextRead: () => (held.length > 0 ? Promise.resolve() : new Promise<void>((r) => waiting.push(r))),
    answer(how) {
      answered = how;
      for (const h of held.splice(0)) h(how);
    },
  };
  const replicaStore = snapshotsIn(underlying, (key, run) => {
    if (!ENGINE_READS.has(key)) return run();
    const respond = (how: 'up' | 'refused') =>
      how === 'up' ? run() : Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:9090'));
    if (answered !== undefined) return respond(answered);
    return new Promise((resolve, reject) => {
      held.push((how) => {
        Promise.resolve(respond(how)).then(resolve, reject);
      });
      for (const w of waiting.splice(0)) w();
    });
  });
  return { replicaStore, engine };
}

describe('a replica starting while its engine is away', () => {
  it('is ready before its engine answers: frozen days 200, live routes and regions 503 engine_unavailable, /healthz waits for the first poll', async () => {
    const { replicaStore, engine } = await deployment();
    const startup = new StartupState();
    const service = await createService({
      config: testConfig({
        port: 0,
        benchmarksDir: BENCHMARKS_DIR,
        baseUrl: 'http://bench.test',
        logLevel: 'silent',
      }),
      log: createLogger('silent'),
      clock: () => NOW + 60_000,
      routes: defaultRoutes,
      openedStore: replicaStore,
      store: { backend: 'prometheus', prometheus: { url: 'http://127.0.0.1:9' }, replicaPollMs: 2_000 },
      startup,
    });
    cleanup.push(() => service.close());
    const pub = service.publication;

    // Start-up's part, as src/main.ts runs it for a replica before it binds.
    let pollStarted = false;
    const starting = Promise.resolve(
      startReplicaPoll(pub, 60_000, createLogger('silent'), async () => undefined),
    ).then((poll) => {
      pollStarted = true;
      startup.firstPoll = poll.first;
      return poll;
    });
    cleanup.push(async () => (await starting).stop());
    await engine.nextRead();
    // Every task queued so far has run: a start-up that waited for the poll would not be here.
    await new Promise((r) => setImmediate(r));
    expect(pollStarted, 'start-up waited for the first poll').toBe(true);
    expect(engine.held.length).toBeGreaterThan(0);
    startup.markReady();
    const port = await service.listen();
    const get = (p: string) => fetch(`http://127.0.0.1:${port}${p}`);
    await pub.loadDataValues().catch(() => undefined);

    const health = get('/healthz').then(async (r) => ({ status: r.status, body: await r.json() }));
    let healthAnswered = false;
    void health.then(() => {
      healthAnswered = true;
    });
    const frozen = await get(`/api/citable/${YESTERDAY}`);
    expect(frozen.status).toBe(200);
    const frozenBytes = Buffer.from(await frozen.arrayBuffer());
    expect((await get(`/api/stat/${NETWORK}?date=${YESTERDAY}`)).status).toBe(200);
    // Asked first, not answered yet: it waits for the first poll, which waits for the engine.
    expect(healthAnswered, '/healthz answered before the first poll settled').toBe(false);
    for (const path of [`/api/stat/${TRADE}`, '/api/citable', `/api/stat/${TRADE}?region=eu-west`]) {
      const res = await get(path);
      expect(res.status, path).toBe(503);
      expect(res.headers.get('retry-after'), path).toBe('2');
      expect(((await res.json()) as { error: string }).error, path).toBe('engine_unavailable');
    }

    engine.answer('refused');
    expect(await health).toEqual({
      status: 200,
      body: { status: 'degraded', benchmarks: expect.any(Number) },
    });

    // The engine back: the next poll answers, live views are served, the frozen day is the same bytes.
    engine.answer('up');
    await pub.followStore();
    expect(((await (await get('/healthz')).json()) as { status: string }).status).toBe('ok');
    expect((await get(`/api/stat/${TRADE}`)).status).toBe(200);
    const again = await get(`/api/citable/${YESTERDAY}`);
    expect(Buffer.from(await again.arrayBuffer()).equals(frozenBytes)).toBe(true);
  });
});
