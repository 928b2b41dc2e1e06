import { cellIdOf } from './rows.ts';
import type { Sample } from './samples.ts';
import { quantileSorted } from './stats.ts';

export interface PairedValues {
  /** One value per (region, cycle) both providers were measured in: the median over shared cells of a − b. */
  readonly diffs: number[];
  /** (cell, cycle) pairs both were measured on: the samples each side has in common. */
  readonly sharedSamples: number;
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
  const times = timeIndex.size;
  const regionIndex = new Map<string, number>();
  // cell → a's value at each interned time (NaN: a was not measured there), and the cell's region.
  const aAt = new Map<number, { readonly values: Float64Array; readonly region: number }>();
  for (const s of a) {
    const c = cellOf(s);
    let cell = aAt.get(c);
    if (!cell) {
      const r = s.labels.region ?? '';
      let region = regionIndex.get(r);
      if (region === undefined) {
        region = regionIndex.size;
        regionIndex.set(r, region);
      }
      cell = { values: new Float64Array(times).fill(Number.NaN), region };
      aAt.set(c, cell);
    }
    cell.values[timeIndex.get(s.t) as number] = s.v;
  }
  const slots = Math.max(1, regionIndex.size) * times;
  return (b) => {
    // (region, cycle) → the differences on that cycle's shared cells: the first in a typed array
    // (one cell per cycle is the common case, and allocates nothing per cycle), any more beside it.
    const first = new Float64Array(slots);
    const count = new Uint32Array(slots);
    let more: Map<number, number[]> | null = null;
    let sharedSamples = 0;
    for (const s of b) {
      const ti = timeIndex.get(s.t);
      if (ti === undefined) continue;
      const cell = aAt.get(cellOf(s));
      const av = cell?.values[ti];
      if (cell === undefined || av === undefined || Number.isNaN(av)) continue;
      sharedSamples++;
      const key = cell.region * times + ti;
      const d = av - s.v;
      const n = count[key] as number;
      count[key] = n + 1;
      if (n === 0) {
        first[key] = d;
        continue;
      }
      more ??= new Map();
      const ds = more.get(key);
      if (ds) ds.push(d);
      else more.set(key, [d]);
    }
    const diffs: number[] = [];
    for (let key = 0; key < slots; key++) {
      const n = count[key] as number;
      if (n === 0) continue;
      const d0 = first[key] as number;
      if (n === 1) {
        diffs.push(d0);
        continue;
      }
      const ds = [d0, ...(more?.get(key) ?? [])].sort((x, y) => x - y);
      diffs.push(quantileSorted(ds, 0.5));
    }
    return { diffs, sharedSamples };
  };
}
