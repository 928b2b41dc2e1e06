/**
 * Metric names the harness writes to the store (Prometheus data model). They are the only metrics
 * query_prom may read.
 */
export const METRICS = {
  /** {provider}: networks counted in the latest successful listing. */
  networksSupported: 'networks_supported',
  /** {provider, chain_id, name}: 1 per network in that listing (audit detail). */
  networkListed: 'network_listed',
  /** {provider, chain, token}: capture rate in percent for one cycle. */
  tokenTradeCapturePct: 'token_trade_capture_pct',
  /** {provider, chain, token}: distinct transactions returned in the window. */
  tokenTradeCount: 'token_trade_count',
  /** {chain, token}: distinct transactions across all providers (union of hashes). */
  tokenTradeUnionCount: 'token_trade_union_count',
  /** {provider, chain, token}: 1 when the probe neither timed out nor got a 5xx. */
  tokenTradeProbeOk: 'token_trade_probe_ok',
  /** {provider, chain, token}: 1 when a provider's hard row limit was hit. */
  tokenTradeCapped: 'token_trade_capped',
  /** {benchmark, provider}: 1 after three consecutive 5xx cycles, 0 once a cycle succeeds. */
  providerUnresponsive: 'provider_unresponsive',
} as const;

export const STORED_METRIC_NAMES: readonly string[] = Object.values(METRICS);
