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

/**
 * A closed day's files as served: the Parquet decoded from its stored base64, the CSV derived from
 * that Parquet by the writer (a worker thread in the service) and checked against the hash the day
 * froze. Nothing here hashes or converts megabytes on the event loop but the Parquet's decoding, and
 * each extension keeps its last day: a download is often followed by its HEAD or a retry, not by
 * every day, and a frozen day's bytes never change.
 */
export class FrozenDayFiles {
  private readonly last = new Map<DatasetExtension, { readonly day: string; readonly file: DatasetFile }>();

  constructor(
    private readonly store: Pick<Store, 'getSnapshot'>,
    private readonly files: DatasetWriter,
  ) {}

  /** The file, or null when the day's files are not stored (yet); `csvSha256` is the day's. */
  async get(day: string, ext: DatasetExtension, csvSha256: string | undefined): Promise<DatasetFile | null> {
    const kept = this.last.get(ext);
    if (kept?.day === day) return kept.file;
    const file = await this.read(day, ext, csvSha256);
    if (file) this.last.set(ext, { day, file });
    return file;
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
