import { within, withinDeadline } from '../concurrency/deadline.ts';
import { HARNESS_CYCLE_METRIC, MARKER_AHEAD_MS, MARKER_LOOKBACK_MS } from '../core/family.ts';
import type { BenchmarkSpec } from '../core/spec-schema.ts';
import type { SampleStore } from '../store/sample-store.ts';
import { specMetrics } from './compute.ts';
import { POLL_DEADLINE_MS } from './engine-deadlines.ts';

export { POLL_DEADLINE_MS } from './engine-deadlines.ts';

export interface FollowerDeps {
  readonly store: Pick<SampleStore, 'latest' | 'timeBounds'>;
  readonly specs: readonly BenchmarkSpec[];
  readonly clock: () => number;
  /** The newest sample time this process knows for a benchmark. */
  readonly newest: (slug: string) => number | undefined;
  /** What an append of these benchmarks' samples, from minT to maxT, does in the writer. */
  readonly applied: (slugs: ReadonlySet<string>, minT: number, maxT: number) => void;
  /**
   * Reads the newest sample times once, through `reads` (before the first poll compares with them:
   * times read later, never applied, would hide the samples they stand for).
   */
  readonly known: (reads: Pick<SampleStore, 'timeBounds'>) => Promise<void>;
  /** Reads the stored region values again (after a poll that found a new (benchmark, region)). */
  readonly loadDataValues: () => Promise<void>;
  /** The engine went down (a poll failed) or came back (one succeeded after). */
  readonly engineChanged: (down: boolean) => void;
  /** Each read's deadline (POLL_DEADLINE_MS unless a test sets it). */
  readonly deadlineMs?: number;
}

/**
 * A replica's look at a store another process writes (issue 27 rule 3). One query reads the
 * newest `harness_cycle` marker of every (benchmark, region); a benchmark whose marker moved costs
 * one more, its time bounds, and is then applied as an append would be. So a poll costs
 * 1 + (benchmarks that changed) queries, whatever the number of views, plus one series read per
 * region-valued metric when a (benchmark, region) appears for the first time.
 */
export class StoreFollower {
  /** Newest marker time seen per benchmark and region. */
  private readonly markers = new Map<string, number>();

  private engineDown = false;
  /** A (benchmark, region) marker first seen since region values were last read. */
  private newRegion = false;
  /** Whether a poll ever answered. Until one does, a replica's views do not read the engine. */
  private confirmed = false;

  constructor(private readonly deps: FollowerDeps) {}

  /** True while the last poll failed (issue 27 rule 4: a failed poll marks the engine down at once). */
  get down(): boolean {
    return this.engineDown;
  }

  /**
   * One poll, and the engine's state it shows; rejects when the engine did not answer. While the
   * engine is down, `beforeUp` (a replica that started without its engine: the origin check) runs
   * once it answers and before any view may read it; its failure keeps the engine down.
   */
  follow(beforeUp?: () => Promise<void>): Promise<ReadonlySet<string>> {
    // A replica's first poll decides whether the engine is there: until it answers (and
    // `beforeUp` passed), views read nothing from it. Set before the first await, so a replica
    // that starts its first poll and is ready at once never sends a request to an engine that
    // may be down (its frozen days come from SNAPSHOT_DIR). Silent: no view exists to drop yet.
    if (!this.confirmed) this.engineDown = true;
    return this.pollOnce(beforeUp);
  }

  private async pollOnce(beforeUp?: () => Promise<void>): Promise<ReadonlySet<string>> {
    let changed: ReadonlySet<string>;
    const deadlineMs = this.deps.deadlineMs ?? POLL_DEADLINE_MS;
    // Bounded, and never a failed poll: without the newest times a moved benchmark is applied whole.
    // Read from the engine, not through the views' gate, which stays closed until this poll answers.
    const reads = this.deps.store;
    await within(
      this.deps.known({ timeBounds: (m) => withinDeadline(reads.timeBounds(m), deadlineMs, 'the engine') }),
      deadlineMs,
    );
    try {
      changed = await this.poll(this.deps.store, deadlineMs);
      if (this.engineDown) await beforeUp?.();
    } catch (e) {
      this.setDown(true);
      throw e;
    }
    const firstAnswer = !this.confirmed;
    this.confirmed = true;
    this.setDown(false);
    // Region values come with a region's first cycle: read again only when a (benchmark, region)
    // marker appears that was never seen (a series read per metric, ~11 queries here, not per poll),
    // and on the first poll that answers (a replica's start-up read failed at the closed gate).
    if (this.newRegion || firstAnswer) {
      this.newRegion = false;
      await this.deps.loadDataValues();
    }
    return changed;
  }

  /**
   * A view's engine read missed its deadline: down until the next poll answers, so the other reads
   * fail at once. Only in a replica that polls (a writer's API never polls, so it would stay down).
   */
  markDown(): void {
    if (this.confirmed) this.setDown(true);
  }

  private setDown(down: boolean): void {
    if (down === this.engineDown) return;
    this.engineDown = down;
    this.deps.engineChanged(down);
  }

  /** Reads the store once; resolves to the benchmarks whose newest samples moved. */
  private async poll(store: FollowerDeps['store'], deadlineMs: number): Promise<ReadonlySet<string>> {
    const now = this.deps.clock();
    // The liveness check: the engine's client retries for up to ~42 s, so this one read has a
    // deadline of its own and the replica turns degraded within it.
    const latest = await withinDeadline(
      store.latest({
        metric: HARNESS_CYCLE_METRIC,
        at: now + MARKER_AHEAD_MS,
        notBefore: now - MARKER_LOOKBACK_MS,
      }),
      deadlineMs,
      'the engine',
    );
    const moved = new Map<string, Array<[key: string, t: number]>>();
    for (const m of latest) {
      const benchmark = m.labels.benchmark;
      if (benchmark === undefined) continue;
      const key = `${benchmark}\u0000${m.labels.region ?? ''}`;
      if ((this.markers.get(key) ?? Number.NEGATIVE_INFINITY) >= m.t) continue;
      if (!this.markers.has(key)) this.newRegion = true;
      moved.set(benchmark, [...(moved.get(benchmark) ?? []), [key, m.t]]);
    }
    const changed = new Set<string>();
    for (const spec of this.deps.specs) {
      const markers = moved.get(spec.slug);
      if (!markers) continue;
      // Each read of the poll has the deadline: a poll must not hang with the engine and report it up.
      const bounds = await withinDeadline(store.timeBounds(specMetrics(spec)), deadlineMs, 'the engine');
      const known = this.deps.newest(spec.slug);
      if (bounds !== null && (known === undefined || bounds.max > known)) {
        changed.add(spec.slug);
        // New samples lie after the newest known; on a first sight, the whole stored span.
        this.deps.applied(new Set([spec.slug]), known ?? bounds.min, bounds.max);
      }
      // Recorded once applied: a poll cut short reads the benchmark again next time.
      for (const [key, t] of markers) this.markers.set(key, t);
    }
    return changed;
  }
}
