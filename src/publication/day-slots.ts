import { HARNESS_CYCLE_METRIC, REGION_LABEL } from '../core/metric-names.ts';
import { type DaySlots, daySlots, type PlanSeries, type SlotRef } from '../core/missing-slots.ts';
import type { Sample } from '../core/samples.ts';
import { durationMs } from '../core/spec-schema.ts';
import type { PublicationContext } from './types.ts';

/**
 * A backfill plan as the freezer reads it (the demo's, src/demo/backfill-plan.ts): the slots it
 * planned and gave up, and how far it reaches. After `end` the live rule applies.
 */
export interface SlotPlanView {
  within(
    from: number,
    until: number,
  ): { readonly planned: readonly SlotRef[]; readonly givenUp: readonly SlotRef[] };
  readonly end: number;
  /** Every (benchmark, region) the plan has and its newest planned slot: after it, expected at its cadence. */
  readonly series: readonly PlanSeries[];
}

/**
 * Where the expected slots come from: `live` (serve, serve --simulate: no plan), `pending` (the
 * demo before its plan is read: every closed day waits), or a plan.
 */
export type SlotExpectation = { readonly kind: 'live' } | { readonly kind: 'pending' } | SlotPlanView;

const refOf = (s: Sample): SlotRef => ({
  benchmark: s.labels.benchmark ?? '',
  region: s.labels[REGION_LABEL] || null,
  at: s.t,
});

/**
 * The closed day [start, end]'s slots per the freeze rule (src/core/missing-slots.ts), read from the
 * store's harness_cycle markers. null while a plan is pending.
 */
export async function readDaySlots(
  ctx: Pick<PublicationContext, 'store' | 'bySlug'>,
  expectation: SlotExpectation,
  start: number,
  end: number,
): Promise<DaySlots | null> {
  if ('kind' in expectation && expectation.kind === 'pending') return null;
  const plan = 'kind' in expectation ? null : expectation;
  const liveFrom = plan?.end ?? Number.NEGATIVE_INFINITY;
  const [markers, before] = await Promise.all([
    ctx.store.select({ metric: HARNESS_CYCLE_METRIC, after: start - 1, until: end }),
    liveFrom < start - 1
      ? ctx.store.latest({
          metric: HARNESS_CYCLE_METRIC,
          at: start - 1,
          ...(Number.isFinite(liveFrom) ? { notBefore: liveFrom } : {}),
        })
      : Promise.resolve([] as Sample[]),
  ]);
  const { planned, givenUp } = plan?.within(start, end) ?? { planned: [], givenUp: [] };
  return daySlots({
    start,
    end,
    cadenceOf: (slug) => {
      const spec = ctx.bySlug.get(slug);
      return spec ? durationMs(spec.cadence) : undefined;
    },
    markers: markers.map(refOf),
    seriesBefore: before.map(refOf),
    liveFrom,
    ...(plan ? { planSeries: plan.series } : {}),
    planned,
    givenUp,
  });
}
