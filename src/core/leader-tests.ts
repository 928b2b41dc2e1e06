import type { RankingRow } from './api-schemas.ts';
import { type PairedValues, pairedAgainst } from './paired.ts';
import { type RankStatistic, statisticOf } from './rank-rows.ts';
import type { RankedRow } from './rows.ts';
import { byProvider, type Sample } from './samples.ts';
import { signTest, type TieReason, tieBeforeDirection, verdict } from './uncertainty.ts';

export interface LeaderTestInput {
  /** The view's value samples in the window, every provider's. */
  readonly values: readonly Sample[];
  readonly cellLabels: readonly string[];
  /** The spec's tieMargin, in its unit. */
  readonly margin: number;
  readonly higherIsBetter: boolean;
  /** The ranked statistic (default p50): Δ is taken in it. */
  readonly rankBy?: RankStatistic;
}

/**
 * Each ranked row below the leader, tested against it (window derivation), on one set of pairs:
 * the (cell, cycle) pairs both were measured on. `vsLeader` is the sign test on their per-cycle
 * paired values (leader − row) and Δ (`vsLeader.delta`) the ranked statistic of the leader's
 * values there minus the row's, as compare takes it. A row ranked below a provider more reliable
 * than it (rankRows) is separated from that leader by reliability; otherwise `tiedWithLeader` is
 * the verdict rule's (uncertainty.ts) on that test and Δ. Ranks, leader and value do not change:
 * a tie is said, not reordered. Annotates the rows in place (rankRows made them) and returns them.
 */
export function withLeaderTests(rows: readonly RankedRow[], i: LeaderTestInput): RankedRow[] {
  return withLeaderTestsBy(rows, i, samplePairing(i.values, i.cellLabels));
}

/**
 * withLeaderTests with the pairing given: `pairWith(leader)` indexes the leader's samples once and
 * returns each row's paired values against it (paired.ts, over Sample objects or columns). Called
 * only when some row is tested.
 */
export function withLeaderTestsBy(
  rows: readonly RankedRow[],
  i: Pick<LeaderTestInput, 'margin' | 'higherIsBetter' | 'rankBy'>,
  pairWith: (leader: string) => (provider: string) => PairedValues,
): RankedRow[] {
  const leader = rows[0];
  if (leader?.rank !== 1 || !rows.some((r) => r.rank !== null && r.rank > 1)) return rows as RankedRow[];
  const vsLeader = pairWith(leader.slug);
  const rankBy = i.rankBy ?? 'p50';
  for (const r of rows) {
    if (r.rank === null || r.rank === 1) continue;
    const paired = vsLeader(r.slug);
    const test = signTest(paired.diffs);
    const delta = sharedDelta(paired, leader, r, rankBy);
    const byReliability = r.lessReliableThan?.includes(leader.slug) === true;
    const v = verdict({ test, delta: delta ?? 0, margin: i.margin, higherIsBetter: i.higherIsBetter });
    Object.assign(r, {
      vsLeader: {
        test: 'sign-test' as const,
        pairs: test.pairs,
        pValue: test.pValue,
        margin: i.margin,
        ...(delta !== null && { delta: Number(delta.toPrecision(12)) }),
      },
      tiedWithLeader: !byReliability && v.winner !== 'a',
    });
  }
  return rows as RankedRow[];
}

/**
 * Δ of the ranked statistic over the shared pairs (leader − row), null without one. Where the
 * shared samples are each row's whole sample (both cover the same pairs, one sample a pair), the
 * statistics are the rows' own: the same values, so the same numbers, without selecting them again.
 */
function sharedDelta(
  paired: PairedValues,
  leader: RankedRow,
  row: RankedRow,
  rankBy: RankStatistic,
): number | null {
  if (paired.sharedSamples === 0) return null;
  const whole =
    paired.unique === true &&
    paired.sharedSamples === leader.sampleSize &&
    paired.sharedSamples === row.sampleSize;
  if (whole) return leader.ms[rankBy] - row.ms[rankBy];
  return statisticOf(paired.a, rankBy) - statisticOf(paired.b, rankBy);
}

/**
 * Why a published row is tied with the leader (the verdict rule's first failed condition, from its
 * vsLeader: its test and its Δ over shared pairs), or null when it is not tied: the leader,
 * unranked rows and rows the data separates from it. `conflicting` when the test and Δ pass but
 * point opposite ways (or the row is the better one on the ranked statistic): the data separate
 * the two in opposite directions, which is not a statistical tie. Snapshots frozen before Δ was
 * published take it from the two rows' p50s (`leaderP50`).
 */
export function tieWithLeader(
  row: Pick<RankingRow, 'tiedWithLeader' | 'vsLeader' | 'ms'>,
  leaderP50: number,
): TieReason | null {
  if (row.tiedWithLeader !== true || !row.vsLeader) return null;
  const { pValue, margin } = row.vsLeader;
  const delta = row.vsLeader.delta ?? leaderP50 - row.ms.p50;
  return tieBeforeDirection(pValue, delta, margin) ?? 'conflicting';
}

/**
 * rankRows' evidence between two rows equal on the ranked statistic: paired cycles favouring a
 * minus those favouring b (the sign test's counts on a − b, in the benchmark's direction).
 */
export function pairedEvidence(
  pairWith: (a: string) => (b: string) => PairedValues,
  higherIsBetter: boolean,
): (a: string, b: string) => number {
  return (a, b) => {
    const t = signTest(pairWith(a)(b).diffs);
    return higherIsBetter ? t.plus - t.minus : t.minus - t.plus;
  };
}

/** withLeaderTests' pairing over Sample objects: a's samples indexed, then paired with b's. */
export function samplePairing(
  values: readonly Sample[],
  cellLabels: readonly string[],
): (a: string) => (b: string) => PairedValues {
  const own = byProvider(values);
  return (a) => {
    const vsA = pairedAgainst(own.get(a) ?? [], cellLabels);
    return (b) => vsA(own.get(b) ?? []);
  };
}
