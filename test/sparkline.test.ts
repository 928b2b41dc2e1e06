import { describe, expect, it } from 'vitest';
import type { Sample } from '../src/core/samples.ts';
import { SPARK_POINTS, SPARK_STEP_MS, sparklineSeries } from '../src/core/sparkline.ts';

const T = Date.UTC(2026, 0, 2);
const s = (cell: string, t: number, v: number): Sample => ({ metric: 'm', labels: { cell }, t, v });
const byCell = (x: Sample) => x.labels.cell ?? '';

describe('sparklineSeries', () => {
  it('has 73 points on a 20-minute grid over 24 h, both ends included', () => {
    const samples = Array.from({ length: 200 }, (_, i) => s('a', T - i * 10 * 60_000, i));
    const out = sparklineSeries(samples, byCell, T, Number.POSITIVE_INFINITY);
    expect(out).toHaveLength(SPARK_POINTS);
    expect(SPARK_POINTS).toBe(73);
    // Last point = sample at T (i=0), first = sample at T-24h (i=144).
    expect(out[72]).toBe(0);
    expect(out[0]).toBe(144);
    expect(out[71]).toBe(2); // T-20min is i=2
  });

  it('takes the latest sample at or before each grid time and carries it within the lookback', () => {
    const samples = [s('a', T - 24 * 3_600_000 - 5 * 60_000, 7), s('a', T - 12 * 3_600_000 + 1, 9)];
    const out = sparklineSeries(samples, byCell, T, Number.POSITIVE_INFINITY);
    expect(out).toHaveLength(73);
    expect(out[0]).toBe(7);
    expect(out[36]).toBe(7); // exactly T-12h: the 9 arrives 1 ms later
    expect(out[37]).toBe(9);
  });

  it('drops points without data instead of inventing them', () => {
    const samples = [s('a', T - 60 * 60_000, 5)];
    const out = sparklineSeries(samples, byCell, T, 60 * 60_000);
    // Grid points from T-60min to T inclusive: 4 points.
    expect(out).toEqual([5, 5, 5, 5]);
    expect(sparklineSeries([], byCell, T, 1)).toEqual([]);
  });

  it('averages across cells', () => {
    const samples = [s('a', T, 100), s('b', T, 50), s('b', T - SPARK_STEP_MS, 70)];
    const out = sparklineSeries(samples, byCell, T, SPARK_STEP_MS);
    expect(out).toEqual([70, 75]);
  });
});
