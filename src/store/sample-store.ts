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
  /** The newest sample at or before `at`, one per matching series. */
  latest(q: LatestQuery): Promise<Sample[]>;
  /** Every series of a metric (or of all metrics) with its labels. */
  series(metric?: string): Promise<SeriesInfo[]>;
  /** Oldest and newest sample timestamps over the given metrics (all metrics when omitted). */
  timeBounds(metrics?: readonly string[]): Promise<{ min: number; max: number } | null>;
  onAppend(listener: AppendListener): () => void;
  close(): Promise<void>;
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
}

/** Small key/value state the harness needs (consecutive-failure counters, cycle bookkeeping). */
export interface StateStore {
  getState(key: string): Promise<string | null>;
  setState(key: string, value: string): Promise<void>;
}

export type Store = SampleStore & SnapshotStore & StateStore;
