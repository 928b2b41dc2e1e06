import type { Freshness } from '../core/api-schemas.ts';
import { durationMs } from '../core/spec-schema.ts';
import { isStale } from '../core/stat.ts';
import { specMetrics } from './compute.ts';
import { guarded } from './store-guard.ts';
import type { PublicationContext } from './types.ts';

/** Newest sample time per benchmark, kept from appends so freshness never queries the store. */
export class FreshnessTracker {
  private readonly lastSample = new Map<string, number>();
  private ready: Promise<void> | undefined;
  private known = false;
  private changes = 0;
  private newestOf: number | undefined;

  constructor(private readonly ctx: Pick<PublicationContext, 'specs' | 'store' | 'clock'>) {}

  /** Bumped whenever a newest sample time changes (what /api/freshness shows besides the clock). */
  get version(): number {
    return this.changes;
  }

  /** An append wrote samples up to `maxT` for these benchmarks. */
  noteSamples(slugs: ReadonlySet<string>, maxT: number): void {
    for (const s of slugs) this.lastSample.set(s, Math.max(this.lastSample.get(s) ?? maxT, maxT));
    this.newestOf = Math.max(this.newestOf ?? maxT, maxT);
    this.changes++;
  }

  /** The newest sample time known of any benchmark, kept as they come (the index's point asks it per replay). */
  get newestOverall(): number | undefined {
    return this.newestOf;
  }

  /** The newest sample time known for a benchmark (undefined: none, or not read yet). */
  newest(slug: string): number | undefined {
    return this.lastSample.get(slug);
  }

  /**
   * Resolves once the newest sample times were read from the store (once per process); `store`,
   * when given, is the one to read them through (a replica's poll: the engine, bounded).
   */
  ensureLastSample(store: Pick<PublicationContext['store'], 'timeBounds'> = this.ctx.store): Promise<void> {
    this.ready ??= guarded(async () => {
      for (const spec of this.ctx.specs) {
        const b = await store.timeBounds(specMetrics(spec));
        if (b) {
          this.lastSample.set(spec.slug, Math.max(this.lastSample.get(spec.slug) ?? b.max, b.max));
          this.newestOf = Math.max(this.newestOf ?? b.max, b.max);
        }
      }
      this.known = true;
      this.changes++;
    }).catch((e: unknown) => {
      this.ready = undefined;
      throw e;
    });
    return this.ready;
  }

  /**
   * Every benchmark with data keeps its newest sample time in `freshness` (stale ones included);
   * `status` says for each whether it is stale (the Stat's rule, `isStale`) or a draft (never
   * measured). `now` and the ages are per request; the store is read once per process.
   */
  async freshness(): Promise<Freshness> {
    await this.ensureLastSample();
    return this.freshnessNow();
  }

  /** /api/freshness without a promise once the newest sample times are known; else undefined. */
  peek(): Freshness | undefined {
    return this.known ? this.freshnessNow() : undefined;
  }

  private freshnessNow(): Freshness {
    const now = this.ctx.clock();
    const freshness: Record<string, number> = {};
    const status: Freshness['status'] = {};
    for (const spec of this.ctx.specs) {
      const last = this.lastSample.get(spec.slug);
      if (last === undefined) {
        status[spec.slug] = { lastSampleAt: null, ageSeconds: null, stale: false, draft: true };
        continue;
      }
      freshness[spec.slug] = last;
      status[spec.slug] = {
        lastSampleAt: new Date(last).toISOString(),
        ageSeconds: Math.max(0, Math.floor((now - last) / 1000)),
        stale: isStale(last, now, durationMs(spec.cadence)),
        draft: false,
      };
    }
    return { now, freshness, status };
  }
}
