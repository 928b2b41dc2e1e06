/**
 * Issue 26 item 1, the event loop replays stored bytes: a closed day's dataset files, once served,
 * are kept (least recently asked for dropped first, within a byte bound), so requests alternating
 * between days do not read the store, decode the Parquet on the loop and derive the CSV each time.
 */
import { describe, expect, it } from 'vitest';
import { etagOf } from '../../src/core/hash.ts';
import { type DatasetWriter, sha256Hex } from '../../src/publication/dataset-files.ts';
import { FrozenDayFiles, fileKey } from '../../src/publication/frozen-day-files.ts';

const encoder = new TextEncoder();
const DAYS = ['2026-03-01', '2026-03-02', '2026-03-03'];
/** A day's "Parquet" (its stored base64) and the CSV derived from it: 1,000 bytes each. */
const parquetOf = (day: string) => encoder.encode(day.repeat(100));
const csvOf = (parquet: Uint8Array) => new Uint8Array(parquet.map((b) => b + 1));

function fixture(keptBytes?: number) {
  const reads: string[] = [];
  let derived = 0;
  const store = {
    getSnapshot: async (key: string) => {
      reads.push(key);
      const day = DAYS.find((d) => key === fileKey(d, 'parquet'));
      if (!day) return null;
      const body = encoder.encode(Buffer.from(parquetOf(day)).toString('base64'));
      return { body, etag: etagOf(parquetOf(day)), createdAt: 0 };
    },
  };
  const writer: DatasetWriter = {
    write: () => Promise.reject(new Error('not here')),
    csvFromParquet: async (parquet) => {
      derived++;
      const body = csvOf(parquet);
      return { body, sha256: sha256Hex(body) };
    },
  };
  const files = new FrozenDayFiles(store, writer, keptBytes);
  const csvSha = (day: string) => sha256Hex(csvOf(parquetOf(day)));
  return { files, reads, derived: () => derived, csvSha };
}

describe("a closed day's files, once served", () => {
  it('are replayed: days asked for in turn read the store and derive the CSV once each', async () => {
    const f = fixture();
    for (let round = 0; round < 3; round++) {
      for (const day of DAYS) {
        const csv = await f.files.get(day, 'csv', f.csvSha(day));
        expect(csv?.body).toEqual(csvOf(parquetOf(day)));
        expect(csv?.etag).toBe(etagOf(csvOf(parquetOf(day))));
        const pq = await f.files.get(day, 'parquet', f.csvSha(day));
        expect(pq?.body).toEqual(parquetOf(day));
      }
    }
    expect(f.derived()).toBe(DAYS.length);
    // Per CSV: its stored CSV (absent) and its Parquet; per Parquet: the Parquet.
    expect(f.reads).toHaveLength(DAYS.length * 3);
  });

  it('are kept within a byte bound, least recently asked for dropped first, the newest always', async () => {
    const f = fixture(2_500);
    for (const day of DAYS) await f.files.get(day, 'csv', f.csvSha(day));
    expect(f.derived()).toBe(3);
    // 1,000 bytes each: the first day was dropped, the other two are replayed.
    await f.files.get(DAYS[2] as string, 'csv', f.csvSha(DAYS[2] as string));
    await f.files.get(DAYS[1] as string, 'csv', f.csvSha(DAYS[1] as string));
    expect(f.derived()).toBe(3);
    await f.files.get(DAYS[0] as string, 'csv', f.csvSha(DAYS[0] as string));
    expect(f.derived()).toBe(4);
    // Bound below one file: the newest is still kept (a download's HEAD or retry replays it).
    const g = fixture(10);
    await g.files.get(DAYS[0] as string, 'csv', g.csvSha(DAYS[0] as string));
    await g.files.get(DAYS[0] as string, 'csv', g.csvSha(DAYS[0] as string));
    expect(g.derived()).toBe(1);
  });

  it('a derived CSV that is not the one the day froze is refused', async () => {
    const f = fixture();
    await expect(f.files.get(DAYS[0] as string, 'csv', 'not-the-hash')).rejects.toThrow(/recorded sha256/);
  });
});
