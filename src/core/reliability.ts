import type { PackedSamples } from './packed-samples.ts';
import { cellIdOf, probeSucceeded } from './rows.ts';
import type { Labels, Sample } from './samples.ts';
import { round6 } from './stats.ts';
import { SIGNIFICANCE, type SignTest, signTest } from './uncertainty.ts';
import { ascendingRuns, unionOfRuns } from './window-columns.ts';

/** How a reliability verdict between two providers reads: who is more reliable, and the evidence. */
export interface ReliabilityVerdict {
  /** The provider that failed less, by more than the margin and significantly; null when neither. */
  readonly moreReliable: string | null;
  /** Failure share of a minus b over the probes both were sent on the same cell and cycle, points. */
  readonly gap: number;
  /** Sign test on per-(region, cycle) failure-share differences a − b over those shared probes. */
  readonly test: SignTest;
  /** Probes each side was sent on shared (cell, cycle) pairs. */
  readonly sharedProbes: number;
}

interface SparseOutcomes {
  readonly words: number;
  readonly present: Uint32Array;
  readonly failures: Int32Array;
}

/** Each of n times' cycle, numbered in order of first appearance, and how many there are. */
function internCycles(n: number, tOf: (i: number) => number): { at: Int32Array; count: number } {
  const cycles = new Map<number, number>();
  const at = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const t = tOf(i);
    let k = cycles.get(t);
    if (k === undefined) {
      k = cycles.size;
      cycles.set(t, k);
    }
    at[i] = k;
  }
  return { at, count: cycles.size };
}

function maxPlusOne(a: Int32Array): number {
  let m = -1;
  for (let i = 0; i < a.length; i++) if ((a[i] as number) > m) m = a[i] as number;
  return m + 1;
}

/** Set bits of a 32-bit word. */
function popcount32(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** Bit k of a cell's words starting at `from`. */
function bitAt(words: Uint32Array, from: number, k: number): boolean {
  return (((words[from + (k >>> 5)] as number) >>> (k & 31)) & 1) === 1;
}

/**
 * Every provider's probe outcomes of a view on one grid: a cell (cell labels and region, rows.ts
 * cellIdOf) by a cycle (a probe time), -1 where the provider was not probed, else 1 ok and 0 a
 * failure it caused. The pairing unit is the (region, cycle), the unit of the sign test elsewhere:
 * the cells of one cycle share the provider's state.
 */
export class ProbeGrid {
  private constructor(
    private readonly outcomes: ReadonlyMap<string, Int8Array>,
    /** Each grid column's (cell × cycles + cycle) slot: region × cycles + cycle. */
    private readonly slotOf: Int32Array,
    private readonly slots: number,
    private readonly cycles: number,
    /** Each cell's labels (those of its first series): what a narrowing keeps or drops. */
    private readonly cellLabelsOf: readonly Labels[],
    /** The cells a narrowed grid keeps (1), or null for all of them. */
    private readonly kept: Uint8Array | null = null,
    /** Each provider's outcomes as the verdict reads them, shared with the grid's narrowings. */
    private readonly sparseOf = new Map<string, SparseOutcomes>(),
  ) {}

  static ofSamples(probes: readonly Sample[], cellLabels: readonly string[]): ProbeGrid {
    // A store hands every sample of a series the same labels object: a series is one of those.
    const seriesIndex = new Map<Labels, number>();
    const series: Labels[] = [];
    const seriesOf = new Int32Array(probes.length);
    probes.forEach((s, i) => {
      let k = seriesIndex.get(s.labels);
      if (k === undefined) {
        k = series.length;
        seriesIndex.set(s.labels, k);
        series.push(s.labels);
      }
      seriesOf[i] = k;
    });
    return ProbeGrid.build(
      series,
      seriesOf,
      (i) => (probes[i] as Sample).t,
      (i) => (probes[i] as Sample).v,
      cellLabels,
    );
  }

  /**
   * The probes as a store read them packed. A store reads by series, then time, so the cycles are
   * numbered by walking each series' run against their union, without a lookup per probe.
   */
  static ofPacked(probes: PackedSamples, cellLabels: readonly string[]): ProbeGrid {
    const runs = ascendingRuns(probes);
    let cycleOf: Int32Array | undefined;
    if (runs !== null) {
      const times = unionOfRuns(probes.t, runs);
      cycleOf = new Int32Array(probes.t.length);
      for (let r = 0; r < runs.length; r += 2) {
        let j = 0;
        for (let i = runs[r] as number; i < (runs[r + 1] as number); i++) {
          while ((times[j] as number) < (probes.t[i] as number)) j++;
          cycleOf[i] = j;
        }
      }
    }
    return ProbeGrid.build(
      probes.series.map((s) => s.labels),
      probes.seriesOf,
      (i) => probes.t[i] as number,
      (i) => probes.v[i] as number,
      cellLabels,
      cycleOf,
    );
  }

  /** The same grid over the cells whose labels `keep` (a chain's rows: its cells only). */
  narrowed(keep: (labels: Labels) => boolean): ProbeGrid {
    const kept = Uint8Array.from(this.cellLabelsOf, (l) => (keep(l) ? 1 : 0));
    return new ProbeGrid(
      this.outcomes,
      this.slotOf,
      this.slots,
      this.cycles,
      this.cellLabelsOf,
      kept,
      this.sparseOf,
    );
  }

  private static build(
    series: readonly Labels[],
    seriesOf: ArrayLike<number>,
    tOf: (i: number) => number,
    vOf: (i: number) => number,
    cellLabels: readonly string[],
    /** Each probe's cycle, numbered in time order, when the caller has them; else interned here. */
    cycleOf?: Int32Array,
  ): ProbeGrid {
    const n = seriesOf.length;
    // Per series, once: its cell (cell labels and region) and provider.
    const cellOf = cellIdOf(cellLabels);
    const cells = new Map<number, number>();
    const cellRegion: number[] = [];
    const cellLabelsOf: Labels[] = [];
    const regions = new Map<string, number>();
    const cellOfSeries = new Int32Array(series.length);
    for (let k = 0; k < series.length; k++) {
      const labels = series[k] as Labels;
      const id = cellOf({ metric: '', labels, t: 0, v: 0 });
      let c = cells.get(id);
      if (c === undefined) {
        c = cells.size;
        cells.set(id, c);
        const r = labels.region ?? '';
        let region = regions.get(r);
        if (region === undefined) {
          region = regions.size;
          regions.set(r, region);
        }
        cellRegion.push(region);
        cellLabelsOf.push(labels);
      }
      cellOfSeries[k] = c;
    }
    const { at, count } = cycleOf ? { at: cycleOf, count: maxPlusOne(cycleOf) } : internCycles(n, tOf);
    const nCycles = Math.max(1, count);
    const size = cells.size * nCycles;
    const gridOfSeries = series.map(() => null as Int8Array | null);
    const outcomes = new Map<string, Int8Array>();
    for (let k = 0; k < series.length; k++) {
      const p = (series[k] as Labels).provider;
      if (p === undefined) continue;
      let grid = outcomes.get(p);
      if (!grid) {
        grid = new Int8Array(size).fill(-1);
        outcomes.set(p, grid);
      }
      gridOfSeries[k] = grid;
    }
    for (let i = 0; i < n; i++) {
      const k = seriesOf[i] as number;
      const grid = gridOfSeries[k];
      if (!grid) continue;
      const g = (cellOfSeries[k] as number) * nCycles + (at[i] as number);
      // Two probes of one provider on one cell and cycle: a failure of either counts.
      const ok = probeSucceeded(vOf(i)) ? 1 : 0;
      grid[g] = grid[g] === 0 ? 0 : ok;
    }
    const slotOf = new Int32Array(size);
    for (let c = 0; c < cells.size; c++)
      for (let k = 0; k < nCycles; k++) slotOf[c * nCycles + k] = (cellRegion[c] as number) * nCycles + k;
    return new ProbeGrid(outcomes, slotOf, Math.max(1, regions.size) * nCycles, nCycles, cellLabelsOf);
  }

  /** a against b on their shared probes: the failure-share gap, its test, and who is more reliable. */
  verdict(a: string, b: string, margin: number): ReliabilityVerdict {
    const pa = this.sparse(a);
    const pb = this.sparse(b);
    const none = { moreReliable: null, gap: 0, test: signTest([]), sharedProbes: 0 };
    if (!pa || !pb) return none;
    const kept = this.kept;
    const W = pa.words;
    let shared = 0;
    for (let c = 0; c < this.cellLabelsOf.length; c++) {
      if (kept !== null && kept[c] !== 1) continue;
      for (let w = c * W, end = w + W; w < end; w++)
        shared += popcount32((pa.present[w] as number) & (pb.present[w] as number));
    }
    if (shared === 0) return none;
    // A (region, cycle)'s paired value is its failure-share difference over the probes both were
    // sent; its sign, all the sign test reads, is that of the difference of failure counts.
    const diff = new Map<number, number>();
    const count = (fails: Int32Array, other: Uint32Array, sign: number): number => {
      let n = 0;
      for (let f = 0; f < fails.length; f++) {
        const g = fails[f] as number;
        const c = Math.floor(g / this.cycles);
        if (kept !== null && kept[c] !== 1) continue;
        if (!bitAt(other, c * W, g - c * this.cycles)) continue;
        const s = this.slotOf[g] as number;
        diff.set(s, (diff.get(s) ?? 0) + sign);
        n++;
      }
      return n;
    };
    const fa = count(pa.failures, pb.present, 1);
    const fb = count(pb.failures, pa.present, -1);
    const test = signTest(diff.values());
    const gap = round6(((fa - fb) / shared) * 100);
    // a fails more in most slots that differ (plus) and overall: b is the more reliable; and back.
    let moreReliable: string | null = null;
    if (test.pValue < SIGNIFICANCE && Math.abs(gap) > margin) {
      if (gap > 0 && test.plus > test.minus) moreReliable = b;
      else if (gap < 0 && test.minus > test.plus) moreReliable = a;
    }
    return { moreReliable, gap, test, sharedProbes: shared };
  }

  /**
   * A provider's outcomes as the verdict reads them: a presence bit per (cell, cycle), each cell's
   * cycles in words of their own, and the grid positions of its failures (few, where it matters).
   */
  private sparse(provider: string): SparseOutcomes | undefined {
    const hit = this.sparseOf.get(provider);
    if (hit) return hit;
    const grid = this.outcomes.get(provider);
    if (!grid) return undefined;
    const T = this.cycles;
    const words = Math.ceil(T / 32);
    const present = new Uint32Array(this.cellLabelsOf.length * words);
    const failures: number[] = [];
    for (let g = 0; g < grid.length; g++) {
      const x = grid[g] as number;
      if (x < 0) continue;
      const c = Math.floor(g / T);
      const k = g - c * T;
      const w = c * words + (k >>> 5);
      present[w] = ((present[w] as number) | (1 << (k & 31))) >>> 0;
      if (x === 0) failures.push(g);
    }
    const out = { words, present, failures: Int32Array.from(failures) };
    this.sparseOf.set(provider, out);
    return out;
  }

  /**
   * For each provider, the others significantly more reliable than it by more than the margin:
   * ranks count them first (fewest first), so a provider whose failures exceed another's never
   * ranks above it for speed alone. A count is the same in any order of evaluation.
   */
  lessReliableThan(providers: readonly string[], margin: number): Map<string, string[]> {
    const out = new Map<string, string[]>(providers.map((p) => [p, []]));
    for (let i = 0; i < providers.length; i++) {
      for (let j = i + 1; j < providers.length; j++) {
        const a = providers[i] as string;
        const b = providers[j] as string;
        const v = this.verdict(a, b, margin);
        if (v.moreReliable === a) out.get(b)?.push(a);
        else if (v.moreReliable === b) out.get(a)?.push(b);
      }
    }
    for (const list of out.values()) list.sort();
    return out;
  }
}
