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
  /**
   * {provider, chain, token}: |P ∩ T_fin| / (|T_fin| + phantoms) × 100, against the chain's own Swap
   * logs; with no verified phantom, |P ∩ T_fin| / |T_fin| × 100.
   */
  tokenTradeRecallPct: 'token_trade_recall_pct',
  /** {provider, chain, token}: 1 for a probe of a cell with ground truth, 0 on a failure the provider caused. */
  tokenTradeRecallProbeOk: 'token_trade_recall_probe_ok',
  /** {provider, chain, token}: |P \ T|, the provider's hashes no Swap log of the token's pools holds. */
  tokenTradeUnmatched: 'token_trade_unmatched',
  /** {provider, chain, token}: hashes of P \ T the chain shows are no trade of the token (verified phantoms). */
  tokenTradePhantoms: 'token_trade_phantoms',
  /** {provider, chain, token}: |P ∩ T_fin|, so each recall can be recomputed from the dataset. */
  tokenTradeMatched: 'token_trade_matched',
  /** {chain, token}: |T_fin|, distinct swap transactions in the window up to the finalized block. */
  tokenTradeTruthCount: 'token_trade_truth_count',
  /** {chain, token, edge=from|to}: the blocks the truth was read from (to: the last finalized one counted). */
  tokenTradeTruthBlocks: 'token_trade_truth_blocks',
  /** {chain, token, reason}: 1 when the cell had no ground truth this cycle, and why. */
  tokenTradeTruthUnavailable: 'token_trade_truth_unavailable',
  /**
   * {provider, chain, token, reason}: 1 per probe not scored on our side (our key refused on every
   * probe of the cycle, our deadline or shutdown), so every exclusion is in the dataset.
   */
  tokenTradeProbeExcluded: 'token_trade_probe_excluded',
  /** {chain, dex, factory, token, pool, pool_id}: 1 for each pool of a token found in the DEX's creation logs. */
  tokenTradePool: 'token_trade_pool',
  /** {chain, dex, factory, token}: the block up to which the token's creation logs were scanned. */
  tokenTradePoolScan: 'token_trade_pool_scan',
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
  {
    name: M.tokenTradeRecallPct,
    labels: CELL,
    help: "Recall against the chain's own Swap logs up to the finalized block, verified phantoms counted as misses, percent",
  },
  {
    name: M.tokenTradeRecallProbeOk,
    labels: CELL,
    help: '1 when the probe of a cell with ground truth succeeded, 0 on a failure the provider caused',
  },
  {
    name: M.tokenTradeUnmatched,
    labels: CELL,
    help: 'Returned transactions no Swap log of the window holds',
  },
  {
    name: M.tokenTradePhantoms,
    labels: CELL,
    help: 'Returned transactions the chain shows are no trade of the token: no such transaction, or no log of the token (verified phantoms)',
  },
  {
    name: M.tokenTradeMatched,
    labels: CELL,
    help: 'Returned transactions the ground truth up to the finalized block holds',
  },
  {
    name: M.tokenTradeTruthCount,
    labels: ['chain', 'token'],
    help: 'Distinct swap transactions of the window up to the finalized block (ground truth)',
  },
  {
    name: M.tokenTradeTruthBlocks,
    labels: ['chain', 'token', 'edge'],
    help: 'First and last block the ground truth counted',
  },
  {
    name: M.tokenTradeTruthUnavailable,
    labels: ['chain', 'token', 'reason'],
    help: '1 when the cell had no ground truth in the cycle',
  },
  {
    name: M.tokenTradeProbeExcluded,
    labels: [...CELL, 'reason'],
    help: '1 per probe not scored on our side: key_refused (on every probe of the cycle), deadline or shutdown',
  },
  {
    name: M.tokenTradePool,
    labels: ['chain', 'dex', 'factory', 'token', 'pool', 'pool_id'],
    help: "A pool of the token found in the DEX factory's creation logs (the ground truth's pool cache)",
  },
  {
    name: M.tokenTradePoolScan,
    labels: ['chain', 'dex', 'factory', 'token'],
    help: "Block up to which the DEX factory's creation logs were scanned for the token",
  },
];
