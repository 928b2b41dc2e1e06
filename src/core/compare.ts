import type { Compare, CompareRow, Filters } from './api-schemas.ts';
import { formatP, formatValue, marginPhrase } from './format.ts';
import { type Interval, type SignTest, verdict } from './uncertainty.ts';
import { type Site, urls } from './urls.ts';

/** Latest mode's rule (a count read from a listing has no sampling error): any difference wins. */
export function winnerOf(a: number, b: number, higherIsBetter: boolean): 'a' | 'b' | 'tie' {
  if (a === b) return 'tie';
  // `higherIsBetter` is the only source of direction.
  return a > b === higherIsBetter ? 'a' : 'b';
}

/** One provider's side of a compare row on one benchmark. */
export interface CompareSide {
  readonly slug: string;
  /** p50 in the benchmark unit over the window both sides share, or null without data. */
  readonly value: number | null;
  readonly unresponsive: boolean;
  /** The provider's kind where the benchmark gives providers one (a provider dimension). */
  readonly kind?: string;
  /** Window mode with shared pairs: the 95% interval of `value` from the same samples. */
  readonly ci95?: Interval | null;
}

export interface CompareInput {
  readonly slug: string;
  readonly title: string;
  readonly metric: string;
  readonly unit: string;
  readonly higherIsBetter: boolean;
  readonly pageUrl: string;
  readonly asOf: string | null;
  readonly a: CompareSide;
  readonly b: CompareSide;
  /**
   * Window mode: false when the two were never measured on the same (cell, cycle) pair in the
   * window; each side's value is then its own Stat row's, from different cells.
   */
  readonly sharedPairs?: boolean;
  /**
   * Window mode, when the two share pairs: the sign test on their per-cycle paired values (a − b),
   * the spec's tieMargin, and whether either side has fewer shared samples than minSamples.
   */
  readonly paired?: {
    readonly test: SignTest;
    readonly margin: number;
    readonly insufficient: boolean;
    /** The ranked statistic of each side over the shared pairs, when it is not p50 (rankBy). */
    readonly ranked?: { readonly statistic: 'mean'; readonly a: number; readonly b: number };
    /** Failure shares on the shared probes (core/reliability.ts), with the spec's reliabilityMargin. */
    readonly reliability?: {
      readonly moreReliable: 'a' | 'b' | null;
      readonly failureGap: number;
      readonly test: SignTest;
      readonly margin: number;
    };
  };
}

/**
 * The compare rule, written once: a row has a winner only when both sides have a value from the
 * same cells and window, neither is unresponsive, and both count the same kind of thing. Otherwise
 * the row says why (`reason`) and is a tie with no delta: missing data is never a win.
 */
export function notComparableReason(
  a: CompareSide,
  b: CompareSide,
  sharedPairs = true,
  insufficient = false,
): string | null {
  if (a.kind !== undefined && b.kind !== undefined && a.kind !== b.kind) return 'different-kinds';
  if (a.unresponsive) return `unresponsive:${a.slug}`;
  if (b.unresponsive) return `unresponsive:${b.slug}`;
  if (a.value === null) return `no-data:${a.slug}`;
  if (b.value === null) return `no-data:${b.slug}`;
  if (!sharedPairs) return 'no-shared-pairs';
  if (insufficient) return 'insufficient-data';
  return null;
}

/**
 * One compare row. Latest mode: any difference wins. Window mode: the verdict rule
 * (uncertainty.ts) on the sign test and the margin; a statistical tie stays comparable, keeps its
 * delta and says why in `reason`.
 */
export function compareRow(i: CompareInput): CompareRow {
  const reason = notComparableReason(i.a, i.b, i.sharedPairs, i.paired?.insufficient);
  const aValue = i.a.value;
  const bValue = i.b.value;
  const comparable = reason === null && aValue !== null && bValue !== null;
  let winner: CompareRow['winner'] = 'tie';
  let why = reason;
  const rel = i.paired?.reliability;
  if (comparable && i.paired && rel?.moreReliable) {
    // Reliability ranks before speed: the side failing less wins, as it ranks above the other.
    winner = rel.moreReliable;
    why = null;
  } else if (comparable && i.paired) {
    const ranked = i.paired.ranked;
    const v = verdict({
      test: i.paired.test,
      delta: ranked ? ranked.a - ranked.b : aValue - bValue,
      margin: i.paired.margin,
      higherIsBetter: i.higherIsBetter,
    });
    winner = v.winner;
    why = v.reason;
  } else if (comparable) {
    winner = winnerOf(aValue, bValue, i.higherIsBetter);
  }
  const significance =
    comparable && i.paired
      ? {
          test: 'sign-test' as const,
          pairs: i.paired.test.pairs,
          pValue: i.paired.test.pValue,
          margin: i.paired.margin,
        }
      : undefined;
  return {
    slug: i.slug,
    title: i.title,
    metric: i.metric,
    unit: i.unit,
    higherIsBetter: i.higherIsBetter,
    aValue,
    bValue,
    // A window p50 is never shown without its interval (the pair rule's samples, as the value).
    ...(i.paired && { aCi95: i.a.ci95 ?? null, bCi95: i.b.ci95 ?? null }),
    ...(comparable && i.paired?.ranked && { ranked: i.paired.ranked }),
    ...(comparable &&
      rel && {
        reliability: {
          moreReliable: rel.moreReliable,
          failureGap: rel.failureGap,
          pValue: rel.test.pValue,
          pairs: rel.test.pairs,
          margin: rel.margin,
        },
      }),
    winner,
    delta: comparable ? Number((aValue - bValue).toPrecision(12)) : null,
    comparable,
    reason: why,
    ...(significance && { significance }),
    pageUrl: i.pageUrl,
    asOf: i.asOf,
  };
}

/** The words a reader sees for a row: who wins, a tie, or why the two cannot be compared. */
export function compareVerdict(row: CompareRow, aName: string, bName: string): string {
  if (!row.comparable) {
    const [kind, who = 'a provider'] = (row.reason ?? '').split(':');
    if (kind === 'different-kinds')
      return 'not comparable: the two providers count different kinds of things';
    if (kind === 'unresponsive') return `not comparable: ${who} is unresponsive`;
    if (kind === 'no-shared-pairs')
      return 'not comparable: never measured on the same token and cycle (each value is its own ranking row)';
    if (kind === 'insufficient-data') return 'not comparable: too few shared samples in the window';
    return `not comparable: no data for ${who} in the same window`;
  }
  const sig = row.significance;
  if (row.winner === 'tie' && sig) {
    if (row.reason === 'within-margin') return `tied within the ${marginPhrase(sig.margin, row.unit)} margin`;
    if (row.reason === 'conflicting') {
      const better = (row.delta ?? 0) > 0 === row.higherIsBetter ? aName : bName;
      const other = better === aName ? bName : aName;
      return `conflicting evidence, no winner: ${better} has the better p50, but most of ${sig.pairs} cycles favour ${other}`;
    }
    return `statistically tied (sign test ${formatP(sig.pValue)}, ${sig.pairs} cycles)`;
  }
  if (row.winner === 'tie') return 'tie';
  const winnerName = row.winner === 'a' ? aName : bName;
  const rel = row.reliability;
  if (rel?.moreReliable === row.winner)
    return `${winnerName} ahead: fails less, by ${formatValue(Math.abs(rel.failureGap), 'count')} points of probes (sign test ${formatP(rel.pValue)}, ${rel.pairs} cycles)`;
  return `${winnerName} ahead`;
}

/** Head-to-head on every benchmark whose spec declares both providers (spec 4.3). */
export function buildCompare(
  a: { slug: string; name: string },
  b: { slug: string; name: string },
  rows: readonly CompareRow[],
  site: Site,
  scope: { filters?: Filters; date?: string } = {},
): Compare {
  // Rows that cannot be compared count as ties, so the three members still sum to shared.length.
  const totalWins = { a: 0, b: 0, tie: 0 };
  let notComparable = 0;
  for (const r of rows) {
    totalWins[r.winner]++;
    if (!r.comparable) notComparable++;
  }
  return {
    a,
    b,
    totalWins,
    notComparable,
    shared: [...rows],
    comparePageUrl: urls.compare(site, a.slug, b.slug),
    ...(scope.filters !== undefined && { filters: scope.filters }),
    ...(scope.date !== undefined && { date: scope.date }),
    license: 'CC-BY-4.0',
    ...(site.simulated ? { simulated: true as const } : {}),
  };
}
