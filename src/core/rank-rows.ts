import type { RankedRow, UnrankedRow } from './rows.ts';
import { mean, quantileUnsorted, round6, sortFloat64 } from './stats.ts';

/** The statistic rows are ranked by: p50 unless the spec says otherwise (`rankBy`). */
export type RankStatistic = 'p50' | 'mean';

/**
 * The ranked statistic of values (any order), as a row computes it (rows.ts msOf): the p50 by
 * selection (the same two order statistics as a sort, without one: the leader test takes it for
 * every row on its shared pairs), the mean summed in ascending order; rounded as published.
 */
export function statisticOf(values: Float64Array, rankBy: RankStatistic): number {
  if (rankBy === 'mean') return round6(mean(sortFloat64(Float64Array.from(values))));
  return round6(quantileUnsorted(Float64Array.from(values), 0.5));
}

/** What orders ranked rows besides their statistic (window derivation; absent: latest). */
export interface RankOrder {
  readonly rankBy?: RankStatistic;
  /**
   * Per eligible provider, the others significantly more reliable than it by more than the
   * spec's reliabilityMargin (core/reliability.ts): fewer come first, before any statistic.
   */
  lessReliableThan?(eligible: readonly string[]): ReadonlyMap<string, readonly string[]>;
  /**
   * For rows whose count and statistic are equal: how many paired cycles favour a over b, minus
   * how many favour b (the sign test's counts). Each such row is placed by its net wins over the
   * others it is equal with, never by its slug.
   */
  evidence?(a: string, b: string): number;
}

/**
 * The ranking rule, written once. Eligible rows are ordered by the number of providers
 * significantly more reliable than them (fewest first: failing cannot buy a rank), then by the
 * ranked statistic in the benchmark's direction, then, among rows equal on both, by their net wins
 * in paired cycles against each other, then by higher successRate, larger sampleSize and slug.
 * Unresponsive, no-comparison and insufficient-data rows keep a row but no rank, after the ranked
 * ones: none can lead. A row with providers more reliable than it names them (lessReliableThan).
 */
export function rankRows(
  rows: readonly UnrankedRow[],
  higherIsBetter: boolean,
  order: RankOrder = {},
): RankedRow[] {
  const rankBy = order.rankBy ?? 'p50';
  const unranked = (r: UnrankedRow) => r.unresponsive || r.noComparison || r.insufficientData === true;
  const eligible = rows.filter((r) => !unranked(r));
  const lessReliable = order.lessReliableThan?.(eligible.map((r) => r.slug)) ?? new Map();
  const demotions = (r: UnrankedRow) => lessReliable.get(r.slug)?.length ?? 0;
  const byStatistic = (a: UnrankedRow, b: UnrankedRow): number =>
    higherIsBetter ? b.ms[rankBy] - a.ms[rankBy] : a.ms[rankBy] - b.ms[rankBy];
  const netWins = equalsNetWins(eligible, demotions, byStatistic, order.evidence);
  const cmp = (a: UnrankedRow, b: UnrankedRow): number => {
    const dd = demotions(a) - demotions(b);
    if (dd !== 0) return dd;
    const d = byStatistic(a, b);
    if (d !== 0) return d;
    const w = (netWins.get(b.slug) ?? 0) - (netWins.get(a.slug) ?? 0);
    if (w !== 0) return w;
    return fallbackOrder(a, b);
  };
  const ranked = eligible.sort(cmp).map((r, i) => {
    const above = lessReliable.get(r.slug) ?? [];
    return above.length > 0 ? { rank: i + 1, ...r, lessReliableThan: [...above] } : { rank: i + 1, ...r };
  });
  const dead = rows.filter(unranked).sort((a, b) => byStatistic(a, b) || fallbackOrder(a, b));
  return [...ranked, ...dead.map((r) => ({ rank: null, ...r }))];
}

function fallbackOrder(a: UnrankedRow, b: UnrankedRow): number {
  if (b.successRate !== a.successRate) return b.successRate - a.successRate;
  if (b.sampleSize !== a.sampleSize) return b.sampleSize - a.sampleSize;
  return a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0;
}

/**
 * Each row's net paired wins over the rows it is equal with (same count of more reliable
 * providers, same statistic): a score per row, so the order among them is total and does not
 * depend on the order rows came in. Empty without evidence or equal rows.
 */
function equalsNetWins(
  rows: readonly UnrankedRow[],
  demotions: (r: UnrankedRow) => number,
  byStatistic: (a: UnrankedRow, b: UnrankedRow) => number,
  evidence: RankOrder['evidence'],
): Map<string, number> {
  const out = new Map<string, number>();
  if (!evidence) return out;
  for (let i = 0; i < rows.length; i++) {
    for (let j = i + 1; j < rows.length; j++) {
      const a = rows[i] as UnrankedRow;
      const b = rows[j] as UnrankedRow;
      if (demotions(a) !== demotions(b) || byStatistic(a, b) !== 0) continue;
      const e = Math.sign(evidence(a.slug, b.slug));
      out.set(a.slug, (out.get(a.slug) ?? 0) + e);
      out.set(b.slug, (out.get(b.slug) ?? 0) - e);
    }
  }
  return out;
}
