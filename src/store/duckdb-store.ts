import { dirname } from 'node:path';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { type Labels, labelsKey, type Matcher, matchesAll, type Sample } from '../core/samples.ts';
import { MIGRATIONS } from './migrations.ts';
import { classifyOpenError, prepareDataDir, StoreOpenError } from './open-errors.ts';
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

/** Samples an append prepares or stages before it lets the event loop serve others. */
const APPEND_SLICE = 2000;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

interface SeriesRow {
  readonly id: number;
  readonly metric: string;
  readonly labels: Labels;
}

/** Integers we inline into SQL are our own, but check them anyway. */
function int(n: number): string {
  if (!Number.isFinite(n)) throw new RangeError(`not a finite number: ${n}`);
  return String(Math.trunc(n));
}

function sqlString(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

/**
 * Embedded store on DuckDB. One connection, every statement serialized through a queue, so a
 * transaction never interleaves with another caller's statements. Series metadata is mirrored in
 * memory: label matching happens in JS over a small set, sample scans happen in SQL by series id.
 */
export class DuckDbStore implements Store {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly byMetric = new Map<string, Map<string, SeriesRow>>();
  private nextSeriesId = 1;
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
        await store.migrate();
        // Appends land here first so INSERT OR IGNORE gives idempotency on (series, t).
        await conn.run('CREATE TABLE IF NOT EXISTS staging (series_id INTEGER, t BIGINT, v DOUBLE)');
        await conn.run('DELETE FROM staging');
        await conn.run(
          'CREATE TEMP TABLE IF NOT EXISTS snapshot_staging (key VARCHAR, body VARCHAR, etag VARCHAR, created_at BIGINT)',
        );
        await store.loadSeries();
        await store.loadRecent();
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

  private async migrate(): Promise<void> {
    await this.conn.run('CREATE TABLE IF NOT EXISTS meta (key VARCHAR PRIMARY KEY, value VARCHAR NOT NULL)');
    const r = await this.conn.runAndReadAll("SELECT value FROM meta WHERE key = 'schema_version'");
    const current = r.currentRowCount ? Number(r.getRows()[0]?.[0]) : 0;
    if (current > MIGRATIONS.length) {
      // Checked before any migration runs, so an older build never touches a newer database.
      throw new StoreOpenError(
        'newer_schema',
        `the database is at schema version ${current}, newer than this build understands (${MIGRATIONS.length}); run a newer build`,
      );
    }
    for (let v = current; v < MIGRATIONS.length; v++) {
      await this.conn.run('BEGIN TRANSACTION');
      try {
        for (const stmt of MIGRATIONS[v] ?? []) await this.conn.run(stmt);
        await this.conn.run(
          `INSERT OR REPLACE INTO meta VALUES ('schema_version', ${sqlString(String(v + 1))})`,
        );
        await this.conn.run('COMMIT');
      } catch (e) {
        await this.conn.run('ROLLBACK');
        throw e;
      }
    }
  }

  private async loadSeries(): Promise<void> {
    const r = await this.conn.runAndReadAll('SELECT id, metric, labels FROM series ORDER BY id');
    for (const [id, metric, labels] of r.getRows()) {
      this.remember({ id: Number(id), metric: String(metric), labels: JSON.parse(String(labels)) as Labels });
      this.nextSeriesId = Math.max(this.nextSeriesId, Number(id) + 1);
    }
  }

  /**
   * Every series' time bounds, then the recent tail of every series (two scans, once), read chunk by
   * chunk: 1.5M rows read at once made three 1.5M-element arrays of garbage at start-up.
   */
  private async loadRecent(): Promise<void> {
    const b = await this.conn.runAndReadAll(
      'SELECT series_id, CAST(min(t) AS DOUBLE), CAST(max(t) AS DOUBLE) FROM samples GROUP BY series_id',
    );
    const [ids = [], mins = [], maxs = []] = b.getColumns() as number[][];
    let newest = Number.NEGATIVE_INFINITY;
    for (const t of maxs) newest = Math.max(newest, t);
    const floor = this.recent.floorFor(newest);
    this.recent.loadBounds(
      ids.map((id, i) => [id, mins[i] as number, maxs[i] as number] as const),
      floor,
    );
    if (!Number.isFinite(floor)) return;
    const tail = await this.conn.stream(
      `SELECT series_id, CAST(t AS DOUBLE), v FROM samples WHERE t > ${int(floor)} ORDER BY series_id, t`,
    );
    for (let chunk = await tail.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await tail.fetchChunk()) {
      this.recent.loadTail(
        chunk.getColumnValues(0) as number[],
        chunk.getColumnValues(1) as number[],
        chunk.getColumnValues(2) as number[],
      );
    }
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

  private remember(row: SeriesRow): void {
    let m = this.byMetric.get(row.metric);
    if (!m) {
      m = new Map();
      this.byMetric.set(row.metric, m);
    }
    m.set(labelsKey(row.labels), row);
  }

  private matching(metric: string, matchers: readonly Matcher[] = []): SeriesRow[] {
    if (this.closed) throw new Error('store is closed');
    const m = this.byMetric.get(metric);
    if (!m) return [];
    const out: SeriesRow[] = [];
    for (const row of m.values()) if (matchesAll(row.labels, matchers)) out.push(row);
    return out;
  }

  append(samples: readonly Sample[]): Promise<number> {
    if (samples.length === 0) return Promise.resolve(0);
    const valid = new Set<string>();
    for (const s of samples) {
      if (!valid.has(s.metric)) {
        if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(s.metric))
          throw new TypeError(`bad metric name "${s.metric}"`);
        valid.add(s.metric);
      }
      if (!Number.isFinite(s.t) || !Number.isFinite(s.v)) {
        throw new TypeError(`sample of ${s.metric} has a non-finite timestamp or value`);
      }
    }
    this.appending++;
    const run = this.exclusive(async () => {
      const newSeries: SeriesRow[] = [];
      const rows = new Map<string, [number, number, number]>();
      const metrics = new Set<string>();
      let minT = Number.POSITIVE_INFINITY;
      let maxT = Number.NEGATIVE_INFINITY;
      let done = 0;
      for (const s of samples) {
        // A big append (a cycle of 1,000 benchmarks is 20,000 samples) held the event loop for
        // 25–50 ms in one piece; in slices, requests are served in between.
        if (++done % APPEND_SLICE === 0) await nextTurn();
        const key = labelsKey(s.labels);
        let row = this.byMetric.get(s.metric)?.get(key);
        if (!row) {
          row = { id: this.nextSeriesId++, metric: s.metric, labels: JSON.parse(key) as Labels };
          this.remember(row);
          newSeries.push(row);
        }
        const t = Math.trunc(s.t);
        rows.set(`${row.id}:${t}`, [row.id, t, s.v]);
        metrics.add(s.metric);
        minT = Math.min(minT, t);
        maxT = Math.max(maxT, t);
      }
      let inserted = 0;
      await this.conn.run('BEGIN TRANSACTION');
      try {
        if (newSeries.length) {
          const app = await this.conn.createAppender('series');
          for (const r of newSeries) {
            app.appendInteger(r.id);
            app.appendVarchar(r.metric);
            app.appendVarchar(labelsKey(r.labels));
            app.endRow();
          }
          app.closeSync();
        }
        const app = await this.conn.createAppender('staging');
        let staged = 0;
        for (const [id, t, v] of rows.values()) {
          if (++staged % APPEND_SLICE === 0) await nextTurn();
          app.appendInteger(id);
          app.appendBigInt(BigInt(t));
          app.appendDouble(v);
          app.endRow();
        }
        app.closeSync();
        const res = await this.conn.run('INSERT OR IGNORE INTO samples SELECT series_id, t, v FROM staging');
        inserted = res.rowsChanged;
        await this.conn.run('DELETE FROM staging');
        await this.conn.run('COMMIT');
      } catch (e) {
        await this.conn.run('ROLLBACK').catch(() => undefined);
        // The in-memory series mirror must not keep rows the database rolled back.
        for (const r of newSeries) this.byMetric.get(r.metric)?.delete(labelsKey(r.labels));
        throw e;
      }
      // Before the listeners: views they invalidate are recomputed from the new rows.
      this.recent.add(rows.values());
      if (inserted > 0) for (const l of this.listeners) l(metrics, minT, maxT);
      return inserted;
    });
    return run.finally(() => {
      this.appending--;
    });
  }

  select(q: SelectQuery): Promise<Sample[]> {
    if (this.closed) return Promise.reject(new Error('store is closed'));
    const series = this.matching(q.metric, q.matchers);
    if (series.length === 0) return Promise.resolve([]);
    if (q.after >= this.recent.floor) {
      return this.fromMemory(() => {
        const out: Sample[] = [];
        for (const s of series.sort((a, b) => a.id - b.id)) {
          const r = this.recent.range(s.id, q.after, q.until);
          if (!r) throw new Error('recent samples no longer cover the range');
          for (let i = 0; i < r.t.length; i++) {
            out.push({ metric: s.metric, labels: s.labels, t: r.t[i] as number, v: r.v[i] as number });
          }
        }
        return out;
      }).catch(() => this.selectSql(q, series));
    }
    return this.selectSql(q, series);
  }

  private selectSql(q: SelectQuery, series: readonly SeriesRow[]): Promise<Sample[]> {
    const byId = new Map(series.map((s) => [s.id, s]));
    return this.exclusive(async () => {
      const r = await this.conn.runAndReadAll(
        `SELECT series_id, CAST(t AS DOUBLE) AS t, v FROM samples
         WHERE series_id IN (${series.map((s) => int(s.id)).join(',')})
           AND t > ${int(q.after)} AND t <= ${int(q.until)}
         ORDER BY series_id, t`,
      );
      const [ids = [], ts = [], vs = []] = r.getColumns() as number[][];
      const out: Sample[] = new Array(ids.length);
      for (let i = 0; i < ids.length; i++) {
        const s = byId.get(ids[i] as number) as SeriesRow;
        out[i] = { metric: s.metric, labels: s.labels, t: ts[i] as number, v: vs[i] as number };
      }
      return out;
    });
  }

  latest(q: LatestQuery): Promise<Sample[]> {
    if (this.closed) return Promise.reject(new Error('store is closed'));
    const series = this.matching(q.metric, q.matchers).sort((a, b) => a.id - b.id);
    if (series.length === 0) return Promise.resolve([]);
    return this.fromMemory(() => series.map((s) => this.recent.latest(s.id, q.at, q.notBefore))).then(
      async (held) => {
        // Series whose latest sample may be older than the recent tail: the table has it.
        const unknown = series.filter((_, i) => held[i] === null);
        const older = unknown.length > 0 ? await this.latestSql(q, unknown) : new Map<number, Sample>();
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

  /** The latest sample per series, read from the table; keyed by series id. */
  private latestSql(q: LatestQuery, series: readonly SeriesRow[]): Promise<Map<number, Sample>> {
    const byId = new Map(series.map((s) => [s.id, s]));
    const lower = q.notBefore === undefined ? '' : `AND t > ${int(q.notBefore)}`;
    return this.exclusive(async () => {
      const r = await this.conn.runAndReadAll(
        `SELECT series_id, CAST(max(t) AS DOUBLE) AS t, arg_max(v, t) AS v FROM samples
         WHERE series_id IN (${series.map((s) => int(s.id)).join(',')}) AND t <= ${int(q.at)} ${lower}
         GROUP BY series_id`,
      );
      const [ids = [], ts = [], vs = []] = r.getColumns() as number[][];
      const out = new Map<number, Sample>();
      ids.forEach((id, i) => {
        const s = byId.get(id) as SeriesRow;
        out.set(id, { metric: s.metric, labels: s.labels, t: ts[i] as number, v: vs[i] as number });
      });
      return out;
    });
  }

  series(metric?: string): Promise<SeriesInfo[]> {
    if (this.closed) return Promise.reject(new Error('store is closed'));
    const out: SeriesInfo[] = [];
    const metrics = metric === undefined ? [...this.byMetric.keys()] : [metric];
    for (const m of metrics)
      for (const row of this.byMetric.get(m)?.values() ?? [])
        out.push({ metric: row.metric, labels: row.labels });
    return Promise.resolve(out);
  }

  timeBounds(metrics?: readonly string[]): Promise<{ min: number; max: number } | null> {
    if (this.closed) return Promise.reject(new Error('store is closed'));
    const ids: number[] = [];
    for (const m of metrics ?? [...this.byMetric.keys()]) {
      for (const row of this.byMetric.get(m)?.values() ?? []) ids.push(row.id);
    }
    if (ids.length === 0) return Promise.resolve(null);
    return this.fromMemory(() => this.recent.timeBounds(ids));
  }

  onAppend(listener: AppendListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  getSnapshot(key: string): Promise<{ body: Uint8Array; etag: string; createdAt: number } | null> {
    return this.exclusive(async () => {
      const r = await this.conn.runAndReadAll(
        'SELECT body, etag, CAST(created_at AS DOUBLE) FROM snapshots WHERE key = $1',
        [key],
      );
      const row = r.getRows()[0];
      if (!row) return null;
      return {
        body: new TextEncoder().encode(String(row[0])),
        etag: String(row[1]),
        createdAt: Number(row[2]),
      };
    });
  }

  async putSnapshot(
    key: string,
    body: Uint8Array,
    etag: string,
  ): Promise<{ body: Uint8Array; etag: string; createdAt: number }> {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(body);
    await this.exclusive(() =>
      this.conn.run('INSERT OR IGNORE INTO snapshots VALUES ($1, $2, $3, $4)', [
        key,
        text,
        etag,
        BigInt(Date.now()),
      ]),
    );
    const stored = await this.getSnapshot(key);
    if (!stored) throw new Error(`snapshot ${key} was not stored`);
    return stored;
  }

  /** One transaction: the batch lands whole or not at all; a key already stored keeps its bytes. */
  putSnapshots(entries: readonly SnapshotEntry[]): Promise<void> {
    if (entries.length === 0) return Promise.resolve();
    const decoder = new TextDecoder('utf-8', { fatal: true });
    const texts = entries.map((e) => decoder.decode(e.body));
    return this.exclusive(async () => {
      const now = BigInt(Date.now());
      await this.conn.run('BEGIN TRANSACTION');
      try {
        const app = await this.conn.createAppender('snapshot_staging');
        entries.forEach((e, i) => {
          app.appendVarchar(e.key);
          app.appendVarchar(texts[i] as string);
          app.appendVarchar(e.etag);
          app.appendBigInt(now);
          app.endRow();
        });
        app.closeSync();
        // Within the batch the first of a repeated key wins, as one putSnapshot after another would.
        await this.conn.run(
          `INSERT OR IGNORE INTO snapshots
           SELECT key, first(body ORDER BY rowid), first(etag ORDER BY rowid), first(created_at ORDER BY rowid)
           FROM snapshot_staging GROUP BY key`,
        );
        await this.conn.run('DELETE FROM snapshot_staging');
        await this.conn.run('COMMIT');
      } catch (e) {
        await this.conn.run('ROLLBACK').catch(() => undefined);
        throw e;
      }
    });
  }

  getState(key: string): Promise<string | null> {
    return this.exclusive(async () => {
      const r = await this.conn.runAndReadAll('SELECT value FROM state WHERE key = $1', [key]);
      const row = r.getRows()[0];
      return row ? String(row[0]) : null;
    });
  }

  setState(key: string, value: string): Promise<void> {
    return this.exclusive(async () => {
      await this.conn.run('INSERT OR REPLACE INTO state VALUES ($1, $2, $3)', [
        key,
        value,
        BigInt(Date.now()),
      ]);
    });
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
