import { evalPoint, evalStepMs } from '../core/eval-point.ts';
import { durationMs } from '../core/spec-schema.ts';
import type { FreshnessTracker } from './freshness.ts';
import type { PublicationContext } from './types.ts';

/** The group of views built from every benchmark (index, llm-context, featured, compare). */
export const ALL_BENCHMARKS = '__all__';

/**
 * Each live view's evaluation point (src/core/eval-point.ts), from the newest sample times the
 * freshness tracker keeps (read once, then moved by appends) and the publication's clock.
 */
export class EvalPoints {
  private readonly cadences: ReadonlyMap<string, number>;
  /** One benchmark per distinct grid step: the views of every benchmark stand at the latest point. */
  private readonly stepCadences: readonly number[];

  constructor(
    private readonly ctx: Pick<PublicationContext, 'specs' | 'clock'>,
    private readonly fresh: Pick<FreshnessTracker, 'newest' | 'newestOverall' | 'ensureLastSample'>,
  ) {
    this.cadences = new Map(ctx.specs.map((s) => [s.slug, durationMs(s.cadence)]));
    const bySteps = new Map<number, number>();
    for (const c of this.cadences.values()) bySteps.set(evalStepMs(c), c);
    this.stepCadences = [...bySteps.values()];
  }

  /** Resolves once the newest sample times are known; a store that cannot be read leaves them unknown. */
  async ready(): Promise<void> {
    await this.fresh.ensureLastSample().catch(() => undefined);
  }

  /** The point of one benchmark's live views. */
  of(slug: string): number {
    return evalPoint(this.fresh.newest(slug), this.ctx.clock(), this.cadences.get(slug) ?? 60_000);
  }

  /** The point of the views built from every benchmark: the latest of theirs. */
  ofAll(): number {
    const now = this.ctx.clock();
    let at = Number.NEGATIVE_INFINITY;
    for (const c of this.stepCadences) at = Math.max(at, evalPoint(this.fresh.newestOverall, now, c));
    return at;
  }

  /** The point of a view cache group: a benchmark's slug, or ALL_BENCHMARKS. */
  ofGroup(group: string): number {
    return group === ALL_BENCHMARKS ? this.ofAll() : this.of(group);
  }
}
