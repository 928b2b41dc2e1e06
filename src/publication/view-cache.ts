/**
 * Cached views with single-flight computation. An entry is dropped when its benchmark gets new
 * samples (exact invalidation). Past that, an entry stands for one evaluation time:
 * - with `pointOf` (live views, src/core/eval-point.ts), the entry computed at its group's point
 *   holds until that point moves, whatever the clock does inside a step;
 * - without it, an entry holds for `maxAgeMs` of the clock, because a live 24 h window slides
 *   even without new samples.
 * A computation that started before an invalidation is not stored, so a late result can never
 * resurrect stale data.
 *
 * An entry that only expired (its point moved, or it aged out within `staleMs`; no new samples
 * since) is still answered while its successor is computed in the background: views computed
 * together expire together, and at 1,000 benchmarks the last reader of such a wave waited 0.6 s
 * for the whole recompute. New samples never take this path: invalidation deletes the entry.
 */
export class ViewCache<T> {
  private readonly entries = new Map<string, { value: T; at: number; group: string }>();
  /** The key each stored value was stored under, so a value can be asked whether it is current. */
  private readonly keyOf = new WeakMap<object, string>();
  private readonly inflight = new Map<string, { promise: Promise<T>; gen: number; at: number }>();
  private readonly generations = new Map<string, number>();
  /** Keys per group, so invalidating one benchmark costs its own entries, not the whole cache. */
  private readonly byGroup = new Map<string, Set<string>>();

  constructor(
    private readonly maxAgeMs: number,
    private readonly clock: () => number,
    private readonly maxEntries = 5000,
    private readonly staleMs = 0,
    private readonly pointOf?: (group: string) => number,
  ) {}

  private epoch = 0;

  private gen(group: string): number {
    return (this.generations.get(group) ?? 0) + this.epoch * 1e9;
  }

  /** The evaluation time an entry of `group` computed now stands for. */
  private atNow(group: string): number {
    return this.pointOf ? this.pointOf(group) : this.clock();
  }

  private current(hit: { at: number; group: string }): boolean {
    return this.pointOf ? hit.at === this.pointOf(hit.group) : this.clock() - hit.at < this.maxAgeMs;
  }

  /** An expired entry that may still be answered while its successor is computed. */
  private servable(hit: { at: number }, at: number): boolean {
    return this.pointOf ? hit.at < at : at - hit.at < this.maxAgeMs + this.staleMs;
  }

  /** `compute` gets the evaluation time the entry will stand for (the point, or the clock). */
  get(key: string, group: string, compute: (at: number) => Promise<T>): Promise<T> {
    const hit = this.entries.get(key);
    if (hit && this.current(hit)) return Promise.resolve(hit.value);
    const at = this.atNow(group);
    const gen = this.gen(group);
    const stale = hit !== undefined && this.servable(hit, at) ? hit : undefined;
    const running = this.inflight.get(key);
    if (running && running.gen === gen && (!this.pointOf || running.at === at))
      return stale ? Promise.resolve(stale.value) : running.promise;
    const promise = compute(at).then(
      (value) => {
        if (this.inflight.get(key)?.promise === promise) this.inflight.delete(key);
        if (this.gen(group) === gen) {
          if (this.entries.size >= this.maxEntries) {
            this.entries.clear();
            this.byGroup.clear();
          }
          this.entries.set(key, { value, at, group });
          const keys = this.byGroup.get(group) ?? new Set<string>();
          this.byGroup.set(group, keys);
          keys.add(key);
          if (typeof value === 'object' && value !== null) this.keyOf.set(value, key);
        }
        return value;
      },
      (err: unknown) => {
        if (this.inflight.get(key)?.promise === promise) this.inflight.delete(key);
        throw err;
      },
    );
    this.inflight.set(key, { promise, gen, at });
    if (stale) {
      // The caller has its answer; a failed refresh is retried by the next request.
      promise.catch(() => undefined);
      return Promise.resolve(stale.value);
    }
    return promise;
  }

  /** Synchronous peek for the hot path; undefined when absent or expired. */
  peek(key: string): T | undefined {
    const hit = this.entries.get(key);
    return hit && this.current(hit) ? hit.value : undefined;
  }

  /**
   * True while `value` is the very entry `get` would return now: not invalidated, not expired, not
   * replaced. The HTTP hot path asks this before each answer it serves from stored bytes.
   */
  holds(value: object): boolean {
    const key = this.keyOf.get(value);
    if (key === undefined) return false;
    const hit = this.entries.get(key);
    return hit !== undefined && hit.value === value && this.current(hit);
  }

  invalidate(group: string): void {
    this.generations.set(group, (this.generations.get(group) ?? 0) + 1);
    const keys = this.byGroup.get(group);
    if (!keys) return;
    for (const k of keys) if (this.entries.get(k)?.group === group) this.entries.delete(k);
    this.byGroup.delete(group);
  }

  clear(): void {
    this.epoch++;
    this.entries.clear();
    this.byGroup.clear();
  }
}
