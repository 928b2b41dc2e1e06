import type { DuckDBConnection } from '@duckdb/node-api';
import type { Labels } from '../core/samples.ts';
import type { SeriesRow } from './duckdb-series.ts';
import { int, sqlString } from './duckdb-sql.ts';
import { MIGRATIONS } from './migrations.ts';
import { StoreOpenError } from './open-errors.ts';
import type { RecentSamples } from './recent-samples.ts';

/** Runs the migrations the database has not seen yet, each in its own transaction. */
export async function migrate(conn: DuckDBConnection): Promise<void> {
  await conn.run('CREATE TABLE IF NOT EXISTS meta (key VARCHAR PRIMARY KEY, value VARCHAR NOT NULL)');
  const r = await conn.runAndReadAll("SELECT value FROM meta WHERE key = 'schema_version'");
  const current = r.currentRowCount ? Number(r.getRows()[0]?.[0]) : 0;
  if (current > MIGRATIONS.length) {
    // Checked before any migration runs, so an older build never touches a newer database.
    throw new StoreOpenError(
      'newer_schema',
      `the database is at schema version ${current}, newer than this build understands (${MIGRATIONS.length}); run a newer build`,
    );
  }
  for (let v = current; v < MIGRATIONS.length; v++) {
    await conn.run('BEGIN TRANSACTION');
    try {
      for (const stmt of MIGRATIONS[v] ?? []) await conn.run(stmt);
      await conn.run(`INSERT OR REPLACE INTO meta VALUES ('schema_version', ${sqlString(String(v + 1))})`);
      await conn.run('COMMIT');
    } catch (e) {
      await conn.run('ROLLBACK');
      throw e;
    }
  }
}

/** The staging tables appends and snapshot batches go through, emptied of anything a crash left. */
export async function prepareStaging(conn: DuckDBConnection): Promise<void> {
  // Appends land here first so INSERT OR IGNORE gives idempotency on (series, t).
  await conn.run('CREATE TABLE IF NOT EXISTS staging (series_id INTEGER, t BIGINT, v DOUBLE)');
  await conn.run('DELETE FROM staging');
  await conn.run(
    'CREATE TEMP TABLE IF NOT EXISTS snapshot_staging (key VARCHAR, body VARCHAR, etag VARCHAR, created_at BIGINT)',
  );
}

export async function readSeries(conn: DuckDBConnection): Promise<SeriesRow[]> {
  const r = await conn.runAndReadAll('SELECT id, metric, labels FROM series ORDER BY id');
  return r.getRows().map(([id, metric, labels]) => ({
    id: Number(id),
    metric: String(metric),
    labels: JSON.parse(String(labels)) as Labels,
  }));
}

/**
 * Every series' time bounds, then the recent tail of every series (two scans, once), read chunk by
 * chunk: 1.5M rows read at once made three 1.5M-element arrays of garbage at start-up.
 */
export async function loadRecent(conn: DuckDBConnection, recent: RecentSamples): Promise<void> {
  const b = await conn.runAndReadAll(
    'SELECT series_id, CAST(min(t) AS DOUBLE), CAST(max(t) AS DOUBLE) FROM samples GROUP BY series_id',
  );
  const [ids = [], mins = [], maxs = []] = b.getColumns() as number[][];
  let newest = Number.NEGATIVE_INFINITY;
  for (const t of maxs) newest = Math.max(newest, t);
  const floor = recent.floorFor(newest);
  recent.loadBounds(
    ids.map((id, i) => [id, mins[i] as number, maxs[i] as number] as const),
    floor,
  );
  if (!Number.isFinite(floor)) return;
  const tail = await conn.stream(
    `SELECT series_id, CAST(t AS DOUBLE), v FROM samples WHERE t > ${int(floor)} ORDER BY series_id, t`,
  );
  for (let chunk = await tail.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await tail.fetchChunk()) {
    recent.loadTail(
      chunk.getColumnValues(0) as number[],
      chunk.getColumnValues(1) as number[],
      chunk.getColumnValues(2) as number[],
    );
  }
}
