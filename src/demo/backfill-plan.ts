import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { HARNESS_CYCLE_METRIC, REGION_LABEL } from '../core/metric-names.ts';
import { compareSlots, type PlanSeries, type SlotRef } from '../core/missing-slots.ts';
import type { SlotPlanView } from '../publication/day-slots.ts';
import type { SampleStore } from '../store/sample-store.ts';
import { writeAtomically } from './demo-clock.ts';

/**
 * The demo's backfill as a plan that survives a crash (issue 26). Before its first cycle the demo
 * writes DATA_DIR/backfill-plan.json: the seed, the days and every (benchmark, region, slot) it will
 * run. A start on a DATA_DIR with a plan resumes it: slots with a harness_cycle marker are skipped
 * (a failed cycle's marker too), the rest run. The plan is then extended to the restart's now, so
 * the downtime's slots are backfilled too, at most each family's window back; older slots nobody
 * tried are given up (`missing`) and published with their frozen day as missingSlots.
 */
export const BACKFILL_PLAN_FILE = 'backfill-plan.json';

/** One family as the plan schedules it. */
export interface PlanFamily {
  readonly name: string;
  /** Its benchmarks the demo runs: one probe serves them all, each writes its own marker. */
  readonly benchmarks: readonly string[];
  /** Regions it runs in (null: a harness without HARNESS_REGION). */
  readonly regions: readonly (string | null)[];
  /** The family's cadence: a plan ends at the newest slot of it at or before now. */
  readonly cadenceMs: number;
  /** Spacing of its planned slots (the cadence; 5 min for the json-rpc family's 1-minute one). */
  readonly stepMs: number;
  /** How far back a plan reaches: the demo's days; the json-rpc family's 6 h. */
  readonly windowMs: number;
  /** The window counts back from the newest slot rather than from now (the json-rpc demo's). */
  readonly windowFromSlot?: boolean;
}

export interface BackfillPlan {
  readonly seed: number;
  readonly days: number;
  /** The first start's now: the scripted incidents and the chains' origin are placed from it. */
  readonly start: number;
  /** How far the plan reaches (the latest start's now, or the catch-up after it). */
  readonly end: number;
  /** Every planned slot, in time order. */
  readonly slots: readonly SlotRef[];
  /**
   * Slots given up: the downtime's, untried and older than their family's window when a restart
   * extended the plan. Never a slot the plan held.
   */
  readonly missing: readonly SlotRef[];
}

/** One cycle to run: a family at a slot, in the regions where some benchmark has no marker yet. */
export interface PlanRun {
  readonly family: string;
  /** The benchmark a harness runs the family's cycle through (its first). */
  readonly benchmark: string;
  readonly at: number;
  readonly regions: readonly (string | null)[];
}

export const slotKey = (s: SlotRef): string => `${s.benchmark}\u0000${s.region ?? ''}\u0000${s.at}`;

/** The grid of one family in one region: each slot once per benchmark. */
function slotsAt(f: PlanFamily, region: string | null, at: number): SlotRef[] {
  return f.benchmarks.map((benchmark) => ({ benchmark, region, at }));
}

/** The newest slot of a family's cadence at or before `now`. */
const newestSlot = (f: PlanFamily, now: number) => Math.floor(now / f.cadenceMs) * f.cadenceMs;

/** A family's slots of a fresh window ending at `now`: (now − window, now], `step` apart from the newest. */
function windowSlots(f: PlanFamily, now: number): SlotRef[] {
  const end = newestSlot(f, now);
  const from = (f.windowFromSlot ? end : now) - f.windowMs;
  const out: SlotRef[] = [];
  for (let t = end; t > from; t -= f.stepMs) for (const r of f.regions) out.push(...slotsAt(f, r, t));
  return out;
}

/** A new plan: every family's window up to `now` (the demo's backfill on an empty DATA_DIR). */
export function newPlan(
  families: readonly PlanFamily[],
  o: { readonly seed: number; readonly days: number; readonly now: number },
): BackfillPlan {
  return {
    seed: o.seed,
    days: o.days,
    start: o.now,
    end: o.now,
    slots: families.flatMap((f) => windowSlots(f, o.now)).sort(compareSlots),
    missing: [],
  };
}

export interface Extension {
  readonly plan: BackfillPlan;
  /** Slots added (the downtime's, or a catch-up's). */
  readonly added: number;
  /** Slots given up (new to the plan, untried, older than their family's window). */
  readonly givenUp: number;
}

/**
 * The plan extended to `now`: each family's grid continues from its newest planned slot, `step`
 * apart (`atCadence`: its cadence, the hand-over to the live harness), up to the newest slot of its
 * cadence at or before now. A backfill is not real time: every slot already planned stays planned
 * until it runs, however long the machine took or the service was down, so a slow or killed run
 * gives nothing up. Only a new slot of the grid (the downtime's) older than its family's window
 * (now − window) and untried is given up, as no plan ever promised it. Nothing inside the window
 * is ever dropped.
 */
export function extendPlan(
  plan: BackfillPlan,
  families: readonly PlanFamily[],
  now: number,
  tried: (s: SlotRef) => boolean,
  o: {
    readonly atCadence?: boolean;
    /** Give up the new grid's untried slots outside the window (a restart); false while catching up. */
    readonly giveUp?: boolean;
  } = {},
): Extension {
  const kept = [...plan.slots];
  const missing = [...plan.missing];
  const known = new Set([...kept, ...missing].map(slotKey));
  let added = 0;
  let givenUp = 0;
  /** Slots at or before this are outside the family's window (as a fresh plan at `now` counts it). */
  const floorOfFamily = (f: PlanFamily) => (f.windowFromSlot ? newestSlot(f, now) : now) - f.windowMs;
  for (const f of families) {
    const floor = floorOfFamily(f);
    const top = newestSlot(f, now);
    const step = o.atCadence ? f.cadenceMs : f.stepMs;
    for (const region of f.regions) {
      const own = plan.slots.filter((s) => s.region === region && f.benchmarks.includes(s.benchmark));
      const last = own.length > 0 ? Math.max(...own.map((s) => s.at)) : null;
      // A family new to the plan (a benchmark added since) gets a fresh window.
      const grid =
        last === null
          ? windowSlots({ ...f, regions: [region] }, now).map((s) => s.at)
          : Array.from(
              { length: Math.max(0, Math.floor((top - last) / step)) },
              (_, i) => last + (i + 1) * step,
            );
      for (const at of new Set(grid)) {
        for (const s of slotsAt(f, region, at)) {
          if (known.has(slotKey(s))) continue;
          known.add(slotKey(s));
          if ((o.giveUp ?? true) && s.at <= floor && !tried(s)) {
            missing.push(s);
            givenUp++;
          } else {
            kept.push(s);
            added++;
          }
        }
      }
    }
  }
  return {
    plan: {
      ...plan,
      end: Math.max(plan.end, now),
      slots: kept.sort(compareSlots),
      missing: missing.sort(compareSlots),
    },
    added,
    givenUp,
  };
}

/**
 * The cycles the plan still needs, in time order (families at one slot by their first benchmark's
 * name, as the demo has always run them): a family's cycle runs in a region when one of its
 * benchmarks has no marker there.
 */
export function pendingRuns(
  plan: BackfillPlan,
  families: readonly PlanFamily[],
  tried: (s: SlotRef) => boolean,
): PlanRun[] {
  const familyOf = new Map<string, PlanFamily>();
  for (const f of families) for (const b of f.benchmarks) familyOf.set(b, f);
  const runs = new Map<string, { family: PlanFamily; at: number; regions: Set<string | null> }>();
  for (const s of plan.slots) {
    const f = familyOf.get(s.benchmark);
    if (!f || tried(s)) continue;
    const k = `${f.name}\u0000${s.at}`;
    let r = runs.get(k);
    if (!r) {
      r = { family: f, at: s.at, regions: new Set() };
      runs.set(k, r);
    }
    r.regions.add(s.region);
  }
  return [...runs.values()]
    .map((r) => ({
      family: r.family.name,
      benchmark: r.family.benchmarks[0] ?? '',
      at: r.at,
      // In the family's region order.
      regions: r.family.regions.filter((x) => r.regions.has(x)),
    }))
    .sort((a, b) => a.at - b.at || a.benchmark.localeCompare(b.benchmark));
}

/**
 * Which slots have a harness_cycle marker (any value: a failed cycle's 0 counts) in [from, until]:
 * one read of the markers, then a set lookup per slot.
 */
export async function readTried(
  store: Pick<SampleStore, 'select'>,
  from: number,
  until: number,
): Promise<(s: SlotRef) => boolean> {
  const markers = await store.select({ metric: HARNESS_CYCLE_METRIC, after: from - 1, until });
  const seen = new Set(
    markers.map((m) =>
      slotKey({ benchmark: m.labels.benchmark ?? '', region: m.labels[REGION_LABEL] || null, at: m.t }),
    ),
  );
  return (s) => seen.has(slotKey(s));
}

/** The plan as the freezer reads it: its slots and given-up slots of a day, its end and series. */
export function planView(get: () => BackfillPlan): SlotPlanView {
  let cached: { plan: BackfillPlan; series: PlanSeries[] } | undefined;
  return {
    get end() {
      return get().end;
    },
    get series() {
      const plan = get();
      if (cached?.plan !== plan) {
        const newest = new Map<string, PlanSeries>();
        for (const s of plan.slots) {
          const k = `${s.benchmark}\u0000${s.region ?? ''}`;
          const had = newest.get(k);
          if (!had || s.at > had.end) newest.set(k, { benchmark: s.benchmark, region: s.region, end: s.at });
        }
        cached = { plan, series: [...newest.values()] };
      }
      return cached.series;
    },
    within(from, until) {
      const p = get();
      const inside = (s: SlotRef) => s.at >= from && s.at <= until;
      return { planned: p.slots.filter(inside), givenUp: p.missing.filter(inside) };
    },
  };
}

const slotSchema = z.object({
  benchmark: z.string().min(1),
  region: z.string().min(1).nullable(),
  slot: z.iso.datetime(),
});
const fileSchema = z.object({
  version: z.literal(1),
  seed: z.int(),
  days: z.number().positive(),
  start: z.iso.datetime(),
  end: z.iso.datetime(),
  slots: z.array(slotSchema),
  missing: z.array(slotSchema),
});

export class BackfillPlanError extends Error {}

const iso = (t: number) => new Date(t).toISOString();
const toJson = (s: SlotRef) => ({ benchmark: s.benchmark, region: s.region, slot: iso(s.at) });
const fromJson = (s: z.infer<typeof slotSchema>): SlotRef => ({
  benchmark: s.benchmark,
  region: s.region,
  at: Date.parse(s.slot),
});

/** DATA_DIR's plan, or null when it has none. */
export async function loadPlan(dataDir: string): Promise<BackfillPlan | null> {
  const path = join(dataDir, BACKFILL_PLAN_FILE);
  const text = await readFile(path, 'utf8').catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return null;
    throw e;
  });
  if (text === null) return null;
  let f: z.infer<typeof fileSchema>;
  try {
    f = fileSchema.parse(JSON.parse(text));
  } catch {
    throw new BackfillPlanError(`${path} is not a backfill plan; delete it (or DATA_DIR) to backfill anew`);
  }
  return {
    seed: f.seed,
    days: f.days,
    start: Date.parse(f.start),
    end: Date.parse(f.end),
    slots: f.slots.map(fromJson),
    missing: f.missing.map(fromJson),
  };
}

/** Writes the plan whole (a kill -9 mid-write leaves the previous one). */
export function savePlan(dataDir: string, plan: BackfillPlan): Promise<void> {
  const body = {
    version: 1,
    seed: plan.seed,
    days: plan.days,
    start: iso(plan.start),
    end: iso(plan.end),
    slots: plan.slots.map(toJson),
    missing: plan.missing.map(toJson),
  };
  return writeAtomically(dataDir, BACKFILL_PLAN_FILE, `${JSON.stringify(body)}\n`);
}
