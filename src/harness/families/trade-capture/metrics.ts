import type { MetricDeclaration } from '../../../core/family.ts';

/** Metric names the trade-capture probe writes (Prometheus data model). */
export const TRADE_CAPTURE_METRICS = {
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
  /**
   * {benchmark, provider}: 1 when at least half of the provider's probes in the cycle (on that
   * benchmark's cells) got a 5xx. Per benchmark: each benchmark's marker is over its own cells.
   */
  providerCycle5xx: 'provider_cycle_5xx',
} as const;

const M = TRADE_CAPTURE_METRICS;
const CELL = ['provider', 'chain', 'token'] as const;

export const TRADE_CAPTURE_METRIC_DECLARATIONS: readonly MetricDeclaration[] = [
  {
    name: M.tokenTradeCapturePct,
    labels: CELL,
    help: 'Capture rate against the largest count on the cell, percent',
  },
  { name: M.tokenTradeCount, labels: CELL, help: 'Distinct transactions returned in the window' },
  {
    name: M.tokenTradeUnionCount,
    labels: ['chain', 'token'],
    help: 'Distinct transactions across all providers on the cell',
  },
  {
    name: M.tokenTradeProbeOk,
    labels: CELL,
    help: '1 when the probe succeeded, 0 on a failure the provider caused',
  },
  {
    name: M.tokenTradeCapped,
    labels: CELL,
    help: '1 when a page, row or hash limit was hit (the count is a floor)',
  },
  {
    name: M.providerCycle5xx,
    labels: ['benchmark', 'provider'],
    help: '1 when at least half of the provider probes of the cycle got a 5xx',
  },
];
