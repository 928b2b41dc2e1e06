import { join } from 'node:path';
import { openDuckDbStore } from './duckdb-store.ts';
import { FileSnapshotStore } from './file-snapshot-store.ts';
import type { StoreConfig } from './prometheus-config.ts';
import { openPrometheusStore, type PrometheusStore } from './prometheus-store.ts';
import type { Store } from './sample-store.ts';

export interface OpenStoreOptions {
  readonly dataDir: string;
  readonly duckdbMemoryLimit: string;
  /** ':memory:' DuckDB instead of DATA_DIR (tests and benches). */
  readonly inMemory?: boolean;
  readonly onEngineError?: (e: Error) => void;
  readonly droppedSamplesCounter?: { inc(n: number): void };
  /** The service's clock, when not the wall's (the demo clock): how far ahead an engine is searched. */
  readonly clock?: () => number;
}

/** A store on a Prometheus-compatible engine: samples in the engine, frozen days as shared files. */
export type EngineStore = Store & { readonly engine: PrometheusStore };

/**
 * The store the configuration asks for. Embedded: one DuckDB file (samples, snapshots, state).
 * Prometheus: samples in the engine (remote write + HTTP query API), frozen days in SNAPSHOT_DIR
 * (written once by atomic rename, read by every replica). The harness keeps no other state: it
 * resumes from the cycle markers stored with the samples, so the state store here is per process.
 */
export async function openStore(cfg: StoreConfig, o: OpenStoreOptions): Promise<Store | EngineStore> {
  if (cfg.backend === 'embedded') {
    return openDuckDbStore({
      path: o.inMemory ? ':memory:' : join(o.dataDir, 'citebench.duckdb'),
      memoryLimit: o.duckdbMemoryLimit,
    });
  }
  const engine = await openPrometheusStore({
    ...cfg.prometheus,
    ...(o.onEngineError ? { onError: o.onEngineError } : {}),
    ...(o.droppedSamplesCounter ? { droppedSamplesCounter: o.droppedSamplesCounter } : {}),
    ...(o.clock ? { clock: o.clock } : {}),
  });
  return engineStore(engine, new FileSnapshotStore(snapshotDirOf(cfg, o.dataDir)));
}

/** SNAPSHOT_DIR, by default DATA_DIR/snapshots. */
export function snapshotDirOf(cfg: StoreConfig & { backend: 'prometheus' }, dataDir: string): string {
  return cfg.snapshotDir ?? join(dataDir, 'snapshots');
}

/** Composes an engine-backed SampleStore with file snapshots into the service's Store. */
export function engineStore(engine: PrometheusStore, snapshots: FileSnapshotStore): EngineStore {
  const state = new Map<string, string>();
  return {
    engine,
    append: (s) => engine.append(s),
    select: (q) => engine.select(q),
    latest: (q) => engine.latest(q),
    series: (m) => engine.series(m),
    timeBounds: (m) => engine.timeBounds(m),
    onAppend: (l) => engine.onAppend(l),
    close: () => engine.close(),
    getSnapshot: (k) => snapshots.getSnapshot(k),
    putSnapshot: (k, b, e) => snapshots.putSnapshot(k, b, e),
    firstFrozenDay: () => snapshots.firstFrozenDay(),
    getState: async (k) => state.get(k) ?? null,
    setState: async (k, v) => {
      state.set(k, v);
    },
  };
}
