import { etagOfSha256 } from '../core/hash.ts';
import type { Store } from '../store/sample-store.ts';
import type { DatasetExtension, DatasetWriter } from './dataset-files.ts';

export interface DatasetFile {
  readonly body: Uint8Array<ArrayBuffer>;
  readonly etag: string;
  /** True for a closed day: the bytes never change. */
  readonly frozen: boolean;
}

/** A day's stored file (Parquet as base64: snapshot bodies are text). */
export const fileKey = (day: string, ext: DatasetExtension) => `dataset:${day}.${ext}`;

const decoder = new TextDecoder();

/** Bytes of frozen files kept in memory; the newest is kept whatever its size. */
export const FROZEN_FILES_KEPT_BYTES = 32 * 1024 * 1024;

/**
 * A closed day's files as served: the Parquet decoded from its stored base64, the CSV derived from
 * that Parquet by the writer (a worker thread in the service) and checked against the hash the day
 * froze. A frozen day's bytes never change, so the files served are kept, least recently asked
 * for dropped first, up to `keptBytes`: with one kept per extension, requests alternating between
 * days (bench:burst asks for each closed day in turn) read the store, decoded the Parquet on the
 * event loop and derived the CSV again every time. A day of 1-minute RPC samples is a ~90 MB CSV,
 * hence the bound.
 */
export class FrozenDayFiles {
  private readonly kept = new Map<string, DatasetFile>();
  private keptSize = 0;

  constructor(
    private readonly store: Pick<Store, 'getSnapshot'>,
    private readonly files: DatasetWriter,
    private readonly keptBytes = FROZEN_FILES_KEPT_BYTES,
  ) {}

  /** The file, or null when the day's files are not stored (yet); `csvSha256` is the day's. */
  async get(day: string, ext: DatasetExtension, csvSha256: string | undefined): Promise<DatasetFile | null> {
    const key = `${day}.${ext}`;
    const hit = this.kept.get(key);
    if (hit) {
      // Most recently asked for: moved to the end of the map's order.
      this.kept.delete(key);
      this.kept.set(key, hit);
      return hit;
    }
    const file = await this.read(day, ext, csvSha256);
    if (file && !this.kept.has(key)) this.keep(key, file);
    return file;
  }

  private keep(key: string, file: DatasetFile): void {
    this.kept.set(key, file);
    this.keptSize += file.body.byteLength;
    for (const [k, f] of this.kept) {
      if (this.keptSize <= this.keptBytes || k === key) break;
      this.kept.delete(k);
      this.keptSize -= f.body.byteLength;
    }
  }

  private async read(
    day: string,
    ext: DatasetExtension,
    csvSha256: string | undefined,
  ): Promise<DatasetFile | null> {
    const stored = await this.store.getSnapshot(fileKey(day, ext));
    // Days frozen before the CSV was derived keep their stored CSV.
    if (stored && ext === 'csv')
      return { body: stored.body as Uint8Array<ArrayBuffer>, etag: stored.etag, frozen: true };
    const parquet = ext === 'csv' ? await this.store.getSnapshot(fileKey(day, 'parquet')) : stored;
    if (!parquet) return null;
    const bytes = new Uint8Array(Buffer.from(decoder.decode(parquet.body), 'base64'));
    if (ext === 'parquet') return { body: bytes, etag: parquet.etag, frozen: true };
    const csv = await this.files.csvFromParquet(bytes);
    // Derived bytes are served only when they are the bytes the day froze (its recorded hash).
    if (csvSha256 !== undefined && csv.sha256 !== csvSha256) {
      throw new Error(`${day}: the CSV derived from the frozen Parquet does not match its recorded sha256`);
    }
    return { body: csv.body, etag: etagOfSha256(csv.sha256), frozen: true };
  }
}
