import type { CompareRow, Filters, Stat } from '../core/api-schemas.ts';
import { type CompareSide, compareRow } from '../core/compare.ts';
import { DAY_MS } from '../core/dates.ts';
import { isoTime } from '../core/format.ts';
import { pairedCycleDiffs } from '../core/paired.ts';
import { statisticOf } from '../core/rank-rows.ts';
import { ProbeGrid } from '../core/reliability.ts';
import { comparablePairs } from '../core/rows.ts';
import { oneOf } from '../core/samples.ts';
import { selection } from '../core/selection.ts';
import { type BenchmarkSpec, DIMENSION_NAMES } from '../core/spec-schema.ts';
import { quantileSorted, round6 } from '../core/stats.ts';
import { quantileInterval, signTest } from '../core/uncertainty.ts';
import type { SampleStore } from '../store/sample-store.ts';

/** The provider's attributes for dimensions that belong to providers (e.g. `kind`), as one string. */
function kindOf(spec: BenchmarkSpec, provider: string): string | undefined {
  const entry = spec.providers.find((p) => p.slug === provider) as Record<string, unknown> | undefined;
  const parts: string[] = [];
  for (const d of DIMENSION_NAMES) {
    if (spec.dimensions[d]?.appliesTo !== 'provider') continue;
    parts.push(`${d}=${String(entry?.[d] ?? '')}`);
  }
  return parts.length ? parts.join('&') : undefined;
}

function p50(vs: number[]): number {
  return round6(
    quantileSorted(
      vs.sort((x, y) => x - y),
      0.5,
    ),
  );
}

/**
 * One compare row. Latest mode (a listing count): each side's published value. Window mode
 * (token-trade): each side's p50 over the (cell, cycle) pairs both providers were measured on in
 * the window, by the Stat's pair rule (comparablePairs over the two providers' samples), never a
 * pooled set that includes cells or cycles only one of them covers. Where the two share no pair,
 * each side's value is the one its Stat row publishes and the row is not comparable
 * (`no-shared-pairs`): two values from different cells support no verdict. Where they share pairs,
 * the verdict needs the sign test on their per-cycle paired values and the spec's tieMargin, and at
 * least minSamples shared samples (`insufficient-data`).
 */
export async function compareRowFor(
  store: SampleStore,
  spec: BenchmarkSpec,
  stat: Stat,
  a: string,
  b: string,
  evalTime: number,
  filters: Filters | null = null,
): Promise<CompareRow> {
  const row = (slug: string) => stat.rankings.find((r) => r.slug === slug);
  const side = (slug: string, value: number | null): CompareSide => {
    const kind = kindOf(spec, slug);
    return {
      slug,
      value,
      unresponsive: row(slug)?.unresponsive ?? false,
      ...(kind !== undefined ? { kind } : {}),
    };
  };
  const base = {
    slug: stat.slug,
    title: stat.title,
    metric: stat.metric,
    unit: stat.unit,
    higherIsBetter: stat.higherIsBetter,
    pageUrl: stat.pageUrl,
  };
  const published = (slug: string) => row(slug)?.ms.p50 ?? null;
  const d = spec.derivation;
  if (d.mode === 'latest') {
    return compareRow({ ...base, asOf: stat.asOf, a: side(a, published(a)), b: side(b, published(b)) });
  }
  // The filtered view's samples (its label matchers), of the sides it lists: a side the filters
  // leave out has no samples, so the row has no shared pairs and is not comparable.
  const sel = selection(spec, filters);
  const inView = new Set(sel.providers.map((p) => p.slug));
  const sides = [a, b].filter((p) => inView.has(p));
  // The probes as the Stat reads them (its probeMatch), for the reliability verdict.
  const [samples, probes] = await Promise.all([
    store.select({
      metric: d.metric,
      matchers: [oneOf('provider', sides), ...sel.labelMatchers],
      after: evalTime - DAY_MS,
      until: evalTime,
    }),
    store.select({
      metric: d.probeMetric,
      matchers: [
        oneOf('provider', sides),
        ...sel.labelMatchers,
        ...Object.entries(d.probeMatch ?? {}).map(([name, value]) => ({ name, op: '=' as const, value })),
      ],
      after: evalTime - DAY_MS,
      until: evalTime,
    }),
  ]);
  // With only the two providers' samples, a comparable pair is exactly one both were measured on.
  const shared = comparablePairs(samples, d.cellLabels);
  const va: number[] = [];
  const vb: number[] = [];
  let newest: number | null = null;
  for (const s of samples) {
    if (!shared.has(s)) continue;
    (s.labels.provider === a ? va : vb).push(s.v);
    newest = Math.max(newest ?? 0, s.t);
  }
  if (va.length === 0) {
    return compareRow({
      ...base,
      asOf: stat.asOf,
      a: side(a, published(a)),
      b: side(b, published(b)),
      sharedPairs: false,
    });
  }
  const paired = pairedCycleDiffs(
    samples.filter((s) => s.labels.provider === a),
    samples.filter((s) => s.labels.provider === b),
    d.cellLabels,
  );
  const reliability = ProbeGrid.ofSamples(probes, d.cellLabels).verdict(a, b, d.reliabilityMargin);
  const moreReliable = reliability.moreReliable === null ? null : reliability.moreReliable === a ? 'a' : 'b';
  return compareRow({
    ...base,
    asOf: newest === null ? null : isoTime(newest),
    // p50 sorts its array in place: the intervals read the same sorted samples.
    a: { ...side(a, p50(va)), ci95: quantileInterval(va, 0.5) },
    b: { ...side(b, p50(vb)), ci95: quantileInterval(vb, 0.5) },
    // va and vb hold one value per shared (cell, cycle) pair each: the same count.
    paired: {
      test: signTest(paired.diffs),
      margin: d.tieMargin,
      insufficient: va.length < d.minSamples,
      // The ranked statistic over the same shared pairs as the p50s (one Δ per pair).
      ...(d.rankBy === 'mean' && {
        ranked: {
          statistic: 'mean' as const,
          a: statisticOf(paired.a, 'mean'),
          b: statisticOf(paired.b, 'mean'),
        },
      }),
      reliability: {
        moreReliable,
        failureGap: reliability.gap,
        test: reliability.test,
        margin: d.reliabilityMargin,
      },
    },
  });
}
