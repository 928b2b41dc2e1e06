import type { Labels, Sample } from './samples.ts';

/**
 * Samples in columns, to hand to a worker thread: times and values in typed arrays that are moved,
 * not copied, and each sample's series as an index into a short list. A store read hands out one
 * labels object per series, so packing compares references, not label sets; two equal label sets
 * from different objects just become two entries, and unpacking gives equal samples either way.
 */
export interface PackedSamples {
  readonly series: readonly { readonly metric: string; readonly labels: Labels }[];
  readonly seriesOf: Uint32Array;
  readonly t: Float64Array;
  readonly v: Float64Array;
}

export function packSamples(samples: readonly Sample[]): PackedSamples {
  const n = samples.length;
  const series: { metric: string; labels: Labels }[] = [];
  const index = new Map<Labels, { metric: string; i: number }[]>();
  const seriesOf = new Uint32Array(n);
  const t = new Float64Array(n);
  const v = new Float64Array(n);
  let last: Sample | undefined;
  let lastI = 0;
  for (let k = 0; k < n; k++) {
    const s = samples[k] as Sample;
    if (last === undefined || s.labels !== last.labels || s.metric !== last.metric) {
      const known = index.get(s.labels);
      const hit = known?.find((e) => e.metric === s.metric);
      if (hit) lastI = hit.i;
      else {
        lastI = series.length;
        series.push({ metric: s.metric, labels: s.labels });
        index.set(s.labels, [...(known ?? []), { metric: s.metric, i: lastI }]);
      }
      last = s;
    }
    seriesOf[k] = lastI;
    t[k] = s.t;
    v[k] = s.v;
  }
  return { series, seriesOf, t, v };
}

/** The buffers postMessage may move (pass as its transfer list). */
export function packedBuffers(p: PackedSamples): ArrayBuffer[] {
  return [p.seriesOf.buffer, p.t.buffer, p.v.buffer] as ArrayBuffer[];
}

export function unpackSamples(p: PackedSamples): Sample[] {
  const out = new Array<Sample>(p.t.length);
  for (let k = 0; k < p.t.length; k++) {
    const s = p.series[p.seriesOf[k] as number] as { metric: string; labels: Labels };
    out[k] = { metric: s.metric, labels: s.labels, t: p.t[k] as number, v: p.v[k] as number };
  }
  return out;
}
