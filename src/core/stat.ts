import type { ChainBests, CitableRow, Filters, RankingRow, Stat } from './api-schemas.ts';
import { citeBundle } from './citations.ts';
import { isoTime } from './format.ts';
import { headline, quote, SIMULATED_HEADLINE, type TiedRow } from './headline.ts';
import { tieWithLeader } from './leader-tests.ts';
import type { RankStatistic } from './rank-rows.ts';
import { harnessSourceUrl } from './source-url.ts';
import type { BenchmarkSpec } from './spec-schema.ts';
import { DIMENSION_NAMES, durationMs } from './spec-schema.ts';
import { type Site, urls } from './urls.ts';

export interface StatInput {
  readonly spec: BenchmarkSpec;
  readonly filters: Filters | null;
  readonly rankings: readonly Omit<RankingRow, 'audit'>[];
  readonly sparkline: readonly number[];
  /** Time of sparkline[0], its spacing, and the indices carried forward (see core/series.ts). */
  readonly sparklineGrid?: {
    readonly startMs: number;
    readonly stepMs: number;
    readonly gaps: readonly number[];
  };
  /** Per chain leader and last ranked provider (benchmarks with a chain dimension). */
  readonly chainBests?: { readonly best: ChainBests; readonly worst: ChainBests };
  /** Newest sample behind the view, epoch ms; null when there is none. */
  readonly asOf: number | null;
  /** True when the benchmark has no sample at all (not just none in this view). */
  readonly neverRun: boolean;
  /** Evaluation time, epoch ms: the citation's retrieval date. */
  readonly evalTime: number;
  readonly site: Site;
  /** The frozen UTC day this Stat belongs to: every link in it is pinned to that day. */
  readonly pinDay?: string | null;
  /** Fields the benchmark's family adds to the view (WindowRowExtras.statFields). */
  readonly familyFields?: Readonly<Record<string, unknown>>;
  /** A data-valued dimension's values (region): those measured, which its filter accepts. */
  readonly dataValues?: (dimension: string) => readonly string[];
}

/** A view is stale once its newest sample is more than this many cadences old (two missed runs). */
export const STALE_AFTER_CADENCES = 2;

/**
 * The stale rule, written once: the newest sample `lastSampleAt` is more than twice the cadence
 * older than `now` (exactly twice is still live), or there is none. The Stat's status, the index,
 * /api/freshness and the pages all come from here.
 */
export function isStale(lastSampleAt: number | null, now: number, cadenceMs: number): boolean {
  return lastSampleAt === null || now - lastSampleAt > STALE_AFTER_CADENCES * cadenceMs;
}

/**
 * Status of a view, one rule for every surface: `draft` never measured; `stale` by `isStale` (or
 * no sample in the window); `live` otherwise.
 */
export function viewStatus(
  neverRun: boolean,
  asOf: number | null,
  evalTime: number,
  cadenceMs: number,
): 'live' | 'stale' | 'draft' {
  if (neverRun) return 'draft';
  return isStale(asOf, evalTime, cadenceMs) ? 'stale' : 'live';
}

/** Human label of the applied filter, e.g. "Solana" or "DEX index". */
export function filterLabel(spec: BenchmarkSpec, filters: Filters | null): string | null {
  if (!filters) return null;
  const labels: string[] = [];
  for (const d of DIMENSION_NAMES) {
    const v = filters[d];
    if (v === undefined) continue;
    labels.push(spec.dimensions[d]?.values.find((x) => x.value === v)?.label ?? v);
  }
  return labels.length ? labels.join(', ') : null;
}

/** The statistic a benchmark's rows are ranked by: the spec's rankBy, p50 for a listing count. */
export function rankStatisticOf(spec: BenchmarkSpec): RankStatistic {
  return spec.derivation.mode === 'window' ? spec.derivation.rankBy : 'p50';
}

/** Rows tied with the leader, with the reason the verdict rule gave (uncertainty.ts). */
function tiedRows(rows: StatInput['rankings'], leaderP50: number, rankBy: RankStatistic): TiedRow[] {
  const out: TiedRow[] = [];
  for (const r of rows) {
    const reason = tieWithLeader(r, leaderP50);
    if (reason === null || !r.vsLeader) continue;
    out.push({
      name: r.name,
      value: r.ms[rankBy],
      pValue: r.vsLeader.pValue,
      margin: r.vsLeader.margin,
      reason,
    });
  }
  return out;
}

/**
 * The spec's minSamples when nothing is ranked because rows had fewer samples than that (not for
 * another reason); otherwise null.
 */
function tooFewToRank(spec: BenchmarkSpec, rows: StatInput['rankings']): number | null {
  const d = spec.derivation;
  if (d.mode !== 'window' || rows.some((r) => r.rank !== null)) return null;
  const short = rows.some((r) => r.insufficientData === true && !r.unresponsive && !r.noComparison);
  return short ? d.minSamples : null;
}

/** The full record of /api/stat (spec 2.6). The leader is rankings[0] on every surface. */
export function buildStat(i: StatInput): Stat {
  const { spec, site } = i;
  const day = i.pinDay ?? null;
  const first = i.rankings[0];
  const leaderRow = first && first.rank === 1 ? first : null;
  const rankBy = rankStatisticOf(spec);
  // The value is the statistic rows are ranked by (p50 unless the spec ranks by the mean).
  const value = leaderRow ? leaderRow.ms[rankBy] : null;
  const pageUrl = urls.page(site, spec.slug, i.filters, day);
  const auditWindow = spec.derivation.mode === 'window' ? { window: spec.window, filters: i.filters } : null;
  const tooFew = tooFewToRank(spec, i.rankings);
  const text = headline({
    title: spec.title,
    metric: spec.metric,
    unit: spec.unit,
    leaderName: leaderRow?.name ?? null,
    value,
    allUnresponsive: i.rankings.length > 0 && !leaderRow && i.rankings.every((r) => r.unresponsive),
    noComparison: leaderRow ? [] : i.rankings.filter((r) => r.noComparison).map((r) => r.name),
    filterLabel: filterLabel(spec, i.filters),
    neverRun: i.neverRun,
    ...(spec.superlative !== undefined ? { superlative: spec.superlative } : {}),
    tiedWithLeader: leaderRow ? tiedRows(i.rankings, leaderRow.ms.p50, rankBy) : [],
    statistic: rankBy,
    ...(tooFew !== null && { tooFewSamples: tooFew }),
    // A count carried forward between listings is dated by its own sample, not called "24h".
    asOf: spec.derivation.mode === 'latest' && leaderRow ? Date.parse(leaderRow.lastSampleAt) : null,
  });
  const dimensions: Record<string, { value: string; label: string }[]> = {};
  for (const d of DIMENSION_NAMES) {
    const dim = spec.dimensions[d];
    if (!dim) continue;
    // A data-valued dimension declares no values: those measured are the ones a reader can pick.
    const measured = dim.fromData ? (i.dataValues?.(d) ?? []) : [];
    dimensions[d] = dim.fromData
      ? measured.map((v) => ({ value: v, label: v }))
      : dim.values.map((v) => ({ value: v.value, label: v.label }));
  }
  return {
    slug: spec.slug,
    number: spec.number,
    title: spec.title,
    subtitle: spec.subtitle,
    category: spec.category,
    metric: spec.metric,
    unit: spec.unit,
    status: viewStatus(i.neverRun, i.asOf, i.evalTime, durationMs(spec.cadence)),
    higherIsBetter: spec.higherIsBetter,
    filters: i.filters,
    value,
    leader: leaderRow && value !== null ? { name: leaderRow.name, slug: leaderRow.slug, value } : null,
    rankings: i.rankings.map((r) => ({ ...r, audit: urls.audit(site, spec.slug, r.slug, day, auditWindow) })),
    sparkline: [...i.sparkline],
    ...(i.sparklineGrid && {
      sparklineStartMs: i.sparklineGrid.startMs,
      sparklineStepMs: i.sparklineGrid.stepMs,
      sparklineGaps: [...i.sparklineGrid.gaps],
    }),
    ...(i.chainBests && { bestPerChain: i.chainBests.best, worstPerChain: i.chainBests.worst }),
    sampleSize: i.rankings.reduce((n, r) => n + r.sampleSize, 0),
    ...i.familyFields,
    asOf: i.asOf === null ? null : isoTime(i.asOf),
    evaluatedAt: isoTime(i.evalTime),
    // Shown alone (a widget, an unfurl, a search result), a simulated headline still says so.
    headline: site.simulated ? `${text} ${SIMULATED_HEADLINE}` : text,
    quote: quote(text, site.name, pageUrl, site.simulated === true),
    cite: citeBundle({
      siteName: site.name,
      slug: spec.slug,
      title: spec.title,
      url: pageUrl,
      retrieved: i.evalTime,
      simulated: site.simulated === true,
      ...(day !== null && { frozen: true }),
    }),
    pageUrl,
    api: urls.stat(site, spec.slug, i.filters, day),
    ogImage: urls.og(site, spec.slug, i.filters, day),
    sparklineSvg: urls.sparkline(site, spec.slug, i.filters, day),
    source: harnessSourceUrl(site, spec.family),
    methodology: [...spec.methodology],
    license: spec.license,
    window: spec.window,
    dimensions,
    // Only simulated data carries the field, so a measured Stat is byte-for-byte what it was.
    ...(site.simulated ? { simulated: true as const } : {}),
  };
}

export function citableRow(stat: Stat): CitableRow {
  return {
    slug: stat.slug,
    number: stat.number,
    title: stat.title,
    category: stat.category,
    metric: stat.metric,
    unit: stat.unit,
    status: stat.status,
    value: stat.value,
    leader: stat.leader,
    sampleSize: stat.sampleSize,
    headline: stat.headline,
    url: stat.pageUrl,
    api: stat.api,
    ogImage: stat.ogImage,
    asOf: stat.asOf,
    source: stat.source,
    license: stat.license,
  };
}
