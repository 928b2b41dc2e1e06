import { dirname } from 'node:path';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { type PackedSamples, packSamples } from '../core/packed-samples.ts';
import type { Sample } from '../core/samples.ts';
import { appendTransaction, validateSamples } from './duckdb-append.ts';
import { loadRecent, migrate, prepareStaging, readSeries } from './duckdb-open.ts';
import { latestSql, selectPackedSql, selectRecent, selectRecentPacked, selectSql } from './duckdb-reads.ts';
import { SeriesIndex, type SeriesRow } from './duckdb-series.ts';
import {
  insertSnapshot,
  insertSnapshots,
  readSnapshot,
  readState,
  type StoredSnapshot,
  snapshotText,
  writeState,
} from './duckdb-snapshots.ts';
import { classifyOpenError, prepareDataDir } from './open-errors.ts';
import { RecentSamples } from './recent-samples.ts';
import type {
  AppendListener,
  LatestQuery,
  SelectQuery,
  SeriesInfo,
  SnapshotEntry,
  Store,
} from './sample-store.ts';

export interface DuckDbStoreOptions {
  /** File path, or ':memory:' for tests. */
  readonly path: string;
  /** DuckDB memory_limit, e.g. '256MB'. */
  readonly memoryLimit?: string;
  readonly threads?: number;
  /**
   * How far behind the newest sample reads are answered from memory (RecentSamples); 0 sends every
   * read to SQL. Default 74 h: a live Stat reads 48 h (its sparkline's first point has its own 24 h
   * window), the day-ago Stat of /api/search/featured 72 h, plus 2 h for a late harness.
   */
  readonly recentHorizonMs?: number;
}

export const DEFAULT_RECENT_HORIZON_MS = 74 * 3_600_000;

/**
 * Embedded store on DuckDB. One connection, every statement serialized through a queue, so a
 * transaction never interleaves with another caller's statements. Series metadata is mirrored in
 * memory (SeriesIndex): label matching happens in JS over a small set, sample scans happen in SQL
 * by series id, and the recent tail of every series is held in memory (RecentSamples).
 *
 * The statements live beside it: schema and open (duckdb-open.ts), appends (duckdb-append.ts),
 * sample reads (duckdb-reads.ts), snapshots and state (duckdb-snapshots.ts).
 */
export class DuckDbStore implements Store {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly index = new SeriesIndex();
  private readonly listeners = new Set<AppendListener>();
  private closed = false;
  /** Set when close() starts: later statements are refused so close() waits for a finite queue. */
  private closing: Promise<void> | undefined;
  private readonly recent: RecentSamples;
  /** Appends queued or running: a read issued meanwhile waits for them, as SQL reads always did. */
  private appending = 0;

  private constructor(
    private readonly instance: DuckDBInstance,
    private readonly conn: DuckDBConnection,
    recentHorizonMs: number,
  ) {
    this.recent = new RecentSamples(recentHorizonMs);
  }

  /**
   * Opens (creating or migrating) the database. Failures an operator can fix (a read-only, full or
   * missing DATA_DIR, a lock held by another process, a newer schema) reject with a StoreOpenError
   * whose message is one line; the database is left as it was found.
   */
  static async open(opts: DuckDbStoreOptions): Promise<DuckDbStore> {
    const file = opts.path !== ':memory:';
    let instance: DuckDBInstance | undefined;
    try {
      if (file) await prepareDataDir(dirname(opts.path));
      instance = await DuckDBInstance.create(opts.path, {
        memory_limit: opts.memoryLimit ?? '256MB',
        threads: String(opts.threads ?? 2),
      });
      const conn = await instance.connect();
      const store = new DuckDbStore(instance, conn, opts.recentHorizonMs ?? DEFAULT_RECENT_HORIZON_MS);
      try {
        await migrate(conn);
        await prepareStaging(conn);
        store.index.load(await readSeries(conn));
        await loadRecent(conn, store.recent);
      } catch (e) {
        conn.closeSync();
        throw e;
      }
      return store;
    } catch (e) {
      instance?.closeSync();
      throw file ? classifyOpenError(opts.path, e) : e;
    }
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closed || this.closing) return Promise.reject(new Error('store is closed'));
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** A read from memory: at once, or after the appends already issued (so it sees them). */
  private fromMemory<T>(read: () => T): Promise<T> {
    if (this.appending > 0) return this.exclusive(async () => read());
    try {
      return Promise.resolve(read());
    } catch (e) {
      return Promise.reject(e);
    }
  }

  private matching(q: SelectQuery | LatestQuery): SeriesRow[] {
    if (this.closed) throw new Error('store is closed');
    return this.index.matching(q.metric, q.matchers);
  }

  append(samples: readonly Sample[]): Promise<number> {
    if (samples.length === 0) return Promise.resolve(0);
    validateSamples(samples);
    this.appending++;
    const run = this.exclusive(async () => {
      const a = await appendTransaction(this.conn, this.index, samples);
      // Before the listeners: views they invalidate are recomputed from the new rows.
      this.recent.add(a.rows);
      if (a.inserted > 0) for (const l of this.listeners) l(a.metrics, a.minT, a.maxT);
      return a.inserted;
    });
    return run.finally(() => {
      this.appending--;
    });
  }

  select(q: SelectQuery): Promise<Sample[]> {
    if (this.closed) return Promise.reject(new Error('store is closed'));
    const series = this.matching(q);
    if (series.length === 0) return Promise.resolve([]);
    const sql = () => this.exclusive(() => selectSql(this.conn, q, series));
    if (q.after >= this.recent.floor) {
      return this.fromMemory(() => selectRecent(this.recent, q, series)).catch(sql);
    }
    return sql();
  }

  selectPacked(q: SelectQuery): Promise<PackedSamples> {
    if (this.closed) return Promise.reject(new Error('store is closed'));
    const series = this.matching(q);
    if (series.length === 0) return Promise.resolve(packSamples([]));
    const sql = () => this.exclusive(() => selectPackedSql(this.conn, q, series));
    if (q.after >= this.recent.floor) {
      return this.fromMemory(() => selectRecentPacked(this.recent, q, series)).catch(sql);
    }
    return sql();
  }

  latest(q: LatestQuery): Promise<Sample[]> {
    if (this.closed) return Promise.reject(new Error('store is closed'));
    const series = this.matching(q).sort((a, b) => a.id - b.id);
    if (series.length === 0) return Promise.resolve([]);
    return this.fromMemory(() => series.map((s) => this.recent.latest(s.id, q.at, q.notBefore))).then(
      async (held) => {
        // Series whose latest sample may be older than the recent tail: the table has it.
        const unknown = series.filter((_, i) => held[i] === null);
        const older =
          unknown.length > 0
            ? await this.exclusive(() => latestSql(this.conn, q, unknown))
            : new Map<number, Sample>();
        const out: Sample[] = [];
        series.forEach((s, i) => {
          const r = held[i];
          if (r) out.push({ metric: s.metric, labels: s.labels, t: r.t, v: r.v });
          else if (r === null) {
            const o = older.get(s.id);
            if (o) out.push(o);
          }
        });
        return out;
      },
    );
  }

  series(metric?: string): Promise<SeriesInfo[]> {
    if (this.closed) return Promise.reject(new Error('store is closed'));
    const out: SeriesInfo[] = [];
    for (const m of metric === undefined ? this.index.metrics() : [metric])
      for (const row of this.index.rows(m)) out.push({ metric: row.metric, labels: row.labels });
    return Promise.resolve(out);
  }

  timeBounds(metrics?: readonly string[]): Promise<{ min: number; max: number } | null> {
    if (this.closed) return Promise.reject(new Error('store is closed'));
    const ids: number[] = [];
    for (const m of metrics ?? this.index.metrics()) for (const row of this.index.rows(m)) ids.push(row.id);
    if (ids.length === 0) return Promise.resolve(null);
    return this.fromMemory(() => this.recent.timeBounds(ids));
  }

  onAppend(listener: AppendListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  getSnapshot(key: string): Promise<StoredSnapshot | null> {
    return this.exclusive(() => readSnapshot(this.conn, key));
  }

  async putSnapshot(key: string, body: Uint8Array, etag: string): Promise<StoredSnapshot> {
    const text = snapshotText(body);
    await this.exclusive(() => insertSnapshot(this.conn, key, text, etag));
    const stored = await this.getSnapshot(key);
    if (!stored) throw new Error(`snapshot ${key} was not stored`);
    return stored;
  }

  /** One transaction: the batch lands whole or not at all; a key already stored keeps its bytes. */
  putSnapshots(entries: readonly SnapshotEntry[]): Promise<void> {
    if (entries.length === 0) return Promise.resolve();
    const texts = entries.map((e) => snapshotText(e.body));
    return this.exclusive(() => insertSnapshots(this.conn, entries, texts));
  }

  getState(key: string): Promise<string | null> {
    return this.exclusive(() => readState(this.conn, key));
  }

  setState(key: string, value: string): Promise<void> {
    return this.exclusive(() => writeState(this.conn, key, value));
  }

  /**
   * Waits for the statement in progress (an append is one transaction, so a cycle is either all
   * committed or not at all), refuses any later one, checkpoints the WAL into the database file so
   * the next start has nothing to replay, and closes.
   */
  close(): Promise<void> {
    this.closing ??= this.queue.then(async () => {
      this.closed = true;
      await this.conn.run('CHECKPOINT').catch(() => undefined);
      this.conn.closeSync();
      this.instance.closeSync();
    });
    return this.closing;
  }
}

export function openDuckDbStore(opts: DuckDbStoreOptions): Promise<DuckDbStore> {
  return DuckDbStore.open(opts);
}
