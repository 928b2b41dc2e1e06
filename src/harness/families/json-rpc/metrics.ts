import type { MetricDeclaration } from '../../../core/family.ts';

/** Metric names the json-rpc probe writes (Prometheus data model). */
export const JSON_RPC_METRICS = {
  /**
   * {provider, chain, kind}: the probe's time from request write to last body byte, ms; a failed
   * probe stores the timeout, so percentiles are the time to a correct answer, capped.
   */
  latencyMs: 'rpc_latency_ms',
  /** {provider, chain, kind, reason?}: 1 for a correct answer, 0 with the failure's `reason`. */
  probeOk: 'rpc_probe_ok',
  /**
   * {provider, chain}: the timestamp of our node's head read right after the answer − the
   * provider's `latest` block timestamp, ms (0 at or past that head); a failed block probe stores
   * at least the benchmark's failedValue (probe.ts samplesOf).
   */
  headLagMs: 'rpc_head_lag_ms',
  /** {provider, chain}: the number of the `latest` block a block probe's answer named. */
  headBlock: 'rpc_head_block',
  /** {provider, chain}: the number of our node's head a block probe's lag was measured against. */
  referenceHead: 'rpc_reference_head',
  /** {provider}: 1 when at least half of the provider's probes of the slot failed as down. */
  slotDown: 'rpc_slot_down',
  /**
   * {provider, chain, kind, reason}: 1 per probe not sent or not scored on our side (RPC_SKIP_REASONS),
   * so every exclusion is in the dataset beside what was scored.
   */
  probeExcluded: 'rpc_probe_excluded',
} as const;

/** The method probed: the `kind` label and dimension. */
export const RPC_KINDS = ['block-number', 'balance', 'call', 'logs', 'block'] as const;
export type RpcKind = (typeof RPC_KINDS)[number];

/** Why a probe failed: a closed list of codes, never the provider's own words. */
export const RPC_FAILURE_REASONS = [
  'timeout',
  'connect',
  'tls',
  'http_5xx',
  'http_429',
  'http_other',
  'rpc_error',
  'malformed',
  'wrong_chain',
  'wrong_result',
  'not_canonical',
  // HTTP 401/403 on some of the provider's probes of a slot but not all: the key works, so the
  // refusal is the provider's (a key refused on every probe is ours: key_refused).
  'refused',
] as const;
export type RpcFailureReason = (typeof RPC_FAILURE_REASONS)[number];

/** Failures that say the provider is down rather than wrong: they make a down slot. */
export const DOWN_REASONS: ReadonlySet<RpcFailureReason> = new Set(['timeout', 'connect', 'tls', 'http_5xx']);

/**
 * Why a probe was not sent or not scored, on our side: it is never scored against the provider; it
 * writes one rpc_probe_excluded sample with the reason and counts in harness_probes_skipped_total.
 */
export const RPC_SKIP_REASONS = [
  'deadline',
  'event_loop_lag',
  // A correct answer whose timed interval our own event loop delayed by more than the margin.
  'loop_delay',
  'no_reference',
  'stale_reference',
  'key_refused',
] as const;
export type RpcSkipReason = (typeof RPC_SKIP_REASONS)[number];

const M = JSON_RPC_METRICS;
const SERIES = ['provider', 'chain', 'kind'] as const;

export const JSON_RPC_METRIC_DECLARATIONS: readonly MetricDeclaration[] = [
  { name: M.latencyMs, labels: SERIES, help: 'Time to a correct answer (the timeout when failed), ms' },
  {
    name: M.probeOk,
    labels: [...SERIES, 'reason'],
    help: '1 for a correct answer; 0 with the failure reason',
  },
  {
    name: M.headLagMs,
    labels: ['provider', 'chain'],
    help: 'Our node head timestamp after the answer minus the provider latest block timestamp, ms',
  },
  {
    name: M.headBlock,
    labels: ['provider', 'chain'],
    help: 'The latest block number a block probe answered',
  },
  {
    name: M.referenceHead,
    labels: ['provider', 'chain'],
    help: 'Our node head block number read right after the block probe answered',
  },
  {
    name: M.probeExcluded,
    labels: [...SERIES, 'reason'],
    help: '1 per probe not sent or not scored on our side, with the reason (deadline, event_loop_lag, loop_delay, no_reference, stale_reference, key_refused)',
  },
  {
    name: M.slotDown,
    labels: ['provider'],
    help: '1 when at least half of the provider probes of the slot failed with timeout, connect, tls or 5xx',
  },
];
