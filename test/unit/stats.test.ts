import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { prng } from '../../src/core/prng.ts';
import { mean, quantile, quantileSorted, quantileUnsorted, round6 } from '../../src/core/stats.ts';

describe('quantile (linear interpolation between closest ranks)', () => {
  it('matches hand-computed values', () => {
    // h = q(n-1): for [10,20,30,40], p50 → h=1.5 → 25; p90 → h=2.7 → 37; p99 → h=2.97 → 39.7
    expect(quantile([40, 10, 30, 20], 0.5)).toBe(25);
    expect(quantile([10, 20, 30, 40], 0.9)).toBeCloseTo(37, 10);
    expect(quantile([10, 20, 30, 40], 0.99)).toBeCloseTo(39.7, 10);
    expect(quantile([5], 0.99)).toBe(5);
    expect(Number.isNaN(quantile([], 0.5))).toBe(true);
    expect(quantile([1, 2], 0)).toBe(1);
    expect(quantile([1, 2], 1)).toBe(2);
  });

  it('agrees with DuckDB quantile_cont on random data', async () => {
    const db = await DuckDBInstance.create(':memory:');
    const conn = await db.connect();
    const r = prng(99);
    for (let trial = 0; trial < 20; trial++) {
      const n = 1 + Math.floor(r() * 60);
      const xs = Array.from({ length: n }, () => Math.round(r() * 10000) / 100);
      for (const q of [0.5, 0.9, 0.99]) {
        const res = await conn.runAndReadAll(
          `SELECT quantile_cont(x, ${q}) FROM (SELECT unnest([${xs.join(',')}]::DOUBLE[]) AS x)`,
        );
        expect(quantile(xs, q)).toBeCloseTo(Number(res.getRows()[0]?.[0]), 9);
      }
    }
    conn.closeSync();
    db.closeSync();
  });

  it('mean and 6-significant-digit rounding', () => {
    expect(mean([1, 2, 3, 4])).toBe(2.5);
    expect(round6(95.83333333)).toBe(95.8333);
    expect(round6(263)).toBe(263);
    expect(round6(0)).toBe(0);
  });
});

describe('quantileUnsorted (selection, no sort)', () => {
  it('gives quantileSorted’s value to the last bit, with ties, any q and any order', () => {
    let x = 12345;
    const next = () => {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      return x / 2 ** 32;
    };
    for (let trial = 0; trial < 300; trial++) {
      const n = 1 + Math.floor(next() * 200);
      const values = Array.from({ length: n }, () => (next() < 0.3 ? 7 : Math.round(next() * 1000) / 10));
      const sorted = [...values].sort((a, b) => a - b);
      for (const q of [0, 0.01, 0.5, 0.9, 0.99, 1, next()]) {
        expect(quantileUnsorted([...values], q)).toBe(quantileSorted(sorted, q));
      }
    }
    expect(Number.isNaN(quantileUnsorted([], 0.5))).toBe(true);
  });
});
