import type { DuckDBConnection } from '@duckdb/node-api';
import { nextTurn } from '../concurrency/next-turn.ts';
import { labelsKey, type Sample } from '../core/samples.ts';
import type { SeriesIndex, SeriesRow } from './duckdb-series.ts';

/** Samples an append prepares or stages before it lets the event loop serve others. */
const APPEND_SLICE = 2000;

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

/** Throws (synchronously, before anything is queued) on a bad metric name or a non-finite number. */
export function validateSamples(samples: readonly Sample[]): void {
  const valid = new Set<string>();
  for (const s of samples) {
    if (!valid.has(s.metric)) {
      if (!METRIC_NAME.test(s.metric)) throw new TypeError(`bad metric name "${s.metric}"`);
      valid.add(s.metric);
    }
    if (!Number.isFinite(s.t) || !Number.isFinite(s.v)) {
      throw new TypeError(`sample of ${s.metric} has a non-finite timestamp or value`);
    }
  }
}

export interface Appended {
  /** Rows newly stored (INSERT OR IGNORE: a (series, t) already stored keeps its value). */
  readonly inserted: number;
  /** The rows offered, one per (series id, t), the last of a batch winning: [id, t, v]. */
  readonly rows: Iterable<readonly [number, number, number]>;
  readonly metrics: ReadonlySet<string>;
  readonly minT: number;
  readonly maxT: number;
}

/**
 * One append as one transaction: new series, then the samples through the staging table. Must run
 * inside the store's statement queue. On failure the series it created are forgotten again.
 */
export async function appendTransaction(
  conn: DuckDBConnection,
  index: SeriesIndex,
  samples: readonly Sample[],
): Promise<Appended> {
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
    let row = index.get(s.metric, key);
    if (!row) {
      row = index.create(s.metric, key);
      newSeries.push(row);
    }
    const t = Math.trunc(s.t);
    rows.set(`${row.id}:${t}`, [row.id, t, s.v]);
    metrics.add(s.metric);
    minT = Math.min(minT, t);
    maxT = Math.max(maxT, t);
  }
  let inserted = 0;
  await conn.run('BEGIN TRANSACTION');
  try {
    if (newSeries.length) {
      const app = await conn.createAppender('series');
      for (const r of newSeries) {
        app.appendInteger(r.id);
        app.appendVarchar(r.metric);
        app.appendVarchar(labelsKey(r.labels));
        app.endRow();
      }
      app.closeSync();
    }
    const app = await conn.createAppender('staging');
    let staged = 0;
    for (const [id, t, v] of rows.values()) {
      if (++staged % APPEND_SLICE === 0) await nextTurn();
      app.appendInteger(id);
      app.appendBigInt(BigInt(t));
      app.appendDouble(v);
      app.endRow();
    }
    app.closeSync();
    const res = await conn.run('INSERT OR IGNORE INTO samples SELECT series_id, t, v FROM staging');
    inserted = res.rowsChanged;
    await conn.run('DELETE FROM staging');
    await conn.run('COMMIT');
  } catch (e) {
    await conn.run('ROLLBACK').catch(() => undefined);
    // The in-memory series mirror must not keep rows the database rolled back.
    for (const r of newSeries) index.forget(r);
    throw e;
  }
  return { inserted, rows: rows.values(), metrics, minT, maxT };
}
