import { cellNameOf } from './coverage.ts';
import type { PackedSamples } from './packed-samples.ts';
import { type PairAccess, type PairedValues, pairedAgainstBy } from './paired.ts';
import { newestAfter, type ProbeCounts } from './probe-columns.ts';
import type { RankStatistic } from './rank-rows.ts';
import { cellIdOf, successRateOf, type WindowSamples } from './rows.ts';
import type { Labels, Sample } from './samples.ts';
import { windowStatistics } from './series.ts';
import { lowerBound } from './stats.ts';

/**
 * Cells × cycles past which the per-(cell, cycle) arrays stop being small (5 bytes a slot, 80 MB
 * here): such a view is derived over Sample objects instead (WindowColumns.of gives null). A day of
 * json-rpc latency is 45 cells × 1,440 cycles.
 */
const MAX_SLOTS = 1 << 24;

/** Per provider, the indices of its samples in the columns, in store order. */
export type OwnIndices = ReadonlyMap<string, readonly number[]>;

/**
 * A window view's value samples in columns, as the store read them packed (SampleStore.
 * selectPacked): times and values in typed arrays, each sample's series an index. Every rule stays
 * where it is written (rows.ts windowRowsOf, paired.ts pairedAgainstBy, series.ts windowP50s); this
 * hands them sample indices instead of Sample objects. A cold Stat of RPC latency reads a million
 * values (48 h: the sparkline's first point has its own 24 h window) and half a million probes;
 * as objects, they and the Maps keyed by their times were most of its cost.
 *
 * What is per series is computed once per series (provider, cell, region, a filter's match), and
 * cycles are interned once per view: the distinct times, merged from each series' ascending run,
 * and each sample's index among them, so a (cell, cycle) is an array slot, never a Map key.
 */
export class WindowColumns {
  private constructor(
    private readonly values: PackedSamples,
    /** Per series: the `provider ?? ''` a pair counts providers by (comparablePairs), interned. */
    private readonly comparer: Int32Array,
    /** Per series: its provider label (undefined: a sample nobody owns, as byProvider skips). */
    private readonly owner: readonly (string | undefined)[],
    /** Per series: its cell (cell labels and region), numbered 0 … cells − 1 in this view. */
    private readonly cellOf: Int32Array,
    private readonly regionOf: readonly string[],
    private readonly cells: number,
    /** The distinct sample times, ascending. */
    private readonly times: Float64Array,
    /** Per sample: the index of its time in `times`. */
    private readonly cycleOf: Int32Array,
    /** [from, to) of each run of one series' samples, times ascending. */
    private readonly runs: Int32Array,
    private readonly cellLabels: readonly string[],
    /** No provider has two series in one cell: with ascending runs, one sample per (cell, cycle). */
    private readonly uniquePairs: boolean,
  ) {}

  /**
   * The columns of `values`, or null where they would not pay: a series whose times do not
   * ascend (no store hands out such a read), or more cells × cycles than MAX_SLOTS.
   */
  static of(values: PackedSamples, cellLabels: readonly string[]): WindowColumns | null {
    const nSeries = values.series.length;
    const cellId = cellIdOf(cellLabels);
    const cellIndex = new Map<number, number>();
    const comparerIndex = new Map<string, number>();
    const comparer = new Int32Array(nSeries);
    const owner: (string | undefined)[] = [];
    const cellOf = new Int32Array(nSeries);
    const regionOf: string[] = [];
    for (let k = 0; k < nSeries; k++) {
      const { metric, labels } = values.series[k] as PackedSamples['series'][number];
      const p = labels.provider;
      owner.push(p);
      const key = p ?? '';
      let ci = comparerIndex.get(key);
      if (ci === undefined) {
        ci = comparerIndex.size;
        comparerIndex.set(key, ci);
      }
      comparer[k] = ci;
      // cellIdOf reads a sample's labels only; its ids are shared with the Sample path's.
      const id = cellId({ metric, labels, t: 0, v: 0 } satisfies Sample);
      let local = cellIndex.get(id);
      if (local === undefined) {
        local = cellIndex.size;
        cellIndex.set(id, local);
      }
      cellOf[k] = local;
      regionOf.push(labels.region ?? '');
    }
    const runs = ascendingRuns(values);
    if (runs === null) return null;
    const times = unionOfRuns(values.t, runs);
    if (cellIndex.size * times.length > MAX_SLOTS) return null;
    const cycleOf = new Int32Array(values.t.length);
    for (let r = 0; r < runs.length; r += 2) {
      const from = runs[r] as number;
      const to = runs[r + 1] as number;
      let j = lowerBound(times, values.t[from] as number);
      for (let i = from; i < to; i++) {
        const t = values.t[i] as number;
        while ((times[j] as number) < t) j++;
        cycleOf[i] = j;
      }
    }
    return new WindowColumns(
      values,
      comparer,
      owner,
      cellOf,
      regionOf,
      cellIndex.size,
      times,
      cycleOf,
      runs,
      cellLabels,
      oneSeriesPerCell(owner, cellOf),
    );
  }

  /** Per series, 1 where `keep` holds for its labels. */
  seriesWhere(keep: (labels: Labels) => boolean): Uint8Array {
    return Uint8Array.from(this.values.series, (s) => (keep(s.labels) ? 1 : 0));
  }

  /**
   * Per sample, 1 when its (cell, cycle) pair is comparable among the samples of the kept series
   * (all when `keep` is null) newer than `after`, by comparablePairs' rule: at least two providers
   * measured on it. 0 for every other sample.
   */
  comparable(keep: Uint8Array | null, after: number): Uint8Array {
    const T = this.times.length;
    const first = new Int32Array(this.cells * T).fill(-1);
    const shared = new Uint8Array(this.cells * T);
    this.eachRun(keep, after, (k, from, to) => {
      const base = (this.cellOf[k] as number) * T;
      const p = this.comparer[k] as number;
      for (let i = from; i < to; i++) {
        const slot = base + (this.cycleOf[i] as number);
        const f = first[slot] as number;
        if (f === -1) first[slot] = p;
        else if (f !== p) shared[slot] = 1;
      }
    });
    const out = new Uint8Array(this.values.t.length);
    this.eachRun(keep, after, (k, from, to) => {
      const base = (this.cellOf[k] as number) * T;
      for (let i = from; i < to; i++) out[i] = shared[base + (this.cycleOf[i] as number)] as number;
    });
    return out;
  }

  /**
   * comparable(keep, after), reusing `everyPair` (comparable(null, −∞)) where that gives the same
   * answer for the kept samples: when every series on a kept series' cell is kept itself, each of
   * their pairs counts the same providers either way (a narrowing by chain, a cell label, keeps
   * whole cells). Otherwise (a provider dropped from a cell it has samples on) counted anew.
   */
  comparableWithin(keep: Uint8Array, after: number, everyPair: Uint8Array): Uint8Array {
    const cellKept = new Uint8Array(this.cells);
    for (let k = 0; k < keep.length; k++) if (keep[k] === 1) cellKept[this.cellOf[k] as number] = 1;
    for (let k = 0; k < keep.length; k++)
      if (keep[k] !== 1 && cellKept[this.cellOf[k] as number] === 1) return this.comparable(keep, after);
    return everyPair;
  }

  /** Each run of a kept series (all when null), narrowed to its samples newer than `after`. */
  private eachRun(
    keep: Uint8Array | null,
    after: number,
    fn: (series: number, from: number, to: number) => void,
  ): void {
    const { seriesOf, t } = this.values;
    const runs = this.runs;
    for (let r = 0; r < runs.length; r += 2) {
      const from = runs[r] as number;
      const to = runs[r + 1] as number;
      const k = seriesOf[from] as number;
      if (keep !== null && keep[k] !== 1) continue;
      // Times ascend within a run: its samples newer than `after` are a suffix.
      let start = from;
      if ((t[from] as number) <= after) {
        let hi = to;
        while (start < hi) {
          const mid = (start + hi) >>> 1;
          if ((t[mid] as number) <= after) start = mid + 1;
          else hi = mid;
        }
      }
      if (start < to) fn(k, start, to);
    }
  }

  /**
   * Each provider's samples of the kept series (all when null) newer than `after`, in store order
   * (`only`: that provider's alone).
   */
  own(keep: Uint8Array | null, after: number, only?: string): OwnIndices {
    const out = new Map<string, number[]>();
    this.eachRun(keep, after, (k, from, to) => {
      const p = this.owner[k];
      if (p === undefined || (only !== undefined && p !== only)) return;
      let list = out.get(p);
      if (!list) {
        list = [];
        out.set(p, list);
      }
      for (let i = from; i < to; i++) list.push(i);
    });
    return out;
  }

  /** What windowRowsOf reads: `own`'s samples, their pairs' comparability, and probe counts. */
  windowSamples(own: OwnIndices, comparable: Uint8Array, probes: ProbeCounts): WindowSamples<number> {
    const { t, v, series, seriesOf } = this.values;
    const cellName = cellNameOf(this.cellLabels);
    const names = series.map((s) => cellName(s.labels));
    return {
      cellsOf: (list) => {
        const seen = new Uint8Array(series.length);
        for (const i of list) seen[seriesOf[i] as number] = 1;
        const out = new Set<string>();
        for (let k = 0; k < seen.length; k++) if (seen[k] === 1) out.add(names[k] as string);
        return out;
      },
      own: (provider) => own.get(provider),
      comparable: (i) => comparable[i] === 1,
      t: (i) => t[i] as number,
      v: (i) => v[i] as number,
      successRate: (provider) => {
        const c = probes.get(provider);
        return successRateOf(c?.ok ?? 0, c?.total ?? 0);
      },
    };
  }

  /** withLeaderTestsBy's pairing over `own`'s samples (paired.ts pairedAgainstBy). */
  pairWith(own: OwnIndices): (leader: string) => (provider: string) => PairedValues {
    const { seriesOf, v } = this.values;
    const access: PairAccess<number> = {
      cycles: this.times.length,
      cycle: (i) => this.cycleOf[i] as number,
      cell: (i) => this.cellOf[seriesOf[i] as number] as number,
      region: (i) => this.regionOf[seriesOf[i] as number] as string,
      v: (i) => v[i] as number,
    };
    return (leader) => {
      const vsLeader = pairedAgainstBy(own.get(leader) ?? [], access);
      return (provider) => ({ ...vsLeader(own.get(provider) ?? []), unique: this.uniquePairs });
    };
  }

  /**
   * evaluateSeries' window series for one provider (series.ts windowP50s): its samples in time
   * order (a stable counting sort by cycle) with `comparable`, computed over every sample held.
   */
  seriesFor(
    provider: string,
    comparable: Uint8Array,
    timestamps: readonly number[],
    windowMs: number,
    statistic: RankStatistic = 'p50',
  ): (number | null)[] {
    const { t, v } = this.values;
    const mine = this.own(null, Number.NEGATIVE_INFINITY, provider).get(provider) ?? [];
    const T = this.times.length;
    const start = new Int32Array(T + 1);
    for (const i of mine) {
      const c = (this.cycleOf[i] as number) + 1;
      start[c] = (start[c] as number) + 1;
    }
    for (let c = 0; c < T; c++) start[c + 1] = (start[c + 1] as number) + (start[c] as number);
    const n = mine.length;
    const ts = new Float64Array(n);
    const vs = new Float64Array(n);
    const shared = new Uint8Array(n);
    for (const i of mine) {
      const c = this.cycleOf[i] as number;
      const at = start[c] as number;
      start[c] = at + 1;
      ts[at] = t[i] as number;
      vs[at] = v[i] as number;
      shared[at] = comparable[i] as number;
    }
    return windowStatistics({ t: ts, v: vs, shared }, timestamps, windowMs, statistic);
  }

  /** The newest sample time after `after`, or null when there is none. */
  newest(after: number): number | null {
    return newestAfter(this.values.t, after);
  }
}

/** Whether no provider owns two series of one cell. */
function oneSeriesPerCell(owner: readonly (string | undefined)[], cellOf: Int32Array): boolean {
  const seen = new Set<string>();
  for (let k = 0; k < owner.length; k++) {
    const key = `${owner[k] ?? ''}\u0000${cellOf[k]}`;
    if (seen.has(key)) return false;
    seen.add(key);
  }
  return true;
}

/**
 * [from, to) pairs of the maximal runs of one series, or null when a run's times do not strictly
 * ascend (a store reads by series, then time, once per time).
 */
export function ascendingRuns(p: PackedSamples): Int32Array | null {
  const n = p.t.length;
  const out: number[] = [];
  let from = 0;
  for (let i = 1; i <= n; i++) {
    if (i < n && p.seriesOf[i] === p.seriesOf[from]) {
      if (!((p.t[i] as number) > (p.t[i - 1] as number))) return null;
      continue;
    }
    if (i > from) out.push(from, i);
    from = i;
  }
  return Int32Array.from(out);
}

/**
 * The distinct times of ascending runs, ascending: merged two by two, so runs that all share one
 * grid of slots (the usual case) cost a linear pass per level, and disjoint runs O(n log runs).
 */
export function unionOfRuns(t: Float64Array, runs: Int32Array): Float64Array {
  let level: Float64Array[] = [];
  for (let r = 0; r < runs.length; r += 2) level.push(t.subarray(runs[r] as number, runs[r + 1] as number));
  if (level.length === 0) return new Float64Array(0);
  while (level.length > 1) {
    const next: Float64Array[] = [];
    for (let k = 0; k + 1 < level.length; k += 2)
      next.push(mergeUnique(level[k] as Float64Array, level[k + 1] as Float64Array));
    if (level.length % 2 === 1) next.push(level[level.length - 1] as Float64Array);
    level = next;
  }
  return level[0] as Float64Array;
}

function mergeUnique(a: Float64Array, b: Float64Array): Float64Array {
  const out = new Float64Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as number;
    const y = b[j] as number;
    if (x < y) {
      out[n++] = x;
      i++;
    } else if (y < x) {
      out[n++] = y;
      j++;
    } else {
      out[n++] = x;
      i++;
      j++;
    }
  }
  while (i < a.length) out[n++] = a[i++] as number;
  while (j < b.length) out[n++] = b[j++] as number;
  return out.subarray(0, n);
}
