import type { Sample } from './samples.ts';
import { round6 } from './stats.ts';

export const SPARK_STEP_MS = 20 * 60_000;
export const SPARK_POINTS = 73;

/**
 * The leader's series on a 20-minute grid over the 24 h ending at `evalTime`, both ends included
 * (73 points). Each point is the latest sample at or before the grid time (no older than
 * `lookbackMs`), averaged across the leader's cells; points without data are dropped.
 */
export function sparklineSeries(
  samples: readonly Sample[],
  cellKey: (s: Sample) => string,
  evalTime: number,
  lookbackMs: number,
): number[] {
  const cells = new Map<string, Sample[]>();
  for (const s of samples) {
    const k = cellKey(s);
    let arr = cells.get(k);
    if (!arr) {
      arr = [];
      cells.set(k, arr);
    }
    arr.push(s);
  }
  const series = [...cells.values()].map((arr) => arr.sort((a, b) => a.t - b.t));
  const cursors = series.map(() => -1);
  const out: number[] = [];
  const start = evalTime - (SPARK_POINTS - 1) * SPARK_STEP_MS;
  for (let k = 0; k < SPARK_POINTS; k++) {
    const g = start + k * SPARK_STEP_MS;
    let sum = 0;
    let n = 0;
    series.forEach((arr, i) => {
      let c = cursors[i] as number;
      while (c + 1 < arr.length && (arr[c + 1] as Sample).t <= g) c++;
      cursors[i] = c;
      const s = arr[c];
      if (s && g - s.t <= lookbackMs) {
        sum += s.v;
        n++;
      }
    });
    if (n > 0) out.push(round6(sum / n));
  }
  return out;
}
