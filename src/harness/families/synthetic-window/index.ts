import { isoTime } from '../../../core/format.ts';
import { eq } from '../../../core/samples.ts';
import { selection } from '../../../core/selection.ts';
import type { AuditBody, AuditRequest, Family } from '../family.ts';
import { markOnlyProbe } from '../synthetic/index.ts';

const WINDOW_MS = 24 * 3_600_000;

/**
 * The synthetic-window audit: the provider's probe outcomes of the 24-hour window counted by
 * outcome, and the time of the newest, so its successRate can be checked. A generated catalogue has
 * no request or answer to show beyond that.
 */
async function syntheticWindowAudit(req: AuditRequest): Promise<AuditBody> {
  const { store, spec, provider, evalTime } = req;
  if (spec.derivation.mode !== 'window') return { asOf: null, reasons: {} };
  const { labelMatchers } = selection(spec, req.window?.filters ?? null);
  const probes = await store.select({
    metric: spec.derivation.probeMetric,
    matchers: [eq('provider', provider), ...labelMatchers],
    after: evalTime - WINDOW_MS,
    until: evalTime,
  });
  if (probes.length === 0) return { asOf: null, reasons: {} };
  let ok = 0;
  let failed = 0;
  let newest = 0;
  for (const s of probes) {
    if (s.v >= 1) ok++;
    else failed++;
    newest = Math.max(newest, s.t);
  }
  return { asOf: isoTime(newest), reasons: failed ? { failed, ok } : { ok } };
}

/**
 * synthetic-window: the window-mode twin of `synthetic` (bench/catalogue.ts with
 * CATALOGUE_MODE=window), so a scale benchmark can price the shared window derivation (quantiles,
 * intervals, the paired tests against the leader) per spec. Each benchmark has a value metric and
 * a probe metric of its own (`synthetic_0001_ms`, `synthetic_0001_ok`) with a `cell` label; the
 * generator writes them, nothing is probed. Only synthetic providers stand in it.
 */
export const syntheticWindow: Family = {
  name: 'synthetic-window',
  derivation: 'window',
  cadence: '20m',
  slotOffsetMs: 0,
  metrics: [],
  benchmarkMetric: /^synthetic_\d{4}_(ms|ok)$/,
  benchmarkMetricLabels: ['provider', 'cell'],
  originMetrics: [],
  derivationMetrics: [],
  rowFields: [],
  adapterProviders: [],
  probe: markOnlyProbe,
  audit: syntheticWindowAudit,
};
