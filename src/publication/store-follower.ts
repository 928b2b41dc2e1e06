import { HARNESS_CYCLE_METRIC } from '../core/family.ts';
import type { BenchmarkSpec } from '../core/spec-schema.ts';
import type { SampleStore } from '../store/sample-store.ts';
import { specMetrics } from './compute.ts';

/** How far back a replica looks for cycle markers: the writer's own resume window. */
const MARKER_LOOKBACK_MS = 15 * 86_400_000;

export interface FollowerDeps {
  readonly store: Pick<SampleStore, 'latest' | 'timeBounds'>;
  readonly specs: readonly BenchmarkSpec[];
  readonly clock: () => number;
  /** The newest sample time this process knows for a benchmark. */
  readonly newest: (slug: string) => number | undefined;
  /** What an append of these benchmarks' samples, from minT to maxT, does in the writer. */
  readonly applied: (slugs: ReadonlySet<string>, minT: number, maxT: number) => void;
  /** Reads the newest sample times once (before the first poll compares with them). */
  readonly known: () => Promise<void>;
  /** Reads the stored region values again (after a poll that found new cycles). */
  readonly loadDataValues: () => Promise<void>;
  /** The engine went down (a poll failed) or came back (one succeeded after). */
  readonly engineChanged: (down: boolean) => void;
}

/**
 * A replica's look at a store another process writes (issue 27 rule 3). One query reads the
 * newest `harness_cycle` marker of every (benchmark, region); a benchmark whose marker moved costs
 * one more, its time bounds, and is then applied as an append would be. So a poll costs
 * 1 + (benchmarks that changed) queries, whatever the number of views.
 */
export class StoreFollower {
  /** Newest marker time seen per benchmark and region. */
  private readonly markers = new Map<string, number>();

  private engineDown = false;

  constructor(private readonly deps: FollowerDeps) {}

  /** True while the last poll failed (issue 27 rule 4: a failed poll marks the engine down at once). */
  get down(): boolean {
    return this.engineDown;
  }

  /** One poll, and the engine's state it shows; rejects when the engine did not answer. */
  async follow(): Promise<ReadonlySet<string>> {
    let changed: ReadonlySet<string>;
    try {
      await this.deps.known();
      changed = await this.poll(this.deps.store);
    } catch (e) {
      this.setDown(true);
      throw e;
    }
    this.setDown(false);
    if (changed.size > 0) await this.deps.loadDataValues();
    return changed;
  }

  private setDown(down: boolean): void {
    if (down === this.engineDown) return;
    this.engineDown = down;
    this.deps.engineChanged(down);
  }

  /** Reads the store once; resolves to the benchmarks whose newest samples moved. */
  private async poll(store: FollowerDeps['store']): Promise<ReadonlySet<string>> {
    const now = this.deps.clock();
    const latest = await store.latest({
      metric: HARNESS_CYCLE_METRIC,
      at: now + 5 * 60_000,
      notBefore: now - MARKER_LOOKBACK_MS,
    });
    const moved = new Set<string>();
    for (const m of latest) {
      const benchmark = m.labels.benchmark;
      if (benchmark === undefined) continue;
      const key = `${benchmark}\u0000${m.labels.region ?? ''}`;
      if ((this.markers.get(key) ?? Number.NEGATIVE_INFINITY) >= m.t) continue;
      this.markers.set(key, m.t);
      moved.add(benchmark);
    }
    const changed = new Set<string>();
    for (const spec of this.deps.specs) {
      if (!moved.has(spec.slug)) continue;
      const bounds = await store.timeBounds(specMetrics(spec));
      if (bounds === null) continue;
      const known = this.deps.newest(spec.slug);
      if (known !== undefined && bounds.max <= known) continue;
      changed.add(spec.slug);
      // New samples lie after the newest known; on a first sight, the whole stored span.
      this.deps.applied(new Set([spec.slug]), known ?? bounds.min, bounds.max);
    }
    return changed;
  }
}
