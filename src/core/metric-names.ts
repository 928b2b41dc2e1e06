/**
 * Metric names the harness writes to the store (Prometheus data model). They are the only metrics
 * query_prom may read.
 *
 * Every sample measured against the simulated providers (the demo, `--simulate`) also carries the
 * label origin="simulated" (src/core/sample-origin.ts); a measured sample has no origin label.
 */
export const METRICS = {
  /** {provider}: networks counted in the latest successful listing. */
  networksSupported: 'networks_supported',
  /**
   * {provider, chain_id, name, raw_id}: 1 per network counted in that listing (audit detail). chain_id
   * is the CAIP-2 id it was counted under, or `unmapped:<slug>`; raw_id is the provider's own id.
   */
  networkListed: 'network_listed',
  /**
   * {provider, kind, reason, chain_id, name, raw_id}: 1 per listing entry not counted (audit detail):
   * kind `dropped` (invalid entry; reason missing_id, bad_id, bad_entry) or `testnet` (reason
   * provider_flag, chain_metadata, name). At most 500 per listing.
   */
  networkExcluded: 'network_listing_excluded',
  /** {provider, chain, token}: capture rate in percent for one cycle. */
  tokenTradeCapturePct: 'token_trade_capture_pct',
  /** {provider, chain, token}: distinct transactions returned in the window. */
  tokenTradeCount: 'token_trade_count',
  /** {chain, token}: distinct transactions across all providers (union of hashes). */
  tokenTradeUnionCount: 'token_trade_union_count',
  /** {provider, chain, token}: 1 when the probe succeeded, 0 on a failure the provider caused. */
  tokenTradeProbeOk: 'token_trade_probe_ok',
  /** {provider, chain, token}: 1 when a page, row or hash limit was hit, so the count is a floor. */
  tokenTradeCapped: 'token_trade_capped',
  /** {benchmark, provider}: 1 when at least half of the provider's probes in the cycle got a 5xx. */
  providerCycle5xx: 'provider_cycle_5xx',
  /**
   * {benchmark}: 1 per completed cycle, written in the cycle's own append. The harness resumes from
   * it, so its state lives with the samples on any store (embedded or a Prometheus-compatible one).
   */
  harnessCycle: 'harness_cycle',
} as const;

/**
 * Labels the harness may add to every sample it writes: `region` (HARNESS_REGION) names where it
 * measured from; benchmarks declare `region` as a dimension whose values come from the data.
 */
export const REGION_LABEL = 'region';

export const STORED_METRIC_NAMES: readonly string[] = Object.values(METRICS);
