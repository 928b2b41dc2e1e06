import type { CompareRow, Stat } from '../core/api-schemas.ts';
import { type CompareSide, compareRow } from '../core/compare.ts';
import { DAY_MS } from '../core/dates.ts';
import { isoTime } from '../core/format.ts';
import { pairKeyOf } from '../core/rows.ts';
import type { Sample } from '../core/samples.ts';
import { type BenchmarkSpec, DIMENSION_NAMES } from '../core/spec-schema.ts';
import { quantileSorted, round6 } from '../core/stats.ts';
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
 * (token-trade): each side's p50 over only the (cell, cycle) pairs both providers were measured on
 * in the window, never a pooled set that includes cells or cycles only one of them covers.
 */
export async function compareRowFor(
  store: SampleStore,
  spec: BenchmarkSpec,
  stat: Stat,
  a: string,
  b: string,
  evalTime: number,
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
  const d = spec.derivation;
  if (d.mode === 'latest') {
    return compareRow({
      ...base,
      asOf: stat.asOf,
      a: side(a, row(a)?.ms.p50 ?? null),
      b: side(b, row(b)?.ms.p50 ?? null),
    });
  }
  const samples = await store.select({
    metric: d.metric,
    matchers: [{ name: 'provider', op: '=~', value: `${a}|${b}` }],
    after: evalTime - DAY_MS,
    until: evalTime,
  });
  const key = pairKeyOf(d.cellLabels);
  const byProvider = (slug: string) => {
    const m = new Map<string, Sample>();
    for (const s of samples) if (s.labels.provider === slug) m.set(key(s), s);
    return m;
  };
  const sa = byProvider(a);
  const sb = byProvider(b);
  const va: number[] = [];
  const vb: number[] = [];
  let newest: number | null = null;
  for (const [k, s] of sa) {
    const o = sb.get(k);
    if (!o) continue;
    va.push(s.v);
    vb.push(o.v);
    newest = Math.max(newest ?? 0, s.t);
  }
  let aValue: number | null = null;
  let bValue: number | null = null;
  if (va.length > 0) {
    aValue = p50(va);
    bValue = p50(vb);
  } else if (sa.size > 0 && sb.size > 0) {
    // Both measured, never on the same pairs: the side with fewer samples is the one lacking them.
    if (sa.size >= sb.size) aValue = p50([...sa.values()].map((s) => s.v));
    else bValue = p50([...sb.values()].map((s) => s.v));
  }
  return compareRow({
    ...base,
    asOf: newest === null ? null : isoTime(newest),
    a: side(a, aValue),
    b: side(b, bValue),
  });
}
