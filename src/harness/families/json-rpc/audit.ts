import { isoTime } from '../../../core/format.ts';
import { eq, type Sample } from '../../../core/samples.ts';
import { selection } from '../../../core/selection.ts';
import { round6 } from '../../../core/stats.ts';
import type { AuditBody, AuditRequest } from '../family.ts';
import { JSON_RPC_METRICS as M } from './metrics.ts';

const WINDOW_MS = 24 * 3_600_000;

const probeKey = (s: Sample) => `${s.labels.chain}\u0000${s.labels.region ?? ''}\u0000${s.labels.kind}`;

/**
 * The json-rpc audit: every probe of the provider's latest slot (chain, region, method, time, outcome,
 * reason), and the provider's probes of the 24-hour window counted by outcome, so its success rate
 * and the failures behind its percentiles can be checked.
 */
export async function jsonRpcAudit(req: AuditRequest): Promise<AuditBody> {
  const { store, spec, provider, evalTime } = req;
  const p = eq('provider', provider);
  const filters = req.window?.filters ?? null;
  const { labelMatchers } = selection(spec, filters);
  const latest = await store.latest({ metric: M.probeOk, matchers: [p, ...labelMatchers], at: evalTime });
  if (latest.length === 0) return { asOf: null, probes: [], reasons: {} };
  // A slot's probes all carry its start time; series and regions may differ in their latest one.
  const newest = latest.reduce((m, s) => Math.max(m, s.t), 0);
  const [oks, latencies, window] = await Promise.all([
    store.select({ metric: M.probeOk, matchers: [p, ...labelMatchers], after: newest - 1, until: newest }),
    store.select({ metric: M.latencyMs, matchers: [p, ...labelMatchers], after: newest - 1, until: newest }),
    store.select({
      metric: M.probeOk,
      matchers: [p, ...labelMatchers],
      after: evalTime - WINDOW_MS,
      until: evalTime,
    }),
  ]);
  const latency = new Map(latencies.map((s) => [probeKey(s), s.v]));
  const probes = oks
    .map((s) => ({
      chain: s.labels.chain ?? '',
      ...(s.labels.region !== undefined ? { region: s.labels.region } : {}),
      kind: s.labels.kind ?? '',
      latencyMs: round6(latency.get(probeKey(s)) ?? 0),
      ok: s.v >= 1,
      reason: s.v >= 1 ? null : (s.labels.reason ?? null),
    }))
    .sort(
      (a, b) =>
        a.chain.localeCompare(b.chain) ||
        (a.region ?? '').localeCompare(b.region ?? '') ||
        a.kind.localeCompare(b.kind),
    );
  const reasons: Record<string, number> = {};
  for (const s of window) {
    const k = s.v >= 1 ? 'ok' : (s.labels.reason ?? 'unknown');
    reasons[k] = (reasons[k] ?? 0) + 1;
  }
  const sorted = Object.fromEntries(Object.entries(reasons).sort(([a], [b]) => a.localeCompare(b)));
  return { asOf: isoTime(newest), probes, reasons: sorted };
}
