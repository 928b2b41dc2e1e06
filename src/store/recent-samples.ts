/**
 * The recent tail of every series, in memory, beside the DuckDB table: every stored sample newer
 * than `floor` is held here, per series id, sorted by time, so the reads every live view makes
 * (latest value, the last 24–72 h) never scan the table. The samples table has no index a range
 * read can use (DuckDB scans it whole, filtered by series id), so each read cost grew with the
 * whole catalogue: at 1,000 benchmarks × 20 providers × 24 h (1.5M rows) a latest read took 13 ms
 * and a 48 h select 7 ms, so a full recompute of 1,000 Stats grew as N² (31 s). Per-series time
 * bounds (oldest and newest sample) are kept for every series, however old.
 *
 * It mirrors the table exactly: it is filled from the table at open, and after an append commits
 * it takes the rows the append stored (a timestamp already held keeps its value, as INSERT OR
 * IGNORE does). A read it cannot answer (a range starting at or before `floor`) goes to SQL.
 */
/**
 * One series' tail: times and values in typed arrays, the first `n` slots used, grown by half again
 * when full. A packed read copies a range out with one `set` per series (memcpy) instead of a loop
 * over JS arrays: a live Stat's 48 h read of the json-rpc family is a million samples, and copying
 * them element by element held the event loop tens of milliseconds.
 */
interface Column {
  t: Float64Array;
  v: Float64Array;
  n: number;
}

const FIRST_CAPACITY = 16;

export class RecentSamples {
  private readonly columns = new Map<number, Column>();
  private readonly bounds = new Map<number, { min: number; max: number }>();
  /** Every stored sample with t > floor is held (older ones may be, until the next trim). */
  private floorT: number;
  private newest = Number.NEGATIVE_INFINITY;

  /**
   * `horizonMs`: how far behind the newest sample the tail reaches (0: no tail, bounds only).
   * Trimming waits until the floor can move by a quarter of it, so it runs a few times a day.
   */
  constructor(readonly horizonMs: number) {
    this.floorT = horizonMs > 0 ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  }

  get floor(): number {
    return this.floorT;
  }

  /** Where the tail should start once the table's newest sample is `newest` (load at open). */
  floorFor(newest: number): number {
    return this.horizonMs > 0 ? newest - this.horizonMs : Number.POSITIVE_INFINITY;
  }

  /** At open, first: every series' oldest and newest sample, and where the tail starts. */
  loadBounds(bounds: Iterable<readonly [id: number, min: number, max: number]>, floor: number): void {
    for (const [id, min, max] of bounds) {
      this.bounds.set(id, { min, max });
      this.newest = Math.max(this.newest, max);
    }
    this.floorT = floor;
  }

  /** At open, then: the tail above the floor, in chunks ordered by series id, then time. */
  loadTail(ids: readonly number[], ts: readonly number[], vs: readonly number[]): void {
    for (let i = 0; i < ids.length; i++) this.push(ids[i] as number, ts[i] as number, vs[i] as number);
  }

  private push(id: number, t: number, v: number): void {
    let c = this.columns.get(id);
    if (!c) {
      c = { t: new Float64Array(FIRST_CAPACITY), v: new Float64Array(FIRST_CAPACITY), n: 0 };
      this.columns.set(id, c);
    }
    reserve(c, c.n + 1);
    c.t[c.n] = t;
    c.v[c.n] = v;
    c.n++;
  }

  /** After an append committed: the rows it offered (one per series and time); duplicates keep the stored value. */
  add(rows: Iterable<readonly [id: number, t: number, v: number]>): void {
    for (const [id, t, v] of rows) {
      const b = this.bounds.get(id);
      if (b) {
        b.min = Math.min(b.min, t);
        b.max = Math.max(b.max, t);
      } else this.bounds.set(id, { min: t, max: t });
      this.newest = Math.max(this.newest, t);
      if (t <= this.floorT) continue;
      const c = this.columns.get(id);
      if (!c || c.n === 0 || t > (c.t[c.n - 1] as number)) {
        this.push(id, t, v);
        continue;
      }
      const i = upperBoundIn(c.t, c.n, t);
      if (c.t[i - 1] === t) continue;
      reserve(c, c.n + 1);
      c.t.copyWithin(i + 1, i, c.n);
      c.v.copyWithin(i + 1, i, c.n);
      c.t[i] = t;
      c.v[i] = v;
      c.n++;
    }
    this.trim();
  }

  private trim(): void {
    if (this.horizonMs <= 0) return;
    const target = this.newest - this.horizonMs;
    if (target - this.floorT < this.horizonMs / 4) return;
    this.floorT = target;
    for (const [id, c] of this.columns) {
      const k = upperBoundIn(c.t, c.n, target);
      if (k === c.n) this.columns.delete(id);
      else if (k > 0) {
        c.t.copyWithin(0, k, c.n);
        c.v.copyWithin(0, k, c.n);
        c.n -= k;
      }
    }
  }

  /** Oldest and newest sample over these series; null when none has a sample. */
  timeBounds(ids: Iterable<number>): { min: number; max: number } | null {
    let min = Number.POSITIVE_INFINITY;
    let max = Number.NEGATIVE_INFINITY;
    for (const id of ids) {
      const b = this.bounds.get(id);
      if (!b) continue;
      min = Math.min(min, b.min);
      max = Math.max(max, b.max);
    }
    return min === Number.POSITIVE_INFINITY ? null : { min, max };
  }

  /** Samples with after < t <= until of one series, or null when the tail does not cover `after`. */
  range(id: number, after: number, until: number): { t: Float64Array; v: Float64Array } | null {
    const r = this.rangeIn(id, after, until);
    return r && { t: r.t.slice(r.from, r.to), v: r.v.slice(r.from, r.to) };
  }

  /**
   * range's samples as [from, to) of the series' own arrays, not copied: for a caller that copies
   * them at once (a packed read). The arrays change with the next append or trim.
   */
  rangeIn(
    id: number,
    after: number,
    until: number,
  ): { t: Float64Array; v: Float64Array; from: number; to: number } | null {
    if (after < this.floorT) return null;
    const c = this.columns.get(id);
    if (!c) return { t: EMPTY, v: EMPTY, from: 0, to: 0 };
    return { t: c.t, v: c.v, from: upperBoundIn(c.t, c.n, after), to: upperBoundIn(c.t, c.n, until) };
  }

  /**
   * The newest sample of one series with notBefore < t <= at; undefined when there is none; null
   * when only the table can tell (it may be older than the tail).
   */
  latest(
    id: number,
    at: number,
    notBefore = Number.NEGATIVE_INFINITY,
  ): { t: number; v: number } | undefined | null {
    const b = this.bounds.get(id);
    if (!b || b.min > at || b.max <= notBefore) return undefined;
    const c = this.columns.get(id);
    const i = c ? upperBoundIn(c.t, c.n, at) - 1 : -1;
    const t = i >= 0 ? (c?.t[i] as number) : undefined;
    // Everything above the floor is held, so a held sample above it is the newest there is.
    if (t !== undefined && t > this.floorT) return t > notBefore ? { t, v: c?.v[i] as number } : undefined;
    return notBefore >= this.floorT ? undefined : null;
  }
}

const EMPTY = new Float64Array(0);

/** Room for `size` samples in the column, growing its arrays by half again (at least to `size`). */
function reserve(c: Column, size: number): void {
  if (size <= c.t.length) return;
  const cap = Math.max(size, Math.ceil(c.t.length * 1.5));
  const t = new Float64Array(cap);
  const v = new Float64Array(cap);
  t.set(c.t.subarray(0, c.n));
  v.set(c.v.subarray(0, c.n));
  c.t = t;
  c.v = v;
}

/** Index of the first of a[0 … n) greater than `x` (n when none is): a's first n ascend. */
function upperBoundIn(a: Float64Array, n: number, x: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((a[mid] as number) <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
