import type { Family } from '../family.ts';
import { TRADE_ADAPTERS } from './adapters/registry.ts';
import { tradeCaptureAudit } from './audit.ts';
import { tradeCaptureExtras } from './derivation.ts';
import { TRADE_CAPTURE_METRIC_DECLARATIONS, TRADE_CAPTURE_METRICS } from './metrics.ts';
import { runTradeCaptureProbe } from './probe.ts';

const M = TRADE_CAPTURE_METRICS;

/**
 * trade-capture: every trade of a fixed set of reference tokens over the same 60-minute window,
 * per provider, scored against the largest count on the cell. Published by the shared `window`
 * derivation over (chain, token) cells, with two extras: the union baseline (`unionCapture`) and
 * the unresponsive marker (three cycles of 5xx).
 */
export const tradeCapture: Family = {
  name: 'trade-capture',
  derivation: 'window',
  cadence: '30m',
  slotOffsetMs: 0,
  metrics: TRADE_CAPTURE_METRIC_DECLARATIONS,
  // A probe outcome is written for every scored cell; a cycle-of-5xx sample per scored provider.
  originMetrics: [M.tokenTradeProbeOk, M.providerCycle5xx],
  derivationMetrics: [
    M.tokenTradeCount,
    M.tokenTradeUnionCount,
    M.providerCycle5xx,
    M.tokenTradeRecallPct,
    M.tokenTradeUnmatched,
    M.tokenTradePhantoms,
    M.tokenTradeMatched,
    M.tokenTradeTruthCount,
    M.tokenTradeTruthBlocks,
    M.tokenTradeTruthUnavailable,
  ],
  rowFields: ['unionCapture', 'recall', 'precision'],
  // The stored capture rate is against the largest count of every provider probed on the cell.
  scoresAgainstProbedProviders: true,
  adapterProviders: [...TRADE_ADAPTERS.keys()],
  probe: runTradeCaptureProbe,
  audit: tradeCaptureAudit,
  windowExtras: tradeCaptureExtras,
};
