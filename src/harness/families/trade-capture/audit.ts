import { isoTime } from '../../../core/format.ts';
import { publishedPct } from '../../../core/percent.ts';
import { eq, type Matcher, type Sample } from '../../../core/samples.ts';
import { round6 } from '../../../core/stats.ts';
import type { SampleStore } from '../../../store/sample-store.ts';
import type { AuditBody, AuditRequest } from '../family.ts';
import { windowAuditEntries } from './audit-window.ts';
import { groundTruthOf, readTruthSamples } from './ground-truth.ts';
import { TRADE_CAPTURE_METRICS as METRICS } from './metrics.ts';

/** Samples of one series set written at exactly time t (a cycle writes all of them at its slot). */
function at(store: SampleStore, metric: string, matchers: readonly Matcher[], t: number) {
  return store.select({ metric, matchers: [...matchers], after: t - 1, until: t });
}

/** A stored percentage as published: the one rounding rule (core/percent.ts), applied once. */
const roundedOrNull = (v: number | undefined): number | null => (v === undefined ? null : round6(v));

const cellKey = (s: Sample) => `${s.labels.chain}\u0000${s.labels.token}`;

/**
 * The trade-capture audit: the per-token counts, union and capture of the provider's last cycle,
 * or (with `window`) every cycle and cell its ranking row is computed from.
 */
export async function tradeCaptureAudit(req: AuditRequest): Promise<AuditBody> {
  const { store, spec, provider, evalTime } = req;
  if (req.window) {
    const entries = await windowAuditEntries(store, spec, provider, req.window.filters, evalTime);
    const last = entries.at(-1);
    return {
      asOf: last ? last.t : null,
      window: '24h' as const,
      filters: req.window.filters,
      entries,
    };
  }
  const p = eq('provider', provider);
  // The latest cycle the provider was scored in: every scored cell has a count sample (a capture
  // sample may be missing when no provider found a trade: no baseline, no score).
  const latestCounts = await store.latest({ metric: METRICS.tokenTradeCount, matchers: [p], at: evalTime });
  if (latestCounts.length === 0) return { asOf: null, cells: [] };
  const t = Math.max(...latestCounts.map((s) => s.t));
  const [captures, unions, probes, capped, truth] = await Promise.all([
    at(store, METRICS.tokenTradeCapturePct, [p], t),
    at(store, METRICS.tokenTradeUnionCount, [], t),
    at(store, METRICS.tokenTradeProbeOk, [p], t),
    at(store, METRICS.tokenTradeCapped, [p], t),
    readTruthSamples(store, [p], [], { after: t - 1, until: t }),
  ]);
  const truthOf = groundTruthOf(truth, provider);
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
        groundTruth: truthOf(s),
      };
    })
    .sort((a, b) => a.chain.localeCompare(b.chain) || a.token.localeCompare(b.token));
  return { asOf: isoTime(t), cells };
}
