/**
 * Issue 26 item 1, what runs where: a day's dataset files are written on the service's worker
 * threads (src/workers/dataset-task.ts: the event loop reads and packs the day, a worker's own
 * DuckDB writes the files), and a frozen day's CSV is derived from its Parquet there too. The
 * bytes are those the event loop writes (test/helpers/fixture.ts's publication has no workers).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unpackSamples } from '../../src/core/packed-samples.ts';
import type { Sample } from '../../src/core/samples.ts';
import { datasetTask } from '../../src/workers/dataset-task.ts';
import { type Fixture, fixture, NOW } from '../helpers/fixture.ts';
import { type Running, startServer } from '../helpers/server.ts';

const DAY = 86_400_000;
const yesterday = new Date(NOW - DAY).toISOString().slice(0, 10);

describe('dataset files on a worker thread', () => {
  let s: Running;
  let inline: Fixture;
  beforeAll(async () => {
    [s, inline] = await Promise.all([startServer(), fixture()]);
    await inline.publication.freezeClosedDays();
  }, 120_000);
  afterAll(async () => {
    await Promise.all([s.close(), inline.close()]);
  });

  it("a closed day's files are written by the pool when first asked for, and its CSV derived there", async () => {
    const pool = s.service.workers.pool;
    const files = pool.finishedOf('dataset-files');
    const csvs = pool.finishedOf('dataset-csv');
    const res = await s.get(`/api/dataset/${yesterday}.csv`);
    expect(res.status).toBe(200);
    expect(pool.finishedOf('dataset-files')).toBe(files + 1);
    expect(pool.finishedOf('dataset-csv')).toBeGreaterThan(csvs);
  }, 60_000);

  it('gives the bytes the event loop writes: the CSV, and the Parquet rows', async () => {
    const csv = new Uint8Array(await (await s.get(`/api/dataset/${yesterday}.csv`)).arrayBuffer());
    const want = await inline.publication.dataset.file(yesterday, 'csv');
    expect(want.kind).toBe('ok');
    if (want.kind !== 'ok') return;
    expect(Buffer.from(csv).equals(Buffer.from(want.file.body))).toBe(true);
    const manifest = (await (await s.get(`/api/dataset/${yesterday}.json`)).json()) as { rows: number };
    expect(manifest.rows).toBeGreaterThan(1_000);
    expect(csv.reduce((n, b) => n + (b === 10 ? 1 : 0), 0)).toBe(manifest.rows + 1);
  }, 60_000);

  it("today's files, built on request, are the pool's as well", async () => {
    const pool = s.service.workers.pool;
    const before = pool.finishedOf('dataset-files');
    const today = new Date(NOW).toISOString().slice(0, 10);
    const res = await s.get(`/api/dataset/${today}.parquet`);
    expect(res.status).toBe(200);
    expect(pool.finishedOf('dataset-files')).toBe(before + 1);
  }, 60_000);
});

describe("a day's samples as the worker gets them", () => {
  it('are one packed set (three buffers moved) however many batches the day was read in', async () => {
    const labels = [{ provider: 'a' }, { provider: 'b', chain: 'base' }];
    const batches: Sample[][] = Array.from({ length: 300 }, (_, b) =>
      Array.from({ length: (b % 5) * 7 }, (_, i) => ({
        metric: b % 2 === 0 ? 'm1' : 'm2',
        labels: labels[i % 2] as Sample['labels'],
        t: b * 3_600_000 + i,
        v: i / 3,
      })),
    );
    async function* read() {
      for (const b of batches) yield b;
    }
    const { task, transfer } = await datasetTask(read(), { k: 'v' });
    // A set per batch moved ~1,000 buffers for a day: ~9 ms of the loop in postMessage.
    expect(transfer).toHaveLength(3);
    const moved = structuredClone(task, { transfer });
    expect(unpackSamples(moved.samples)).toEqual(batches.flat());
    const n = batches.flat().length;
    expect(unpackSamples(moved.samples, 5, n - 5)).toEqual(batches.flat().slice(5, n - 5));
  });
});
