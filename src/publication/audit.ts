import type { Audit, Filters } from '../core/api-schemas.ts';
import { isoTime } from '../core/format.ts';
import { METRICS } from '../core/metric-names.ts';
import { publishedPct } from '../core/percent.ts';
import { providerName } from '../core/providers.ts';
import { eq, type Sample } from '../core/samples.ts';
import type { BenchmarkSpec } from '../core/spec-schema.ts';
import { round6 } from '../core/stats.ts';
import { type Site, urls } from '../core/urls.ts';
import type { SampleStore } from '../store/sample-store.ts';
import { auditNetworks } from './audit-networks.ts';
import { windowAuditEntries } from './audit-window.ts';

/** Samples of one series set written at exactly time t (a cycle writes all of them at its slot). */
function at(
  store: SampleStore,
  metric: string,
  matchers: Parameters<SampleStore['select']>[0]['matchers'],
  t: number,
) {
  return store.select({ metric, matchers: matchers ?? [], after: t - 1, until: t });
}

/** A stored percentage as published: the one rounding rule (core/percent.ts), applied once. */
const roundedOrNull = (v: number | undefined): number | null => (v === undefined ? null : round6(v));

const cellKey = (s: Sample) => `${s.labels.chain}\u0000${s.labels.token}`;

/** `window`: every cycle of the Stat's window (window-mode benchmarks), narrowed by the Stat's filters. */
export interface AuditOptions {
  readonly window?: { readonly filters: Filters | null };
}

/**
 * The raw measurements behind one provider's ranking row, so a reader can check a number:
 * the networks a listing counted, the per-token counts, union and capture of the last cycle, or
 * (with `window`) every cycle and cell the row is computed from.
 */
export async function buildAudit(
  store: SampleStore,
  spec: BenchmarkSpec,
  provider: string,
  evalTime: number,
  site: Site,
  opts: AuditOptions = {},
): Promise<Audit> {
  const base = {
    benchmark: spec.slug,
    provider: { slug: provider, name: providerName(provider) },
    pageUrl: urls.page(site, spec.slug),
    license: 'CC-BY-4.0' as const,
    ...(site.simulated ? { simulated: true as const } : {}),
  };
  const p = eq('provider', provider);
  if (spec.derivation.mode === 'latest') {
    return { ...base, ...(await auditNetworks(store, spec.derivation.metric, p, evalTime)) };
  }
  const d = spec.derivation;
  if (opts.window) {
    const entries = await windowAuditEntries(store, spec, provider, opts.window.filters, evalTime);
    const last = entries.at(-1);
    return {
      ...base,
      asOf: last ? last.t : null,
      window: '24h' as const,
      filters: opts.window.filters,
      entries,
    };
  }
  // The latest cycle the provider was scored in: every scored cell has a count sample (a capture
  // sample may be missing when no provider found a trade: no baseline, no score).
  const latestCounts = await store.latest({ metric: d.countMetric, matchers: [p], at: evalTime });
  if (latestCounts.length === 0) return { ...base, asOf: null, cells: [] };
  const t = Math.max(...latestCounts.map((s) => s.t));
  const [captures, unions, probes, capped] = await Promise.all([
    at(store, d.metric, [p], t),
    at(store, d.unionMetric, [], t),
    at(store, d.probeMetric, [p], t),
    at(store, METRICS.tokenTradeCapped, [p], t),
  ]);
  const byCell = (list: readonly Sample[]) => new Map(list.map((s) => [cellKey(s), s.v]));
  const [pct, u, ok, cap] = [byCell(captures), byCell(unions), byCell(probes), byCell(capped)];
  const cells = latestCounts
    .filter((s) => s.t === t)
    .map((s) => {
      const k = cellKey(s);
      const probe = ok.get(k);
      const capV = cap.get(k);
      const union = u.get(k);
      return {
        chain: s.labels.chain ?? '',
        token: s.labels.token ?? '',
        count: s.v,
        unionCount: union ?? null,
        capturePct: roundedOrNull(pct.get(k)),
        unionCapturePct: union === undefined ? null : publishedPct(s.v, union),
        probeOk: probe === undefined ? null : probe >= 1,
        capped: capV === undefined ? null : capV >= 1,
      };
    })
    .sort((a, b) => a.chain.localeCompare(b.chain) || a.token.localeCompare(b.token));
  return { ...base, asOf: isoTime(t), cells };
}
