import type { RankStatistic } from './rank-rows.ts';
import type { Labels, Sample } from './samples.ts';
import type { SeriesInput } from './series.ts';

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

/**
 * Packs batch after batch into one set, in typed arrays that grow by doubling. A day's dataset is
 * read an hour of a metric at a time, hundreds of batches: packed one set per batch, moving their
 * ~1,000 buffers to the worker cost the loop ~9 ms in postMessage alone (bench:loop-holds' profile);
 * one set is three buffers.
 */
export class SamplesPacker {
  private readonly series: { metric: string; labels: Labels }[] = [];
  private readonly index = new Map<Labels, { metric: string; i: number }[]>();
  private seriesOf: Uint32Array;
  private t: Float64Array;
  private v: Float64Array;
  private n = 0;

  /** `capacity`: the samples expected; the arrays are exactly this long if no more come. */
  constructor(capacity = 0) {
    this.seriesOf = new Uint32Array(capacity);
    this.t = new Float64Array(capacity);
    this.v = new Float64Array(capacity);
  }

  add(samples: readonly Sample[]): this {
    this.reserve(this.n + samples.length);
    let last: Sample | undefined;
    let lastI = 0;
    for (const s of samples) {
      if (last === undefined || s.labels !== last.labels || s.metric !== last.metric) {
        lastI = this.seriesIndex(s.metric, s.labels);
        last = s;
      }
      this.seriesOf[this.n] = lastI;
      this.t[this.n] = s.t;
      this.v[this.n] = s.v;
      this.n++;
    }
    return this;
  }

  /**
   * One series' samples [from, to) given as columns, as a store holds them (a DuckDB chunk's
   * vectors, the in-memory tail's arrays): copied without a Sample object per row.
   */
  addColumns(
    metric: string,
    labels: Labels,
    t: ArrayLike<number>,
    v: ArrayLike<number>,
    from = 0,
    to = t.length,
  ): this {
    const count = to - from;
    if (count <= 0) return this;
    this.reserve(this.n + count);
    this.seriesOf.fill(this.seriesIndex(metric, labels), this.n, this.n + count);
    copyInto(this.t, this.n, t, from, to);
    copyInto(this.v, this.n, v, from, to);
    this.n += count;
    return this;
  }

  /** The set so far: views of the arrays (their buffers may be longer: move them, do not add more). */
  finish(): PackedSamples {
    return {
      series: this.series,
      seriesOf: this.seriesOf.subarray(0, this.n),
      t: this.t.subarray(0, this.n),
      v: this.v.subarray(0, this.n),
    };
  }

  private seriesIndex(metric: string, labels: Labels): number {
    const known = this.index.get(labels);
    const hit = known?.find((e) => e.metric === metric);
    if (hit) return hit.i;
    const i = this.series.length;
    this.series.push({ metric, labels });
    this.index.set(labels, [...(known ?? []), { metric, i }]);
    return i;
  }

  private reserve(size: number): void {
    if (size <= this.t.length) return;
    const cap = Math.max(size, this.t.length * 2);
    const grow = <A extends Uint32Array | Float64Array>(a: A, make: (n: number) => A): A => {
      const b = make(cap);
      b.set(a.subarray(0, this.n));
      return b;
    };
    this.seriesOf = grow(this.seriesOf, (n) => new Uint32Array(n));
    this.t = grow(this.t, (n) => new Float64Array(n));
    this.v = grow(this.v, (n) => new Float64Array(n));
  }
}

function copyInto(to: Float64Array, at: number, src: ArrayLike<number>, from: number, end: number): void {
  if (src instanceof Float64Array) to.set(src.subarray(from, end), at);
  else for (let k = from; k < end; k++) to[at + k - from] = src[k] as number;
}

export function packSamples(samples: readonly Sample[]): PackedSamples {
  return new SamplesPacker(samples.length).add(samples).finish();
}

/** The buffers postMessage may move (pass as its transfer list). */
export function packedBuffers(p: PackedSamples): ArrayBuffer[] {
  return [p.seriesOf.buffer, p.t.buffer, p.v.buffer] as ArrayBuffer[];
}

/** core/series.ts's input, its samples packed as the store read them (SampleStore.selectPacked). */
export interface PackedSeriesInput {
  readonly mode: SeriesInput['mode'];
  /** The cell labels of a `window` derivation; empty for `latest`. */
  readonly cellLabels: readonly string[];
  readonly samples: PackedSamples;
  /** The ranked statistic of a `window` derivation (its rankBy). */
  readonly statistic?: RankStatistic;
}

/** The input core/series.ts evaluates, unpacked where it is evaluated. */
export function unpackSeriesInput(p: PackedSeriesInput): SeriesInput {
  const samples = unpackSamples(p.samples);
  return p.mode === 'latest'
    ? { mode: 'latest', samples }
    : { mode: 'window', cellLabels: p.cellLabels, values: samples, statistic: p.statistic ?? 'p50' };
}

/** The samples from index `from` (inclusive) to `to` (exclusive), all by default. */
export function unpackSamples(p: PackedSamples, from = 0, to = p.t.length): Sample[] {
  const out = new Array<Sample>(Math.max(0, to - from));
  for (let k = from; k < to; k++) {
    const s = p.series[p.seriesOf[k] as number] as { metric: string; labels: Labels };
    out[k - from] = { metric: s.metric, labels: s.labels, t: p.t[k] as number, v: p.v[k] as number };
  }
  return out;
}
