import { type Labels, labelsKey, type Sample } from '../../core/samples.ts';
import type { SeriesData } from './evaluate.ts';

/**
 * A selector's samples as the evaluation reads them: one series per label set (with its metric as
 * __name__), times ascending. Done where the query is evaluated: on a worker thread for a range
 * query in the service, so the event loop only reads the store and packs what it read.
 */
export function toSeries(samples: readonly Sample[]): SeriesData[] {
  const byKey = new Map<string, { labels: Labels; ts: number[]; vs: number[] }>();
  // The store hands out one labels object per series, in runs: its key is computed once per run,
  // not per sample (per sample, the keys were most of a 7-day query's time on the event loop).
  let lastLabels: Labels | undefined;
  let lastMetric = '';
  let d: { labels: Labels; ts: number[]; vs: number[] } | undefined;
  for (const s of samples) {
    if (d === undefined || s.labels !== lastLabels || s.metric !== lastMetric) {
      lastLabels = s.labels;
      lastMetric = s.metric;
      const labels: Labels = { ...s.labels, __name__: s.metric };
      const key = labelsKey(labels);
      d = byKey.get(key);
      if (!d) {
        d = { labels, ts: [], vs: [] };
        byKey.set(key, d);
      }
    }
    d.ts.push(s.t);
    d.vs.push(s.v);
  }
  const out = [...byKey.values()];
  for (const d of out) {
    // The store promises time order within a series; re-sort only if it did not hold.
    if (d.ts.some((t, i) => i > 0 && t < (d.ts[i - 1] as number))) {
      const idx = d.ts.map((_, i) => i).sort((a, b) => (d.ts[a] as number) - (d.ts[b] as number));
      d.ts = idx.map((i) => d.ts[i] as number);
      d.vs = idx.map((i) => d.vs[i] as number);
    }
  }
  return out;
}
