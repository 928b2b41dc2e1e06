import type { Compare, CompareRow } from './api-schemas.ts';
import { type Site, urls } from './urls.ts';

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
}

/**
 * The compare rule, written once: a row has a winner only when both sides have a value from the
 * same cells and window, neither is unresponsive, and both count the same kind of thing. Otherwise
 * the row says why (`reason`) and is a tie with no delta: missing data is never a win.
 */
export function notComparableReason(a: CompareSide, b: CompareSide, sharedPairs = true): string | null {
  if (a.kind !== undefined && b.kind !== undefined && a.kind !== b.kind) return 'different-kinds';
  if (a.unresponsive) return `unresponsive:${a.slug}`;
  if (b.unresponsive) return `unresponsive:${b.slug}`;
  if (a.value === null) return `no-data:${a.slug}`;
  if (b.value === null) return `no-data:${b.slug}`;
  if (!sharedPairs) return 'no-shared-pairs';
  return null;
}

export function compareRow(i: CompareInput): CompareRow {
  const reason = notComparableReason(i.a, i.b, i.sharedPairs);
  const aValue = i.a.value;
  const bValue = i.b.value;
  const comparable = reason === null && aValue !== null && bValue !== null;
  return {
    slug: i.slug,
    title: i.title,
    metric: i.metric,
    unit: i.unit,
    higherIsBetter: i.higherIsBetter,
    aValue,
    bValue,
    winner: comparable ? winnerOf(aValue, bValue, i.higherIsBetter) : 'tie',
    delta: comparable ? Number((aValue - bValue).toPrecision(12)) : null,
    comparable,
    reason,
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
    return `not comparable: no data for ${who} in the same window`;
  }
  if (row.winner === 'tie') return 'tie';
  return `${row.winner === 'a' ? aName : bName} ahead`;
}

/** Head-to-head on every benchmark whose spec declares both providers (spec 4.3). */
export function buildCompare(
  a: { slug: string; name: string },
  b: { slug: string; name: string },
  rows: readonly CompareRow[],
  site: Site,
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
    license: 'CC-BY-4.0',
    ...(site.simulated ? { simulated: true as const } : {}),
  };
}
