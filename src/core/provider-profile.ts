import type {
  ProfileBenchmark,
  ProviderListing,
  ProviderProfile,
  RankingRow,
  Stat,
  UnrankedReason,
} from './api-schemas.ts';
import type { ProviderInfo } from './providers.ts';
import type { BenchmarkSpec } from './spec-schema.ts';
import { round6 } from './stats.ts';
import { type Site, urls } from './urls.ts';

/** How far back a profile looks for its "7 days ago" column. */
export const WEEK_AGO_DAYS = 7;

/** GET /api/providers: every catalogue provider with how many benchmarks list it. */
export function providerListing(
  providers: Iterable<Pick<ProviderInfo, 'slug' | 'name' | 'website'>>,
  specs: readonly Pick<BenchmarkSpec, 'providers'>[],
  site: Site,
): ProviderListing {
  return {
    providers: [...providers].map((p) => ({
      slug: p.slug,
      name: p.name,
      website: p.website,
      benchmarks: specs.filter((s) => s.providers.some((e) => e.slug === p.slug)).length,
      page: urls.providerPage(site, p.slug),
      api: urls.providerApi(site, p.slug),
    })),
    ...(site.simulated ? { simulated: true as const } : {}),
  };
}

/**
 * Why a row has no rank, in rankRows' order of exclusion: an unresponsive provider is named so
 * first (compare's notComparableReason checks it first too), a row alone on its cells next, then
 * too few samples; a provider without a row in the Stat has no data.
 */
export function unrankedReason(row: RankingRow | undefined): UnrankedReason | null {
  if (!row) return 'noData';
  if (row.rank !== null) return null;
  if (row.unresponsive) return 'unresponsive';
  if (row.noComparison) return 'noComparison';
  if (row.insufficientData === true) return 'insufficientData';
  // rankRows leaves no other row unranked; a frozen Stat of an older format is still told apart.
  return 'noData';
}

export interface ProfileInput {
  readonly provider: Pick<ProviderInfo, 'slug' | 'name' | 'website'>;
  /** The unfiltered Stat of every benchmark listing the provider, in catalogue order. */
  readonly stats: readonly Stat[];
  /**
   * The day D − 7 and the Stats frozen for it, by benchmark slug (absent: no snapshot that day).
   * Their rows are read as published, never recomputed.
   */
  readonly weekAgo: { readonly date: string; readonly stats: ReadonlyMap<string, Stat> };
  /** Where links of rows without data point (the frozen site for a dated profile). */
  readonly site: Site;
  /** The profile's day when it is pinned to a frozen one; null for the live profile. */
  readonly day: string | null;
  readonly simulated: boolean;
}

function benchmarkEntry(stat: Stat, i: ProfileInput): ProfileBenchmark {
  const slug = i.provider.slug;
  const row = stat.rankings.find((r) => r.slug === slug);
  const then = i.weekAgo.stats.get(stat.slug)?.rankings.find((r) => r.slug === slug);
  const weekAgo = then ? { date: i.weekAgo.date, value: then.ms.p50, rank: then.rank } : null;
  const value = row ? row.ms.p50 : null;
  const leader = stat.leader;
  return {
    slug: stat.slug,
    title: stat.title,
    unit: stat.unit,
    higherIsBetter: stat.higherIsBetter,
    rank: row?.rank ?? null,
    unranked: unrankedReason(row),
    value,
    ci95: row?.ci95?.p50 ?? null,
    tiedWithLeader: row?.tiedWithLeader === true,
    tiedAtTop:
      leader !== null && leader.slug === slug
        ? stat.rankings.filter((r) => r.tiedWithLeader === true).map((r) => r.slug)
        : [],
    successRate: row ? row.successRate : null,
    sampleSize: row ? row.sampleSize : 0,
    weekAgo,
    change: value !== null && weekAgo ? round6(value - weekAgo.value) : null,
    links: {
      page: stat.pageUrl,
      api: stat.api,
      audit: row?.audit ?? urls.audit(i.site, stat.slug, slug, i.day),
      compare: leader === null || leader.slug === slug ? null : urls.compare(i.site, slug, leader.slug),
    },
  };
}

/** GET /api/providers/{slug}: one provider on every benchmark listing it, with a week's change. */
export function buildProviderProfile(i: ProfileInput): ProviderProfile {
  let asOf: string | null = null;
  for (const s of i.stats) if (s.asOf !== null && (asOf === null || s.asOf > asOf)) asOf = s.asOf;
  return {
    provider: { slug: i.provider.slug, name: i.provider.name, website: i.provider.website },
    asOf,
    benchmarks: i.stats.map((s) => benchmarkEntry(s, i)),
    license: 'CC-BY-4.0',
    ...(i.simulated ? { simulated: true as const } : {}),
    // A view served while the store is down says so, as the Stats it is built from do.
    ...(i.stats.some((s) => s.degraded) ? { degraded: true as const } : {}),
  };
}
