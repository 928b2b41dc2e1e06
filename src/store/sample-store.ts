import { type PackedSamples, packSamples } from '../core/packed-samples.ts';
import type { Matcher, Sample } from '../core/samples.ts';

export interface SelectQuery {
  readonly metric: string;
  readonly matchers?: readonly Matcher[];
  /** Exclusive lower bound, epoch ms (a Prometheus range selector is left-open). */
  readonly after: number;
  /** Inclusive upper bound, epoch ms. */
  readonly until: number;
}

export interface LatestQuery {
  readonly metric: string;
  readonly matchers?: readonly Matcher[];
  /** Inclusive: the newest sample with t <= at, per series. */
  readonly at: number;
  /** Optional: ignore samples older than this (exclusive), epoch ms. */
  readonly notBefore?: number;
}

export interface SeriesInfo {
  readonly metric: string;
  readonly labels: Readonly<Record<string, string>>;
}

/** Receives the metric names touched by an append, for cache invalidation. */
export type AppendListener = (metrics: ReadonlySet<string>, minT: number, maxT: number) => void;

export interface SampleStore {
  /** Appends in one transaction; idempotent on (metric, labels, t). Returns rows newly stored. */
  append(samples: readonly Sample[]): Promise<number>;
  /** Samples ordered by series, then time. */
  select(q: SelectQuery): Promise<Sample[]>;
  /**
   * What select gives, packed (core/packed-samples.ts) as it is read: for a worker thread, without
   * a Sample object per row on the event loop. Optional: selectPacked() below packs select's.
   */
  selectPacked?(q: SelectQuery): Promise<PackedSamples>;
  /** The newest sample at or before `at`, one per matching series. */
  latest(q: LatestQuery): Promise<Sample[]>;
  /** Every series of a metric (or of all metrics) with its labels. */
  series(metric?: string): Promise<SeriesInfo[]>;
  /** Oldest and newest sample timestamps over the given metrics (all metrics when omitted). */
  timeBounds(metrics?: readonly string[]): Promise<{ min: number; max: number } | null>;
  onAppend(listener: AppendListener): () => void;
  close(): Promise<void>;
}

/** A store's packed read where it has one, else its samples packed. */
export async function selectPacked(store: SampleStore, q: SelectQuery): Promise<PackedSamples> {
  return store.selectPacked ? store.selectPacked(q) : packSamples(await store.select(q));
}

export interface SnapshotEntry {
  readonly key: string;
  readonly body: Uint8Array;
  readonly etag: string;
}

/** Frozen day snapshots: stored bytes, served forever after. */
export interface SnapshotStore {
  getSnapshot(key: string): Promise<{ body: Uint8Array; etag: string; createdAt: number } | null>;
  /** Stores once; an existing snapshot is never overwritten. Returns the stored one. */
  putSnapshot(
    key: string,
    body: Uint8Array,
    etag: string,
  ): Promise<{ body: Uint8Array; etag: string; createdAt: number }>;
  /**
   * Many at once, each stored only if absent, in one transaction where the backend has them (use
   * `putSnapshots` below, which falls back to one putSnapshot each).
   */
  putSnapshots?(entries: readonly SnapshotEntry[]): Promise<void>;
  /**
   * The first day (YYYY-MM-DD) with a frozen index, where the snapshots live apart from the
   * samples (SNAPSHOT_DIR beside an engine): what bounds the days served while the engine is away.
   */
  firstFrozenDay?(): Promise<string | null>;
}

/**
 * Stores a day's snapshots (1,000 Stats at 1,000 benchmarks) in one go when the store can: on
 * DuckDB one INSERT per snapshot costs 3.5–4.5 ms whatever its size, so a day of 1,000 took 4.5 s
 * one by one and 0.13 s as one batch.
 */
export async function putSnapshots(store: SnapshotStore, entries: readonly SnapshotEntry[]): Promise<void> {
  if (store.putSnapshots) return store.putSnapshots(entries);
  for (const e of entries) await store.putSnapshot(e.key, e.body, e.etag);
}

/** Small key/value state the harness needs (consecutive-failure counters, cycle bookkeeping). */
export interface StateStore {
  getState(key: string): Promise<string | null>;
  setState(key: string, value: string): Promise<void>;
}

export type Store = SampleStore & SnapshotStore & StateStore;
