import { cellIdOf } from './rows.ts';
import type { Sample } from './samples.ts';
import { quantileSorted } from './stats.ts';

export interface PairedValues {
  /** One value per (region, cycle) both providers were measured in: the median over shared cells of a − b. */
  readonly diffs: number[];
  /** (cell, cycle) pairs both were measured on: the samples each side has in common. */
  readonly sharedSamples: number;
  /** a's and b's values on those shared pairs, side by side (index i is one pair): Δ's samples. */
  readonly a: Float64Array;
  readonly b: Float64Array;
  /**
   * True when no provider can have two samples on one (cell, cycle) (each of its series has a
   * cell of its own, and its times ascend): then shared samples as many as a side's row counts
   * are exactly that row's samples.
   */
  readonly unique?: boolean;
}

/**
 * The paired values of a against b, one per cycle. The cells of one cycle share the provider's
 * state (one outage, one network path), so they are not independent observations: for each (region,
 * cycle) where both were measured on a common cell, the value is the median (quantileSorted) over
 * those cells of a − b. A sample's cell is its `cellLabels` values and region, its cycle its time.
 */
export function pairedCycleDiffs(
  a: readonly Sample[],
  b: readonly Sample[],
  cellLabels: readonly string[],
): PairedValues {
  return pairedAgainst(a, cellLabels)(b);
}

/**
 * pairedCycleDiffs with a's side indexed once: the leader is paired with every row below it, and a
 * day of 1-minute RPC samples is 65k values per provider. a's cycle times are interned to small
 * integers once, so pairing one of b's samples costs one lookup of its time and array reads, and a
 * (region, cycle) is one integer key (a cell belongs to one region).
 */
export function pairedAgainst(
  a: readonly Sample[],
  cellLabels: readonly string[],
): (b: readonly Sample[]) => PairedValues {
  const cellOf = cellIdOf(cellLabels);
  const timeIndex = new Map<number, number>();
  for (const s of a) if (!timeIndex.has(s.t)) timeIndex.set(s.t, timeIndex.size);
  return pairedAgainstBy(a, {
    cycles: timeIndex.size,
    cycle: (s) => timeIndex.get(s.t),
    cell: cellOf,
    region: (s) => s.labels.region ?? '',
    v: (s) => s.v,
  });
}

/**
 * How pairedAgainstBy reads a sample, whatever holds it (a Sample object, or an index into columns:
 * core/window-columns.ts, whose cycles are interned once per view).
 */
export interface PairAccess<S> {
  /** Cycles are numbered 0 … cycles − 1: one per distinct time, at least every time of a's. */
  readonly cycles: number;
  /** The sample's cycle; undefined for a time a has no sample at. */
  cycle(s: S): number | undefined;
  /** The sample's cell (its cell labels and region) as a small integer (rows.ts cellIdOf). */
  cell(s: S): number;
  region(s: S): string;
  v(s: S): number;
}

/** pairedAgainst over any holder of the samples (PairAccess): the pairing's one rule. */
export function pairedAgainstBy<S>(a: readonly S[], x: PairAccess<S>): (b: readonly S[]) => PairedValues {
  const times = x.cycles;
  const regionIndex = new Map<string, number>();
  // cell → a's value at each interned time (NaN: a was not measured there), and the cell's region.
  const aAt = new Map<number, { readonly values: Float64Array; readonly region: number }>();
  for (const s of a) {
    const c = x.cell(s);
    let cell = aAt.get(c);
    if (!cell) {
      const r = x.region(s);
      let region = regionIndex.get(r);
      if (region === undefined) {
        region = regionIndex.size;
        regionIndex.set(r, region);
      }
      cell = { values: new Float64Array(times).fill(Number.NaN), region };
      aAt.set(c, cell);
    }
    cell.values[x.cycle(s) as number] = x.v(s);
  }
  const slots = Math.max(1, regionIndex.size) * times;
  return (b) => {
    // Two passes over b: each (region, cycle)'s count of shared cells, then its differences placed
    // side by side in one array, so a cycle's several cells (RPC: 15 a region) need no Map entry
    // and no array of their own.
    const keyOf = new Int32Array(b.length).fill(-1);
    const diffOf = new Float64Array(b.length);
    const aOf = new Float64Array(b.length);
    const bOf = new Float64Array(b.length);
    const start = new Uint32Array(slots + 1);
    let sharedSamples = 0;
    // b's samples of one cell come together (a store reads series by series): its lookup once per run.
    let lastCell = Number.NaN;
    let cell: { readonly values: Float64Array; readonly region: number } | undefined;
    for (let j = 0; j < b.length; j++) {
      const s = b[j] as S;
      const ti = x.cycle(s);
      if (ti === undefined) continue;
      const c = x.cell(s);
      if (c !== lastCell) {
        cell = aAt.get(c);
        lastCell = c;
      }
      const av = cell?.values[ti];
      if (cell === undefined || av === undefined || Number.isNaN(av)) continue;
      const bv = x.v(s);
      aOf[sharedSamples] = av;
      bOf[sharedSamples] = bv;
      sharedSamples++;
      const key = cell.region * times + ti;
      keyOf[j] = key;
      diffOf[j] = av - bv;
      start[key + 1] = (start[key + 1] as number) + 1;
    }
    for (let key = 0; key < slots; key++)
      start[key + 1] = (start[key + 1] as number) + (start[key] as number);
    const placed = new Float64Array(sharedSamples);
    const at = start.slice(0, slots);
    for (let j = 0; j < b.length; j++) {
      const key = keyOf[j] as number;
      if (key < 0) continue;
      const k = at[key] as number;
      at[key] = k + 1;
      placed[k] = diffOf[j] as number;
    }
    const diffs: number[] = [];
    for (let key = 0; key < slots; key++) {
      const from = start[key] as number;
      const to = start[key + 1] as number;
      if (to === from) continue;
      if (to - from === 1) diffs.push(placed[from] as number);
      else diffs.push(quantileSorted(placed.subarray(from, to).sort(), 0.5));
    }
    return { diffs, sharedSamples, a: aOf.slice(0, sharedSamples), b: bOf.slice(0, sharedSamples) };
  };
}
