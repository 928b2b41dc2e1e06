import type { Family } from '../family.ts';
import { jsonRpcAudit } from './audit.ts';
import { jsonRpcExtras } from './derivation.ts';
import { JSON_RPC_METRIC_DECLARATIONS, JSON_RPC_METRICS as M } from './metrics.ts';
import { runJsonRpcProbe } from './probe.ts';

/**
 * json-rpc: every minute, each provider's JSON-RPC endpoint per chain answers five methods, each
 * timed and checked against our own reference node. Published by the shared `window` derivation:
 * latency over (chain, kind) cells and head lag over chain cells, regions pooled as cells are;
 * the extra is the unresponsive marker (consecutive down slots).
 */
export const jsonRpc: Family = {
  name: 'json-rpc',
  derivation: 'window',
  cadence: '1m',
  slotOffsetMs: 0,
  // Offsets span 30 s and a probe may take its 10 s timeout: the slot's samples are in by 50 s.
  deadlineMs: 50_000,
  metrics: JSON_RPC_METRIC_DECLARATIONS,
  // Every scored probe writes both; a provider with scored probes writes its down-slot marker.
  originMetrics: [M.probeOk, M.slotDown],
  derivationMetrics: [M.slotDown],
  rowFields: [],
  chainsFromEndpoints: true,
  adapterProviders: [],
  probe: runJsonRpcProbe,
  audit: jsonRpcAudit,
  windowExtras: jsonRpcExtras,
};
