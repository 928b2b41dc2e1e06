import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DuckDBAppender, DuckDBInstance } from '@duckdb/node-api';
import type { Sample } from '../core/samples.ts';

export const DATASET_EXTENSIONS = ['parquet', 'csv'] as const;
export type DatasetExtension = (typeof DATASET_EXTENSIONS)[number];

export const DATASET_CONTENT_TYPES: Readonly<Record<DatasetExtension, string>> = {
  parquet: 'application/vnd.apache.parquet',
  csv: 'text/csv; charset=utf-8',
};

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
 * lacks it or has it empty: Prometheus treats an empty label as an absent one, and DuckDB and pandas
 * read the CSV's "" as null, so writing '' to Parquet made the two files of a day differ), timestamp (UTC, ms precision), value; one row per sample, sorted by metric, labels,
 * time. Bytes are deterministic: one thread, fixed row groups and compression, explicit order (two
 * writes of the same samples give identical files; tested).
 */
/** The dataset writer's own DuckDB: one thread, so the bytes are the same on every write. */
const DATASET_DUCKDB = { threads: '1' } as const;

export function writeDatasetFiles(
  samples: readonly Sample[],
  kvMetadata: Readonly<Record<string, string>> = {},
): Promise<DatasetFiles> {
  return writeDatasetFilesFrom([samples], kvMetadata);
}

/** A SQL string literal (quotes doubled): metadata values carry label values a harness chose. */
const sqlString = (s: string) => `'${s.replaceAll("'", "''")}'`;

/** DuckDB's `KV_METADATA {…}` option, keys sorted so the same metadata gives the same bytes. */
function kvOption(kv: Readonly<Record<string, string>>): string {
  const keys = Object.keys(kv).sort();
  if (keys.length === 0) return '';
  return `, KV_METADATA {${keys.map((k) => `${quoteIdent(k)}: ${sqlString(kv[k] as string)}`).join(', ')}}`;
}

/**
 * The same files as `writeDatasetFiles` of the batches' concatenation, taking one batch at a time:
 * each is appended to DuckDB before the next is asked for, so a caller that reads a batch per
 * metric never holds a day as JS objects (1.44M samples at 1,000 benchmarks, ~140 MB of live heap
 * for the whole build; bench/dataset-day-memory.ts). Label columns are added as their names first
 * appear, since a day's names are known only once every batch is read; the table's column order is
 * therefore arbitrary, which changes nothing in the files: the query names every column in sorted
 * order and sorts the rows explicitly (the bytes equal the former whole-day writer's, which
 * test/unit/dataset.test.ts keeps to compare).
 */
export async function writeDatasetFilesFrom(
  batches: AsyncIterable<readonly Sample[]> | Iterable<readonly Sample[]>,
  /** Key-value metadata of the Parquet file (the day's provenance and licences); the CSV has none. */
  kvMetadata: Readonly<Record<string, string>> = {},
): Promise<DatasetFiles> {
  const instance = await DuckDBInstance.create(':memory:', DATASET_DUCKDB);
  const dir = await mkdtemp(join(tmpdir(), 'citebench-dataset-'));
  try {
    const conn = await instance.connect();
    try {
      await conn.run('CREATE TABLE d (metric VARCHAR, t BIGINT, value DOUBLE)');
      /** Label names in the table's column order (after metric, t, value). */
      const labelNames: string[] = [];
      const known = new Set<string>();
      let app: DuckDBAppender | undefined;
      let rows = 0;
      for await (const batch of batches) {
        const added: string[] = [];
        let seen: Sample['labels'] | undefined;
        for (const s of batch) {
          // The stores give a series' samples one shared labels object: its names are checked once.
          if (s.labels === seen) continue;
          seen = s.labels;
          for (const [n, v] of Object.entries(s.labels)) {
            // A name only ever empty is absent everywhere: no column of nulls for it.
            if (v !== '' && !known.has(n)) {
              known.add(n);
              added.push(n);
            }
          }
        }
        if (added.length > 0 || !app) {
          // An appender is bound to the table's columns when created: flush it before altering.
          app?.closeSync();
          for (const n of added) {
            await conn.run(`ALTER TABLE d ADD COLUMN ${quoteIdent(labelColumn(n))} VARCHAR`);
            labelNames.push(n);
          }
          app = await conn.createAppender('d');
        }
        for (const s of batch) {
          app.appendVarchar(s.metric);
          app.appendBigInt(BigInt(Math.trunc(s.t)));
          app.appendDouble(s.v);
          for (const n of labelNames) {
            const v = s.labels[n];
            if (v === undefined || v === '') app.appendNull();
            else app.appendVarchar(v);
          }
          app.endRow();
        }
        rows += batch.length;
      }
      app?.closeSync();
      const cols = [...labelNames].sort().map((n) => quoteIdent(labelColumn(n)));
      const order = ['metric', ...cols.map((c) => `${c} NULLS FIRST`), 't'].join(', ');
      const query = `SELECT metric, ${cols.map((c) => `${c}, `).join('')}make_timestamp(t * 1000) AS "timestamp", value FROM d ORDER BY ${order}`;
      const parquetPath = join(dir, 'day.parquet');
      const csvPath = join(dir, 'day.csv');
      // A row group per ~1M rows (1,000 benchmarks make two a day); with one thread the split is
      // the same on every write. Changing it would change the bytes of days frozen from now on.
      await conn.run(
        `COPY (${query}) TO '${parquetPath}' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 1000000${kvOption(kvMetadata)})`,
      );
      // No comment lines: they break CSV readers, so the header stays line 1 (provenance lives in the
      // Parquet metadata and the day's manifest).
      await conn.run(`COPY (${query}) TO '${csvPath}' (FORMAT csv, HEADER true)`);
      const parquet = new Uint8Array(await readFile(parquetPath));
      const csv = new Uint8Array(await readFile(csvPath));
      return {
        rows,
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

/** Writes a day's files and a frozen day's CSV: here, or on a worker thread (src/workers/). */
export interface DatasetWriter {
  write(
    batches: AsyncIterable<readonly Sample[]>,
    kvMetadata: Readonly<Record<string, string>>,
  ): Promise<DatasetFiles>;
  csvFromParquet(parquet: Uint8Array): Promise<HashedFile>;
}

/** A file's bytes with their hex SHA-256, computed where the bytes were made. */
export interface HashedFile {
  readonly body: Uint8Array<ArrayBuffer>;
  readonly sha256: string;
}

export const inlineDatasetWriter: DatasetWriter = {
  write: (batches, kv) => writeDatasetFilesFrom(batches, kv),
  csvFromParquet: (parquet) => csvFromParquet(parquet),
};

/** The key-value metadata of a Parquet file, decoded as UTF-8 (tests and readers of a day's file). */
export async function parquetKvMetadata(parquet: Uint8Array): Promise<Record<string, string>> {
  const instance = await DuckDBInstance.create(':memory:', DATASET_DUCKDB);
  const dir = await mkdtemp(join(tmpdir(), 'citebench-dataset-'));
  try {
    const conn = await instance.connect();
    try {
      const path = join(dir, 'day.parquet');
      await writeFile(path, parquet);
      const r = await conn.runAndReadAll(
        `SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata('${path}') ORDER BY k`,
      );
      const out: Record<string, string> = {};
      for (const row of r.getRowObjects()) out[String(row.k)] = String(row.v);
      return out;
    } finally {
      conn.closeSync();
    }
  } finally {
    instance.closeSync();
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * A frozen day's CSV from its Parquet: the same rows, columns and order, so the same bytes as the
 * CSV written beside it (the caller checks them against the day's recorded sha256). A day of
 * 1-minute RPC samples is a ~90 MB CSV: stored in the samples database it needed a 128 MB block
 * of the store's 256 MB and failed the freeze, so only the Parquet (~2 MB) is stored.
 */
export async function csvFromParquet(parquet: Uint8Array): Promise<HashedFile> {
  const instance = await DuckDBInstance.create(':memory:', DATASET_DUCKDB);
  const dir = await mkdtemp(join(tmpdir(), 'citebench-dataset-'));
  try {
    const conn = await instance.connect();
    try {
      const parquetPath = join(dir, 'day.parquet');
      const csvPath = join(dir, 'day.csv');
      await writeFile(parquetPath, parquet);
      await conn.run(
        `COPY (SELECT * FROM read_parquet('${parquetPath}')) TO '${csvPath}' (FORMAT csv, HEADER true)`,
      );
      const body = new Uint8Array(await readFile(csvPath));
      return { body, sha256: sha256Hex(body) };
    } finally {
      conn.closeSync();
    }
  } finally {
    instance.closeSync();
    await rm(dir, { recursive: true, force: true });
  }
}
