import type { CitableIndex, MissingSlots, Stat } from '../core/api-schemas.ts';
import { dayStart } from '../core/dates.ts';
import { type MissingSlot, missingSlotsNote } from '../core/missing-slots.ts';
import type { SlotExpectation } from './day-slots.ts';
import type { ServedText } from './served.ts';
import type { PublicationContext, Served } from './types.ts';

/**
 * A day is frozen once, this long after it closes (00:00 UTC). Every sample of a day is written by
 * then: a cycle's samples carry its slot time and a cycle ends before its deadline, which falls
 * before the next slot, so a day's last cycle (23:30 or 18:00) has written everything by 00:00.
 */
export const FREEZE_GRACE_MS = 10 * 60_000;

/** Start of the newest day that is not closed-and-frozen-due at `now` (days before it are). */
export function closedBefore(now: number): number {
  return dayStart(now - FREEZE_GRACE_MS);
}

/**
 * A day that cannot be served yet. `retryAfter` (seconds) only for a closed day past its grace
 * whose freeze has not succeeded yet: the front doors answer 503 with Retry-After, not 404.
 */
export interface NotFrozen {
  readonly kind: 'not_frozen';
  readonly message: string;
  readonly retryAfter?: number;
}

export type SnapshotResult =
  | { kind: 'frozen'; served: Served<CitableIndex> | ServedText; day: string }
  | { kind: 'live'; served: Served<CitableIndex>; day: string }
  | { kind: 'bad_date'; message: string }
  | NotFrozen;

export type DayResult =
  | { kind: 'ok'; day: string; start: number }
  | { kind: 'today'; day: string; start: number }
  | { kind: 'bad_date'; message: string }
  | NotFrozen;

export type FrozenAuditResult =
  | { kind: 'ok'; served: ServedText }
  | { kind: 'unknown_provider' }
  | Exclude<DayResult, { kind: 'ok' }>;

export interface DayFreezerOptions extends PublicationContext {
  /** Today's snapshot: the live index. */
  readonly liveIndex: () => Promise<Served<CitableIndex>>;
  /** Which slots a closed day expects (src/publication/day-slots.ts); asked at each freeze. */
  readonly slots?: () => SlotExpectation;
  /** Clock ms per real ms (the demo clock runs DEMO_SPEED× faster); timers wait real time. */
  readonly clockRate?: number;
}

/** How often a closed day that waits for planned slots is looked at again (real ms). */
export const AWAIT_POLL_MS = 1000;

/** A frozen Stat of a day with missing slots: its own list, and a methodology statement naming them. */
export function withMissing(stat: Stat, day: string, missing: readonly MissingSlot[]): Stat {
  const own = missing.filter((m) => m.benchmark === stat.slug);
  if (own.length === 0) return stat;
  return {
    ...stat,
    methodology: [...stat.methodology, missingSlotsNote(day, own)],
    missingSlots: own as MissingSlots,
  };
}
