/**
 * Issue 26 item 1, what runs where: a series' grid is evaluated on the service's worker threads
 * (src/workers/series-task.ts), from the samples the event loop read and packed into typed arrays
 * (src/core/packed-samples.ts). The answers are the inline evaluation's, to the byte.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packedBuffers, packSamples, unpackSamples } from '../../src/core/packed-samples.ts';
import type { Sample } from '../../src/core/samples.ts';
import { SERIES_RANGES } from '../../src/core/series.ts';
import type { BenchmarkSpec } from '../../src/core/spec-schema.ts';
import { buildDataset } from '../../src/demo/dataset.ts';
import { computeSeries } from '../../src/publication/series-view.ts';
import { ServiceWorkers } from '../../src/workers/service-workers.ts';
import { countingReads } from '../helpers/counting-store.ts';
import { type Fixture, fixture, NOW } from '../helpers/fixture.ts';
import { type Running, startServer } from '../helpers/server.ts';

describe('packed samples', () => {
  it('round-trip: equal samples, one entry per series run, label objects shared as the store shares them', () => {
    const labels = { provider: 'a', chain: 'base' };
    const other = { provider: 'b', chain: 'base' };
    const samples: Sample[] = [
      { metric: 'm', labels, t: 1, v: 0.5 },
      { metric: 'm', labels, t: 2, v: 1.5 },
      { metric: 'n', labels, t: 2, v: 7 },
      { metric: 'm', labels: other, t: 1, v: -1 },
      { metric: 'm', labels, t: 3, v: 2.25 },
    ];
    const p = packSamples(samples);
    expect(p.series).toHaveLength(3);
    expect([...p.seriesOf]).toEqual([0, 0, 1, 2, 0]);
    expect(unpackSamples(p)).toEqual(samples);
    expect(packedBuffers(p).reduce((n, b) => n + b.byteLength, 0)).toBe(5 * (4 + 8 + 8));
  });

  it('a demo day of samples survives packing', () => {
    const samples = buildDataset({ seed: 3, days: 1, end: NOW });
    expect(unpackSamples(packSamples(samples))).toEqual(samples);
  });
});

describe('series grids on a worker thread', () => {
  let f: Fixture;
  const workers = new ServiceWorkers(1);
  beforeAll(async () => {
    f = await fixture({ days: 3 });
  }, 60_000);
  afterAll(async () => {
    await workers.close();
    await f.close();
  });

  it('equal the inline evaluation for every benchmark and range, unfiltered and for one chain', async () => {
    const before = workers.pool.finished;
    let compared = 0;
    for (const spec of f.specs) {
      const chain = spec.dimensions.chain?.values[0]?.value ?? null;
      for (const filters of [null, ...(chain ? [{ chain }] : [])]) {
        for (const range of SERIES_RANGES) {
          const r = { spec, filters, range, providers: null, evalTime: NOW, simulated: true };
          const inline = await computeSeries(f.store, r);
          const off = await computeSeries(f.store, r, workers.evaluateSeries);
          expect(off, `${spec.slug} ${range} ${JSON.stringify(filters)}`).toEqual(inline);
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThanOrEqual(f.specs.length * SERIES_RANGES.length);
    expect(workers.pool.finished - before).toBe(compared);
  }, 120_000);

  it('is read packed from the store (selectPacked), with no Sample object per row on the event loop', async () => {
    const { store: counted, calls } = countingReads(f.store);
    const spec = f.specs[0] as BenchmarkSpec;
    const r = { spec, filters: null, range: '7d' as const, providers: null, evalTime: NOW, simulated: true };
    const off = await computeSeries(counted, r, workers.evaluateSeries);
    expect(off).toEqual(await computeSeries(f.store, r));
    expect(calls).toEqual({ select: 0, selectPacked: 1 });
  });
});

describe('the service', () => {
  let s: Running;
  beforeAll(async () => {
    s = await startServer();
  }, 60_000);
  afterAll(() => s.close());

  it('evaluates a cold series on its worker threads, one task per series', async () => {
    const slug = s.service.specs[0]?.slug as string;
    const before = s.service.workers.pool.finished;
    const res = await s.get(`/api/series/${slug}?range=90d`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { timestamps: number[] };
    expect(body.timestamps).toHaveLength(91);
    expect(s.service.workers.pool.finished - before).toBe(1);
    expect(s.service.workers.pool.size).toBeGreaterThanOrEqual(1);
  }, 60_000);
});
