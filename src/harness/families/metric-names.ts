import { HARNESS_CYCLE_METRIC, STORED_METRIC_NAMES } from '../../core/family.ts';
import { CHAIN_LISTING_METRICS } from './chain-listing/metrics.ts';
import './index.ts';
import { TRADE_CAPTURE_METRICS } from './trade-capture/metrics.ts';

/**
 * Every metric name the harness writes, by the families that declare them (and the harness's own
 * cycle marker): one place for code that writes or reads samples of a known family (the demo
 * dataset, tests, benches). Importing it registers the families, so STORED_METRIC_NAMES is full.
 */
export const METRICS = {
  ...CHAIN_LISTING_METRICS,
  ...TRADE_CAPTURE_METRICS,
  /** {benchmark}: 1 per completed cycle, per benchmark the probe served (core/family.ts). */
  harnessCycle: HARNESS_CYCLE_METRIC,
} as const;

export { REGION_LABEL } from '../../core/metric-names.ts';
export { STORED_METRIC_NAMES };
