import type { AuditEntry, Filters } from '../../../core/api-schemas.ts';
import { isoTime } from '../../../core/format.ts';
import { publishedPct } from '../../../core/percent.ts';
import { comparablePairs, pairKeyOf } from '../../../core/rows.ts';
import { eq } from '../../../core/samples.ts';
import { selection, WINDOW_MS } from '../../../core/selection.ts';
import type { BenchmarkSpec } from '../../../core/spec-schema.ts';
import type { SampleStore } from '../../../store/sample-store.ts';
import { groundTruthOf, readTruthSamples } from './ground-truth.ts';
import { TRADE_CAPTURE_METRICS as METRICS } from './metrics.ts';

/**
 * Every (cycle, cell) a provider was probed on in the Stat's 24 h window, with what its ranking
 * row is computed from, so a reader can recompute the row from this one answer:
 * - successRate: the share of entries with `probeOk` (every probe counts, failed ones included);
 * - sampleSize and p50: the entries with `comparable` (at least two providers scored on that cell
 *   in that cycle: the same comparablePairs the row's usedSamples keeps), capture = count / cellMax
 *   × 100; when no entry is comparable, the row is `noComparison`, its sampleSize 0 and it has no
 *   value to recompute (the lone entries are 100% by construction).
 * `cellMax` is the harness's baseline: the largest count any provider was scored with on the cell
 * in that cycle. The view's filters narrow the entries exactly as they narrow the Stat.
 */
export async function windowAuditEntries(
  store: SampleStore,
  spec: BenchmarkSpec,
  provider: string,
  filters: Filters | null,
  evalTime: number,
): Promise<AuditEntry[]> {
  const d = spec.derivation;
  if (d.mode !== 'window') return [];
  const { labelMatchers, providerMatcher } = selection(spec, filters);
  const win = { after: evalTime - WINDOW_MS, until: evalTime };
  const [probes, counts, unions, values, truth] = await Promise.all([
    store.select({ metric: d.probeMetric, matchers: [eq('provider', provider), ...labelMatchers], ...win }),
    // The baseline is every provider the harness scored on the cell, whichever the view shows.
    store.select({ metric: METRICS.tokenTradeCount, matchers: labelMatchers, ...win }),
    store.select({ metric: METRICS.tokenTradeUnionCount, matchers: labelMatchers, ...win }),
    store.select({ metric: d.metric, matchers: [providerMatcher, ...labelMatchers], ...win }),
    readTruthSamples(store, [eq('provider', provider)], labelMatchers, win),
  ]);
  const truthOf = groundTruthOf(truth, provider);
  const key = pairKeyOf(d.cellLabels);
  const comparable = comparablePairs(values, d.cellLabels);
  const max = new Map<string, number>();
  const own = new Map<string, number>();
  for (const s of counts) {
    const k = key(s);
    max.set(k, Math.max(max.get(k) ?? 0, s.v));
    if (s.labels.provider === provider) own.set(k, s.v);
  }
  const union = new Map(unions.map((s) => [key(s), s.v]));
  return probes
    .map((s): AuditEntry => {
      const k = key(s);
      const count = own.get(k) ?? null;
      const cellMax = max.get(k) ?? null;
      const region = s.labels.region;
      return {
        t: isoTime(s.t),
        chain: s.labels.chain ?? '',
        token: s.labels.token ?? '',
        ...(region !== undefined ? { region } : {}),
        count,
        cellMax,
        cellUnion: union.get(k) ?? null,
        capturePct: count === null || cellMax === null ? null : publishedPct(count, cellMax),
        probeOk: s.v >= 1,
        comparable: comparable.has(s),
        groundTruth: truthOf(s),
      };
    })
    .sort(
      (a, b) =>
        a.t.localeCompare(b.t) ||
        a.chain.localeCompare(b.chain) ||
        a.token.localeCompare(b.token) ||
        (a.region ?? '').localeCompare(b.region ?? ''),
    );
}
