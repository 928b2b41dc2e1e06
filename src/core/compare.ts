import type { Compare, CompareRow, Stat } from './api-schemas.ts';
import { type Site, urls } from './urls.ts';

export function winnerOf(a: number | null, b: number | null, higherIsBetter: boolean): 'a' | 'b' | 'tie' {
  if (a === null && b === null) return 'tie';
  if (a === null) return 'b';
  if (b === null) return 'a';
  if (a === b) return 'tie';
  return a > b === higherIsBetter ? 'a' : 'b';
}

function p50Of(stat: Stat, provider: string): number | null {
  return stat.rankings.find((r) => r.slug === provider)?.ms.p50 ?? null;
}

/** Head-to-head on every benchmark whose spec declares both providers (spec 4.3). */
export function buildCompare(
  a: { slug: string; name: string },
  b: { slug: string; name: string },
  shared: readonly Stat[],
  site: Site,
): Compare {
  const rows: CompareRow[] = shared.map((s) => {
    const aValue = p50Of(s, a.slug);
    const bValue = p50Of(s, b.slug);
    return {
      slug: s.slug,
      title: s.title,
      metric: s.metric,
      unit: s.unit,
      higherIsBetter: s.higherIsBetter,
      aValue,
      bValue,
      winner: winnerOf(aValue, bValue, s.higherIsBetter),
      delta: aValue === null || bValue === null ? null : Number((aValue - bValue).toPrecision(12)),
      pageUrl: s.pageUrl,
      asOf: s.asOf,
    };
  });
  const totalWins = { a: 0, b: 0, tie: 0 };
  for (const r of rows) totalWins[r.winner]++;
  return {
    a,
    b,
    totalWins,
    shared: rows,
    comparePageUrl: urls.compare(site, a.slug, b.slug),
    license: 'CC-BY-4.0',
  };
}
