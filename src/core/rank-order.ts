import { pairedEvidence } from './leader-tests.ts';
import type { PairedValues } from './paired.ts';
import type { RankOrder, RankStatistic } from './rank-rows.ts';
import type { ProbeGrid } from './reliability.ts';

export interface WindowRankInput {
  readonly rankBy: RankStatistic;
  readonly reliabilityMargin: number;
  readonly higherIsBetter: boolean;
  /** The view's probe outcomes (the rows' own narrowing). */
  readonly probes: ProbeGrid;
  /** Paired values of the view's samples, a against b (paired.ts). */
  readonly pairWith: (a: string) => (b: string) => PairedValues;
}

/** A window view's ranking order (rows.ts rankRows): reliability first, the statistic, then evidence. */
export function windowRankOrder(i: WindowRankInput): RankOrder {
  return {
    rankBy: i.rankBy,
    lessReliableThan: (eligible) => i.probes.lessReliableThan(eligible, i.reliabilityMargin),
    evidence: pairedEvidence(i.pairWith, i.higherIsBetter),
  };
}
