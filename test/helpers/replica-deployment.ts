import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testConfig } from '../../src/config.ts';
import { createLogger } from '../../src/log.ts';
import { defaultRoutes } from '../../src/routes.ts';
import { createService, type Service } from '../../src/service.ts';
import { type DuckDbStore, openDuckDbStore } from '../../src/store/duckdb-store.ts';
import { FileSnapshotStore } from '../../src/store/file-snapshot-store.ts';
import type { Store } from '../../src/store/sample-store.ts';
import { BENCHMARKS_DIR } from './fixture.ts';

/**
 * A replica and its engine in one process, for test/unit/replica-engine-down.test.ts and the
 * deadlines of test/timing/replica-engine-deadlines.test.ts: samples in DuckDB (the "engine" the
 * replica reaches through `reach`), snapshots in a shared SNAPSHOT_DIR as on a split deployment.
 */

/** What each test registers to undo, run in reverse by its afterEach. */
export type Cleanup = Array<() => Promise<unknown> | unknown>;

const ENGINE_READS = ['select', 'latest', 'series', 'timeBounds'];

/** How the replica reaches the engine: answering, refusing at once, or hanging. */
export interface Reach {
  mode: 'up' | 'refused' | 'hung';
  /** Engine reads asked for while not up. */
  tried: number;
}

/** The writer reaches the engine directly and freezes; the replica's engine reads go through `reach`. */
export async function deployment(cleanup: Cleanup): Promise<{
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

export async function replicaService(
  store: Store,
  now: () => number,
  cleanup: Cleanup,
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
