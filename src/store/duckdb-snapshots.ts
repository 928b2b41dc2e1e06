import type { DuckDBConnection } from '@duckdb/node-api';
import type { SnapshotEntry } from './sample-store.ts';

/**
 * Frozen day snapshots and the small state table, one statement (or one transaction) each; they
 * run inside the store's statement queue.
 */

export interface StoredSnapshot {
  body: Uint8Array;
  etag: string;
  createdAt: number;
}

export async function readSnapshot(conn: DuckDBConnection, key: string): Promise<StoredSnapshot | null> {
  const r = await conn.runAndReadAll(
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
}

/** Snapshots are stored as text: a body that is not UTF-8 throws before anything is queued. */
export function snapshotText(body: Uint8Array): string {
  return new TextDecoder('utf-8', { fatal: true }).decode(body);
}

/** Stores once: a key already stored keeps its bytes. */
export async function insertSnapshot(
  conn: DuckDBConnection,
  key: string,
  text: string,
  etag: string,
): Promise<void> {
  await conn.run('INSERT OR IGNORE INTO snapshots VALUES ($1, $2, $3, $4)', [
    key,
    text,
    etag,
    BigInt(Date.now()),
  ]);
}

/** One transaction: the batch lands whole or not at all; a key already stored keeps its bytes. */
export async function insertSnapshots(
  conn: DuckDBConnection,
  entries: readonly SnapshotEntry[],
  texts: readonly string[],
): Promise<void> {
  const now = BigInt(Date.now());
  await conn.run('BEGIN TRANSACTION');
  try {
    const app = await conn.createAppender('snapshot_staging');
    entries.forEach((e, i) => {
      app.appendVarchar(e.key);
      app.appendVarchar(texts[i] as string);
      app.appendVarchar(e.etag);
      app.appendBigInt(now);
      app.endRow();
    });
    app.closeSync();
    // Within the batch the first of a repeated key wins, as one putSnapshot after another would.
    await conn.run(
      `INSERT OR IGNORE INTO snapshots
       SELECT key, first(body ORDER BY rowid), first(etag ORDER BY rowid), first(created_at ORDER BY rowid)
       FROM snapshot_staging GROUP BY key`,
    );
    await conn.run('DELETE FROM snapshot_staging');
    await conn.run('COMMIT');
  } catch (e) {
    await conn.run('ROLLBACK').catch(() => undefined);
    throw e;
  }
}

export async function readState(conn: DuckDBConnection, key: string): Promise<string | null> {
  const r = await conn.runAndReadAll('SELECT value FROM state WHERE key = $1', [key]);
  const row = r.getRows()[0];
  return row ? String(row[0]) : null;
}

export async function writeState(conn: DuckDBConnection, key: string, value: string): Promise<void> {
  await conn.run('INSERT OR REPLACE INTO state VALUES ($1, $2, $3)', [key, value, BigInt(Date.now())]);
}
