import { chainListingAudit } from '../chain-listing/audit.ts';
import type { Family, ProbeReports, ProbeRun } from '../family.ts';

/**
 * The probe of a generated catalogue's family: nothing to ask anyone, the generator wrote the
 * samples; the harness still marks the cycle of each benchmark.
 */
export async function markOnlyProbe(run: ProbeRun): Promise<ProbeReports> {
  const written = await run.write([]);
  return new Map(
    run.benchmarks.map((spec) => [
      spec.slug,
      {
        benchmark: spec.slug,
        at: run.at,
        durationMs: 0,
        samplesWritten: written,
        aborted: false,
        providers: [],
      },
    ]),
  );
}

/**
 * synthetic: the generated catalogues of the scale benchmarks (bench/catalogue.ts), whose samples
 * are written by the generator, never probed. Each benchmark has a value metric of its own
 * (`synthetic_0001_value` …), so the family declares the pattern of their names rather than a list.
 * Only synthetic providers (registerSyntheticProviders) can stand in it: no catalogue provider
 * lists this family.
 */
export const synthetic: Family = {
  name: 'synthetic',
  derivation: 'latest',
  cadence: '20m',
  slotOffsetMs: 0,
  metrics: [],
  benchmarkMetric: /^synthetic_\d{4}_value$/,
  originMetrics: [],
  derivationMetrics: [],
  rowFields: [],
  adapterProviders: [],
  probe: markOnlyProbe,
  // A count's audit, as for any latest-mode listing: its time, and no listed network.
  audit: chainListingAudit,
};
