/**
 * Metric names live with the families that write them (src/harness/families/<family>/metrics.ts);
 * the core holds no name, only the registry they fill (core/family.ts). This module keeps the
 * registry's names where readers of the store already import them.
 *
 * Every sample measured against the simulated providers (the demo, `--simulate`) also carries the
 * label origin="simulated" (src/core/sample-origin.ts); a measured sample has no origin label.
 */
export { HARNESS_BUILD_INFO_METRIC, HARNESS_CYCLE_METRIC, STORED_METRIC_NAMES } from './family.ts';

/**
 * Labels the harness may add to every sample it writes: `region` (HARNESS_REGION) names where it
 * measured from; benchmarks declare `region` as a dimension whose values come from the data.
 */
export const REGION_LABEL = 'region';
