import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { Sample } from '../core/samples.ts';

export interface DatasetFiles {
  readonly rows: number;
  readonly parquet: Uint8Array<ArrayBuffer>;
  readonly csv: Uint8Array<ArrayBuffer>;
  /** Hex SHA-256 of each file. */
  readonly sha256: { readonly parquet: string; readonly csv: string };
}

/** Columns the dataset always has; a label with one of these names gets a `label_` prefix. */
const FIXED = new Set(['metric', 'timestamp', 'value']);

/** A label name as a column: Prometheus label names are [a-zA-Z_][a-zA-Z0-9_]*, safe to quote. */
export function labelColumn(name: string): string {
  return FIXED.has(name) ? `label_${name}` : name;
}

function quoteIdent(s: string): string {
  return `"${s.replaceAll('"', '""')}"`;
}

export function sha256Hex(b: Uint8Array): string {
  return createHash('sha256').update(b).digest('hex');
}

/**
 * One day's samples as Parquet and CSV, written by DuckDB's own writers (`COPY … TO`) from an
 * in-memory database, so the files come out the same whichever store the samples were read from.
 * Columns: metric, every label name of the day as its own column (sorted; null where a series
 * lacks it), timestamp (UTC, ms precision), value; one row per sample, sorted by metric, labels,
 * time. Bytes are deterministic: one thread, one row group, fixed compression, explicit order (two
 * writes of the same samples give identical files; tested).
 */
export async function writeDatasetFiles(samples: readonly Sample[]): Promise<DatasetFiles> {
  const labelNames = [...new Set(samples.flatMap((s) => Object.keys(s.labels)))].sort();
  const cols = labelNames.map((n) => quoteIdent(labelColumn(n)));
  const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  const dir = await mkdtemp(join(tmpdir(), 'citebench-dataset-'));
  try {
    const conn = await instance.connect();
    try {
      await conn.run(
        `CREATE TABLE d (metric VARCHAR, ${cols.map((c) => `${c} VARCHAR, `).join('')}t BIGINT, value DOUBLE)`,
      );
      const app = await conn.createAppender('d');
      for (const s of samples) {
        app.appendVarchar(s.metric);
        for (const n of labelNames) {
          const v = s.labels[n];
          if (v === undefined) app.appendNull();
          else app.appendVarchar(v);
        }
        app.appendBigInt(BigInt(Math.trunc(s.t)));
        app.appendDouble(s.v);
        app.endRow();
      }
      app.closeSync();
      const order = ['metric', ...cols.map((c) => `${c} NULLS FIRST`), 't'].join(', ');
      const query = `SELECT metric, ${cols.map((c) => `${c}, `).join('')}make_timestamp(t * 1000) AS "timestamp", value FROM d ORDER BY ${order}`;
      const parquetPath = join(dir, 'day.parquet');
      const csvPath = join(dir, 'day.csv');
      // A row group per 1M rows: a day holds far fewer, so the layout never depends on threads.
      await conn.run(
        `COPY (${query}) TO '${parquetPath}' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 1000000)`,
      );
      await conn.run(`COPY (${query}) TO '${csvPath}' (FORMAT csv, HEADER true)`);
      const parquet = new Uint8Array(await readFile(parquetPath));
      const csv = new Uint8Array(await readFile(csvPath));
      return {
        rows: samples.length,
        parquet,
        csv,
        sha256: { parquet: sha256Hex(parquet), csv: sha256Hex(csv) },
      };
    } finally {
      conn.closeSync();
    }
  } finally {
    instance.closeSync();
    await rm(dir, { recursive: true, force: true });
  }
}
