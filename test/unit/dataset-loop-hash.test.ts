/**
 * Issue 26 item 1, no request costs the event loop more than ~1 ms: a day's files are hashed where
 * they are made (a worker thread), and served with an ETag derived from that hash. Hashing a day's
 * CSV (megabytes) on the loop for each request of today's files, and twice for a closed day's CSV
 * (its check against the frozen hash, then its ETag), held the loop several ms. Here every hash
 * made on the event loop is counted, by wrapping node:crypto's createHash for the code under test.
 */
import type * as Crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { etagOf, etagOfSha256 } from '../../src/core/hash.ts';
import { sha256Hex } from '../../src/publication/dataset-files.ts';
import { NOW } from '../helpers/fixture.ts';
import { type Running, startServer } from '../helpers/server.ts';

const hashed = vi.hoisted(() => ({ bytes: 0 }));

vi.mock('node:crypto', async (importOriginal) => {
  const real = await importOriginal<typeof Crypto>();
  const createHash = ((alg: string) => {
    const h = real.createHash(alg);
    const update = h.update.bind(h);
    h.update = ((data: Crypto.BinaryLike, enc?: Crypto.Encoding) => {
      hashed.bytes += typeof data === 'string' ? data.length : data.byteLength;
      return enc === undefined ? update(data) : update(data as string, enc);
    }) as typeof h.update;
    return h;
  }) as typeof real.createHash;
  return { ...real, default: { ...real, createHash }, createHash };
});

const DAY = 86_400_000;
const today = new Date(NOW).toISOString().slice(0, 10);
const yesterday = new Date(NOW - DAY).toISOString().slice(0, 10);

/** The request's body and the bytes hashed on the event loop while it was answered. */
async function loopHashing(
  s: Running,
  path: string,
): Promise<{ body: Buffer; etag: string | null; hashed: number }> {
  const before = hashed.bytes;
  const res = await s.get(path);
  expect(res.status).toBe(200);
  const body = Buffer.from(await res.arrayBuffer());
  return { body, etag: res.headers.get('etag'), hashed: hashed.bytes - before };
}

describe('dataset files are not hashed on the event loop', () => {
  let s: Running;
  beforeAll(async () => {
    s = await startServer();
    await s.service.publication.freezeClosedDays();
  }, 120_000);
  afterAll(() => s.close());

  it('the ETag from a hash is the ETag from the bytes', () => {
    for (const text of ['', 'a', 'metric,timestamp,value\n', 'x'.repeat(100_000)]) {
      const bytes = new TextEncoder().encode(text);
      expect(etagOfSha256(sha256Hex(bytes))).toBe(etagOf(bytes));
    }
  });

  it("today's CSV and Parquet: built and hashed on the pool, served with that hash's ETag", async () => {
    for (const ext of ['csv', 'parquet']) {
      const r = await loopHashing(s, `/api/dataset/${today}.${ext}`);
      expect(r.body.length).toBeGreaterThan(10_000);
      expect(r.etag).toBe(etagOf(r.body));
      // Small snapshots (a manifest, an index) may be hashed; the file never is.
      expect(r.hashed).toBeLessThan(r.body.length / 4);
    }
  }, 60_000);

  it("a closed day's CSV: derived and hashed on the pool, checked against the day's hash", async () => {
    const r = await loopHashing(s, `/api/dataset/${yesterday}.csv`);
    expect(r.body.length).toBeGreaterThan(10_000);
    expect(r.etag).toBe(etagOf(r.body));
    expect(r.hashed).toBeLessThan(r.body.length / 4);
  }, 60_000);
});
