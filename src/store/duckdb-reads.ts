import type { DuckDBConnection, DuckDBDataChunk } from '@duckdb/node-api';
import { type PackedSamples, SamplesPacker } from '../core/packed-samples.ts';
import type { Sample } from '../core/samples.ts';
import type { SeriesRow } from './duckdb-series.ts';
import { idList, int } from './duckdb-sql.ts';
import type { RecentSamples } from './recent-samples.ts';
import type { LatestQuery, SelectQuery } from './sample-store.ts';

/**
 * Reads of the samples table, one statement each; they run inside the store's statement queue.
 * Reads the in-memory tail can answer never get here (see RecentSamples).
 */

const selectStatement = (q: SelectQuery, series: readonly SeriesRow[]) =>
  `SELECT series_id, CAST(t AS DOUBLE) AS t, v FROM samples
   WHERE series_id IN (${idList(series)})
     AND t > ${int(q.after)} AND t <= ${int(q.until)}
   ORDER BY series_id, t`;

/** Samples in (after, until] of the given series, ordered by series id, then time. */
export async function selectSql(
  conn: DuckDBConnection,
  q: SelectQuery,
  series: readonly SeriesRow[],
): Promise<Sample[]> {
  const byId = new Map(series.map((s) => [s.id, s]));
  const r = await conn.run(selectStatement(q, series));
  // Converted chunk by chunk (2,048 rows each), awaiting the next between them: a week of samples
  // converted at once held the event loop ~30 ms on the 2-core VM, in front of cached reads.
  const out: Sample[] = [];
  for (;;) {
    const chunk = await r.fetchChunk();
    if (!chunk || chunk.rowCount === 0) break;
    const [ids = [], ts = [], vs = []] = chunk.getColumns() as number[][];
    for (let i = 0; i < ids.length; i++) {
      const s = byId.get(ids[i] as number) as SeriesRow;
      out.push({ metric: s.metric, labels: s.labels, t: ts[i] as number, v: vs[i] as number });
    }
  }
  return out;
}

/**
 * A chunk's column as numbers, read item by item from its vector: no array of JS values built by
 * the chunk's visitors (getColumns), and any numeric type (INTEGER ids, DOUBLE times and values).
 */
function numbers(chunk: DuckDBDataChunk, column: number): Float64Array {
  const vector = chunk.getColumnVector(column);
  const out = new Float64Array(vector.itemCount);
  for (let i = 0; i < out.length; i++) out[i] = Number(vector.getItem(i));
  return out;
}

/**
 * selectSql's samples packed as they are read: each chunk's columns copied into typed arrays, a
 * series' run at a time, with no Sample object per row and no array of DuckDB values per column. Converting a week of rows
 * into objects (DuckDB's values, then Samples) was most of a PromQL query's event-loop time once
 * its evaluation ran on a worker (bench:promql-loop's profile).
 */
export async function selectPackedSql(
  conn: DuckDBConnection,
  q: SelectQuery,
  series: readonly SeriesRow[],
): Promise<PackedSamples> {
  const byId = new Map(series.map((s) => [s.id, s]));
  const r = await conn.run(selectStatement(q, series));
  const packer = new SamplesPacker();
  for (;;) {
    const chunk = await r.fetchChunk();
    if (!chunk || chunk.rowCount === 0) break;
    const ids = numbers(chunk, 0);
    const ts = numbers(chunk, 1);
    const vs = numbers(chunk, 2);
    let from = 0;
    for (let i = 1; i <= ids.length; i++) {
      if (i < ids.length && ids[i] === ids[from]) continue;
      const s = byId.get(ids[from] as number) as SeriesRow;
      packer.addColumns(s.metric, s.labels, ts, vs, from, i);
      from = i;
    }
  }
  return packer.finish();
}

/** The latest sample per series, read from the table; keyed by series id. */
export async function latestSql(
  conn: DuckDBConnection,
  q: LatestQuery,
  series: readonly SeriesRow[],
): Promise<Map<number, Sample>> {
  const byId = new Map(series.map((s) => [s.id, s]));
  const lower = q.notBefore === undefined ? '' : `AND t > ${int(q.notBefore)}`;
  const r = await conn.runAndReadAll(
    `SELECT series_id, CAST(max(t) AS DOUBLE) AS t, arg_max(v, t) AS v FROM samples
     WHERE series_id IN (${idList(series)}) AND t <= ${int(q.at)} ${lower}
     GROUP BY series_id`,
  );
  const [ids = [], ts = [], vs = []] = r.getColumns() as number[][];
  const out = new Map<number, Sample>();
  ids.forEach((id, i) => {
    const s = byId.get(id) as SeriesRow;
    out.set(id, { metric: s.metric, labels: s.labels, t: ts[i] as number, v: vs[i] as number });
  });
  return out;
}

/**
 * The same answer as selectSql from the in-memory tail; throws when the tail no longer covers the
 * range (it was trimmed meanwhile), so the caller falls back to SQL.
 */
export function selectRecent(recent: RecentSamples, q: SelectQuery, series: SeriesRow[]): Sample[] {
  const out: Sample[] = [];
  for (const s of series.sort((a, b) => a.id - b.id)) {
    const r = recent.range(s.id, q.after, q.until);
    if (!r) throw new Error('recent samples no longer cover the range');
    for (let i = 0; i < r.t.length; i++) {
      out.push({ metric: s.metric, labels: s.labels, t: r.t[i] as number, v: r.v[i] as number });
    }
  }
  return out;
}

/** selectRecent's samples, packed from the tail's arrays. */
export function selectRecentPacked(
  recent: RecentSamples,
  q: SelectQuery,
  series: SeriesRow[],
): PackedSamples {
  const runs = series
    .sort((a, b) => a.id - b.id)
    .map((s) => {
      const r = recent.rangeIn(s.id, q.after, q.until);
      if (!r) throw new Error('recent samples no longer cover the range');
      return { s, r };
    });
  // Sized once for what the tail holds, not grown by doubling.
  const packer = new SamplesPacker(runs.reduce((n, { r }) => n + r.to - r.from, 0));
  for (const { s, r } of runs) packer.addColumns(s.metric, s.labels, r.t, r.v, r.from, r.to);
  return packer.finish();
}
