import { type BenchmarkSpec, durationMs } from '../core/spec-schema.ts';
import { familyNamed } from '../harness/families/index.ts';
import { providerUnion } from '../harness/families/union.ts';
import type { Clock } from '../harness/types.ts';
import type { FaultSetting } from '../sim/faults.ts';
import { pickProviders } from '../sim/profiles.ts';
import { DEMO_REGIONS } from '../sim/rpc/index.ts';
import { type BackfillPlan, newPlan, type PlanFamily, pendingRuns } from './backfill-plan.ts';
import { REGIONAL_FAMILY, RPC_BACKFILL_MS, RPC_BACKFILL_STEP_MS } from './rpc-demo.ts';

// The demo's incidents and the slot grid its backfill plan is made of (src/demo/harness-demo.ts).

/**
 * Provider incidents replayed during the backfill, so the demo shows the failure handling: hours
 * before `now` and the fault set for cycles in that span. Which provider suffers each one is drawn
 * from the seed (src/sim/profiles.ts), like every other behaviour of the simulated providers.
 */
export function demoIncidents(
  seed: number,
  specs: readonly BenchmarkSpec[],
): Array<{ from: number; to: number; provider: string; fault: FaultSetting }> {
  // Each family's probe asks the union of its benchmarks' providers: the incidents pick from that.
  const of = (family: string) => providerUnion(specs.filter((s) => s.family === family)).map((p) => p.slug);
  const [outage, refused] = pickProviders(seed, of('trade-capture'), 2, 11);
  // A different provider from the two above: one fault per provider at a time.
  const [limited] = pickProviders(
    seed,
    of('chain-listing').filter((p) => p !== outage && p !== refused),
    1,
    12,
  );
  return [
    // 503 for two hours: four 30-minute cycles, so it is marked unresponsive, then recovers.
    ...(outage
      ? [{ from: 40, to: 38, provider: outage, fault: { kind: 'status', status: 503 } as const }]
      : []),
    // One listing refresh rate-limited: fetch_errors_total rises, the last count stands.
    ...(limited
      ? [
          {
            from: 30.5,
            to: 29.5,
            provider: limited,
            fault: { kind: 'status', status: 429, retryAfterSec: 0 } as const,
          },
        ]
      : []),
    // A key refused for one cycle: no capture samples, left out of the baseline.
    ...(refused
      ? [{ from: 20, to: 19.5, provider: refused, fault: { kind: 'status', status: 401 } as const }]
      : []),
  ];
}

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
/**
 * Real time each catch-up after the backfill may take: at DEMO_SPEED=1 it is a slot or two; past
 * ~1000 the json-rpc family's (building the chains) is slower than their clock, and past a few
 * thousand so is a trade cycle, so it would never end. What it leaves is the live rule's (missing).
 */
export const CATCH_UP_BUDGET_MS = 15_000;
/** The json-rpc family's last minutes are caught up at its cadence only when this few. */
export const RPC_CADENCE_CATCH_UP_MAX = 15;

/** Groups the runnable specs by family, in spec order: one plan family each. */
export function familiesOf(specs: readonly BenchmarkSpec[]): Map<string, BenchmarkSpec[]> {
  const out = new Map<string, BenchmarkSpec[]>();
  for (const spec of specs) {
    if (!familyNamed(spec.family)) continue;
    const list = out.get(spec.family) ?? [];
    list.push(spec);
    out.set(spec.family, list);
  }
  return out;
}

/**
 * The families the demo plans: each one run once per slot without a region (`region`: the
 * operator's HARNESS_REGION), every `days` back; the json-rpc family in each demo region, 5-minute
 * steps of its own window (6 h, at most `days`).
 */
export function planFamilies(
  specs: readonly BenchmarkSpec[],
  o: { readonly days: number; readonly region?: string | null; readonly rpcBackfillMs?: number },
): PlanFamily[] {
  const out: PlanFamily[] = [];
  for (const [name, list] of familiesOf(specs)) {
    const cadenceMs = durationMs(list[0]?.cadence ?? '1h');
    const benchmarks = list.map((s) => s.slug);
    if (name === REGIONAL_FAMILY) {
      out.push({
        name,
        benchmarks,
        regions: DEMO_REGIONS,
        cadenceMs,
        stepMs: RPC_BACKFILL_STEP_MS,
        windowMs: Math.min(o.rpcBackfillMs ?? RPC_BACKFILL_MS, o.days * DAY),
        windowFromSlot: true,
      });
    } else {
      out.push({
        name,
        benchmarks,
        regions: [o.region ?? null],
        cadenceMs,
        stepMs: cadenceMs,
        windowMs: o.days * DAY,
      });
    }
  }
  return out;
}

/**
 * Every aligned slot in (now − days, now] for each runnable benchmark, in time order: one per
 * family (the first of its benchmarks), since one probe serves every benchmark of a family. The
 * cycles a new plan runs (src/demo/backfill-plan.ts).
 */
export function backfillSlots(
  specs: readonly BenchmarkSpec[],
  benchmarks: readonly string[],
  now: number,
  days: number,
): Array<{ benchmark: string; at: number }> {
  const own = specs.filter((s) => benchmarks.includes(s.slug) && s.family !== REGIONAL_FAMILY);
  const families = planFamilies(own, { days });
  const plan = newPlan(families, { seed: 0, days, now });
  return pendingRuns(plan, families, () => false).map((r) => ({ benchmark: r.benchmark, at: r.at }));
}

/** Resolves after `ms` of the clock's time (0 or less: at once). */
export function sleepOn(clock: Clock, ms: number): Promise<void> {
  return new Promise((r) => {
    if (ms <= 0) r();
    else clock.setTimeout(r, ms);
  });
}

/** The newest slot a plan has of each family (the catch-up's grid continues from it). */
export function newestPlanned(plan: BackfillPlan, f: PlanFamily): number | null {
  let t: number | null = null;
  for (const s of plan.slots) if (f.benchmarks.includes(s.benchmark) && (t === null || s.at > t)) t = s.at;
  return t;
}

/**
 * The catch-up's budget, rounds taken whole or not at all (a round's slots are planned, and every
 * planned slot runs): a round whose cycles, at the last cycle's pace, would end past the budget is
 * refused and left to the live rule. On a busy machine a cycle once took 6 s, two trade slots at
 * DEMO_SPEED=600, so rounds that were only checked between them never ended.
 */
export function catchUpPace(budgetMs: number): {
  open(): boolean;
  fits(due: readonly unknown[]): boolean;
  readonly refused: boolean;
  timed(run: () => Promise<void>): Promise<void>;
} {
  const end = Date.now() + budgetMs;
  let cycleMs = 0;
  let refused = false;
  return {
    open: () => Date.now() < end,
    fits: (due) => {
      refused = Date.now() + due.length * cycleMs > end;
      return !refused;
    },
    get refused() {
      return refused;
    },
    async timed(run) {
      const started = Date.now();
      await run();
      cycleMs = Date.now() - started;
    },
  };
}
