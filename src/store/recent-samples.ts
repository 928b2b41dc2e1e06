import { upperBound } from '../core/stats.ts';

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
interface Column {
  readonly t: number[];
  readonly v: number[];
}

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
      c = { t: [], v: [] };
      this.columns.set(id, c);
    }
    c.t.push(t);
    c.v.push(v);
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
      const last = c?.t[c.t.length - 1];
      if (!c || last === undefined || t > last) {
        this.push(id, t, v);
        continue;
      }
      const i = upperBound(c.t, t);
      if (c.t[i - 1] === t) continue;
      c.t.splice(i, 0, t);
      c.v.splice(i, 0, v);
    }
    this.trim();
  }

  private trim(): void {
    if (this.horizonMs <= 0) return;
    const target = this.newest - this.horizonMs;
    if (target - this.floorT < this.horizonMs / 4) return;
    this.floorT = target;
    for (const [id, c] of this.columns) {
      const k = upperBound(c.t, target);
      if (k === c.t.length) this.columns.delete(id);
      else if (k > 0) {
        c.t.splice(0, k);
        c.v.splice(0, k);
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
  range(id: number, after: number, until: number): { t: number[]; v: number[] } | null {
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
  ): { t: readonly number[]; v: readonly number[]; from: number; to: number } | null {
    if (after < this.floorT) return null;
    const c = this.columns.get(id);
    if (!c) return { t: [], v: [], from: 0, to: 0 };
    return { t: c.t, v: c.v, from: upperBound(c.t, after), to: upperBound(c.t, until) };
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
    const i = c ? upperBound(c.t, at) - 1 : -1;
    const t = i >= 0 ? (c?.t[i] as number) : undefined;
    // Everything above the floor is held, so a held sample above it is the newest there is.
    if (t !== undefined && t > this.floorT) return t > notBefore ? { t, v: c?.v[i] as number } : undefined;
    return notBefore >= this.floorT ? undefined : null;
  }
}
