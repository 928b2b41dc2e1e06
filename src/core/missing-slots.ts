/**
 * Which slots a closed day expected and which of them nobody tried: the freeze rule of issue 26.
 * A slot is tried when a harness_cycle marker exists for its (benchmark, region, slot), a failed
 * cycle's marker (value 0, label `failure`) included. A day is frozen only when every slot it
 * expects was tried or given up; given-up slots are published as `missingSlots`, never silently
 * absent.
 *
 * Expected slots of a day, per (benchmark, region):
 * - a backfill plan's slots (the demo): the freeze waits for each one not tried yet;
 * - slots the plan gave up (older than its days when a restart extended it): missing;
 * - after the plan (or with none: `serve`, `serve --simulate`), every aligned slot of the
 *   benchmark's cadence: for a (benchmark, region) the plan has, after its newest planned slot;
 *   for any other, from its first marker on. A slot nobody tried because the service was down (or
 *   the scheduler skipped it, late) is missing, not awaited.
 */

/** One slot of one benchmark's harness: `region` null for a harness without HARNESS_REGION. */
export interface SlotRef {
  readonly benchmark: string;
  readonly region: string | null;
  /** The aligned slot time, epoch ms. */
  readonly at: number;
}

/** A slot nobody tried, as published (frozen index `site`, frozen Stats, dataset index and manifest). */
export interface MissingSlot {
  readonly benchmark: string;
  readonly region: string | null;
  /** ISO 8601 time of the slot. */
  readonly slot: string;
}

export interface DaySlotsInput {
  /** The day: [start, end] epoch ms. */
  readonly start: number;
  readonly end: number;
  /** The cadence of a benchmark's probe (ms), undefined for a benchmark the service does not publish. */
  readonly cadenceOf: (benchmark: string) => number | undefined;
  /** Every harness_cycle marker in the day (failed ones included). */
  readonly markers: readonly SlotRef[];
  /**
   * Series (benchmark, region) with a marker after `liveFrom` and before the day: their live rule
   * starts at the day's start.
   */
  readonly seriesBefore: readonly Omit<SlotRef, 'at'>[];
  /** Markers up to this belong to the plan (its end; −Infinity without a plan). */
  readonly liveFrom: number;
  /** The (benchmark, region) pairs a plan has, each with its newest planned slot: the live rule covers the slots after it. */
  readonly planSeries?: readonly PlanSeries[];
  /** The plan's slots in the day, and the ones it gave up. */
  readonly planned: readonly SlotRef[];
  readonly givenUp: readonly SlotRef[];
}

/** A (benchmark, region) of a plan and its newest planned slot. */
export interface PlanSeries extends Omit<SlotRef, 'at'> {
  readonly end: number;
}

export interface DaySlots {
  /** Planned slots not tried yet: the freeze waits for them. */
  readonly awaited: readonly SlotRef[];
  /** Expected slots nobody tried and nobody will: published with the frozen day. */
  readonly missing: readonly MissingSlot[];
}

const key = (s: Omit<SlotRef, 'at'>) => `${s.benchmark}\u0000${s.region ?? ''}`;
const slotKey = (s: SlotRef) => `${key(s)}\u0000${s.at}`;

/** Sorted by slot, then benchmark, then region (null first): the order every surface lists them in. */
export function compareSlots(a: SlotRef, b: SlotRef): number {
  return (
    a.at - b.at ||
    (a.benchmark < b.benchmark ? -1 : a.benchmark > b.benchmark ? 1 : 0) ||
    (a.region ?? '').localeCompare(b.region ?? '')
  );
}

export function toMissing(s: SlotRef): MissingSlot {
  return { benchmark: s.benchmark, region: s.region, slot: new Date(s.at).toISOString() };
}

/** The day's awaited and missing slots (see the module comment). Pure. */
export function daySlots(input: DaySlotsInput): DaySlots {
  const { start, end } = input;
  const tried = new Set(input.markers.map(slotKey));
  const inDay = (s: SlotRef) => s.at >= start && s.at <= end;
  const awaited = input.planned.filter((s) => inDay(s) && !tried.has(slotKey(s)));
  const missing = new Map<string, SlotRef>();
  for (const s of input.givenUp) if (inDay(s) && !tried.has(slotKey(s))) missing.set(slotKey(s), s);
  // The live rule: every aligned slot of the series' cadence after its newest planned slot (a plan's
  // series), else from its first marker after the plan (or the day's start, when it had one before).
  const from = new Map<string, { ref: Omit<SlotRef, 'at'>; at: number; after: number }>();
  const planned = new Set<string>();
  for (const s of input.planSeries ?? []) {
    planned.add(key(s));
    if (s.end < end) from.set(key(s), { ref: s, at: Math.max(start, s.end), after: s.end });
  }
  for (const s of input.seriesBefore) {
    if (!planned.has(key(s))) from.set(key(s), { ref: s, at: start, after: input.liveFrom });
  }
  for (const m of input.markers) {
    if (m.at <= input.liveFrom || !inDay(m) || planned.has(key(m))) continue;
    const k = key(m);
    const f = from.get(k);
    if (f === undefined || m.at < f.at) from.set(k, { ref: m, at: m.at, after: input.liveFrom });
  }
  for (const { ref, at, after } of from.values()) {
    const cadence = input.cadenceOf(ref.benchmark);
    if (cadence === undefined || cadence <= 0) continue;
    const first = Math.max(at, start, Math.floor(after / cadence) * cadence + cadence);
    for (let t = Math.ceil(first / cadence) * cadence; t <= end; t += cadence) {
      const s = { benchmark: ref.benchmark, region: ref.region, at: t };
      if (!tried.has(slotKey(s))) missing.set(slotKey(s), s);
    }
  }
  return {
    awaited: awaited.sort(compareSlots),
    missing: [...missing.values()].sort(compareSlots).map(toMissing),
  };
}

const hhmm = (iso: string) => iso.slice(11, 16);

/**
 * The methodology statement a frozen Stat carries when its day has missing slots: how many, which
 * (the first ten), and where the full list is.
 */
export function missingSlotsNote(day: string, missing: readonly MissingSlot[]): string {
  const shown = missing
    .slice(0, 10)
    .map((m) => (m.region === null ? hhmm(m.slot) : `${hhmm(m.slot)} (${m.region})`));
  const more = missing.length > shown.length ? ` and ${missing.length - shown.length} more` : '';
  const n = missing.length;
  return `Not measured on ${day}: ${n} scheduled slot${n === 1 ? '' : 's'} no harness cycle ran (the service was down or the slot was skipped, late), at ${shown.join(', ')}${more} UTC; listed in missingSlots. The day's values come from the slots that ran.`;
}
