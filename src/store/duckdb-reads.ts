import type { DuckDBConnection } from '@duckdb/node-api';
import type { Sample } from '../core/samples.ts';
import type { SeriesRow } from './duckdb-series.ts';
import { idList, int } from './duckdb-sql.ts';
import type { RecentSamples } from './recent-samples.ts';
import type { LatestQuery, SelectQuery } from './sample-store.ts';

/**
 * Reads of the samples table, one statement each; they run inside the store's statement queue.
 * Reads the in-memory tail can answer never get here (see RecentSamples).
 */

/** Samples in (after, until] of the given series, ordered by series id, then time. */
export async function selectSql(
  conn: DuckDBConnection,
  q: SelectQuery,
  series: readonly SeriesRow[],
): Promise<Sample[]> {
  const byId = new Map(series.map((s) => [s.id, s]));
  const r = await conn.run(
    `SELECT series_id, CAST(t AS DOUBLE) AS t, v FROM samples
     WHERE series_id IN (${idList(series)})
       AND t > ${int(q.after)} AND t <= ${int(q.until)}
     ORDER BY series_id, t`,
  );
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
