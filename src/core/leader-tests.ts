import type { RankingRow } from './api-schemas.ts';
import { pairedAgainst } from './paired.ts';
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
}

/**
 * Each ranked row below the leader, tested against it (window derivation): `vsLeader` is the sign
 * test on their per-cycle paired values (leader − row), `tiedWithLeader` whether the verdict rule
 * (uncertainty.ts) gives a tie, with Δ = the two rows' p50s. Ranks, leader and value do not change:
 * a tie is said, not reordered. The leader and unranked rows carry neither field. Annotates the
 * rows in place (rankRows made them) and returns them.
 */
export function withLeaderTests(rows: readonly RankedRow[], i: LeaderTestInput): RankedRow[] {
  return withLeaderTestsBy(rows, i, (leader) => {
    const own = byProvider(i.values);
    const vsLeader = pairedAgainst(own.get(leader) ?? [], i.cellLabels);
    return (provider) => vsLeader(own.get(provider) ?? []).diffs;
  });
}

/**
 * withLeaderTests with the pairing given: `pairWith(leader)` indexes the leader's samples once and
 * returns each row's paired values against it (paired.ts, over Sample objects or columns). Called
 * only when some row is tested.
 */
export function withLeaderTestsBy(
  rows: readonly RankedRow[],
  i: Pick<LeaderTestInput, 'margin' | 'higherIsBetter'>,
  pairWith: (leader: string) => (provider: string) => readonly number[],
): RankedRow[] {
  const leader = rows[0];
  if (leader?.rank !== 1 || !rows.some((r) => r.rank !== null && r.rank > 1)) return rows as RankedRow[];
  const vsLeader = pairWith(leader.slug);
  for (const r of rows) {
    if (r.rank === null || r.rank === 1) continue;
    const test = signTest(vsLeader(r.slug));
    const v = verdict({
      test,
      delta: leader.ms.p50 - r.ms.p50,
      margin: i.margin,
      higherIsBetter: i.higherIsBetter,
    });
    Object.assign(r, {
      vsLeader: { test: 'sign-test' as const, pairs: test.pairs, pValue: test.pValue, margin: i.margin },
      tiedWithLeader: v.winner !== 'a',
    });
  }
  return rows as RankedRow[];
}

/**
 * Why a published row is tied with the leader (the verdict rule's first failed condition, from its
 * vsLeader and the two p50s), or null when it is not tied: the leader, unranked rows and rows the
 * data separates from it.
 */
export function tieWithLeader(
  row: Pick<RankingRow, 'tiedWithLeader' | 'vsLeader' | 'ms'>,
  leaderP50: number,
): TieReason | null {
  if (row.tiedWithLeader !== true || !row.vsLeader) return null;
  const { pValue, margin } = row.vsLeader;
  // Ties that pass significance and the margin failed the direction.
  return tieBeforeDirection(pValue, leaderP50 - row.ms.p50, margin) ?? 'direction-disagrees';
}
