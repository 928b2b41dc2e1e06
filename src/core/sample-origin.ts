import { ORIGIN_METRIC_NAMES } from './family.ts';
import type { Matcher, Sample } from './samples.ts';

/**
 * Where a sample came from. The harness labels every sample it measures against the simulated
 * providers (the demo, `--simulate`) with `origin="simulated"`; a measured sample carries no
 * `origin` label. One label, so a database that mixes the two can always tell them apart and no
 * simulated number is ever published as measured.
 */
export const ORIGIN_LABEL = 'origin';
export const SIMULATED_ORIGIN = 'simulated';

/** Matches samples written by simulated providers. */
export const SIMULATED_MATCHER: Matcher = { name: ORIGIN_LABEL, op: '=', value: SIMULATED_ORIGIN };
/** Matches measured samples (no origin label reads as "", as in Prometheus). */
export const MEASURED_MATCHER: Matcher = { name: ORIGIN_LABEL, op: '!=', value: SIMULATED_ORIGIN };

/** The same samples labelled as simulated. */
export function labelSimulated(samples: readonly Sample[]): Sample[] {
  return samples.map((s) => ({ ...s, labels: { ...s.labels, [ORIGIN_LABEL]: SIMULATED_ORIGIN } }));
}

/**
 * Metrics every harness cycle writes whatever happens (a listing count or a probe), so reading the
 * newest sample of each is enough to know which origins a store holds. Each family declares its own
 * (core/family.ts `originMetrics`); the cycle marker is written by every completed cycle of every
 * benchmark, so a benchmark with a metric of its own (the synthetic catalogue of bench/catalogue.ts)
 * is recognised too. Filled in place as families register.
 */
export const ORIGIN_PROBE_METRICS: readonly string[] = ORIGIN_METRIC_NAMES;
