/** Faults the simulator can inject per provider. */
export type Fault =
  /** Answer with this status and the provider's error body (429 carries Retry-After). */
  | { readonly kind: 'status'; readonly status: number; readonly retryAfterSec?: number }
  /** Extra latency before answering normally. */
  | { readonly kind: 'latency'; readonly ms: number }
  /** Never answer (the client's timeout must fire). */
  | { readonly kind: 'hang' }
  /** 200 with a body that is not JSON. */
  | { readonly kind: 'malformed' }
  /** 200 with valid JSON of the wrong shape. */
  | { readonly kind: 'wrong-shape' }
  /** 200 with the first half of the real body. */
  | { readonly kind: 'truncated' }
  /** 200 streaming a body of `bytes` (default 64 MiB) until the client gives up. */
  | { readonly kind: 'oversized'; readonly bytes?: number }
  /** Empty listings / empty trade pages. */
  | { readonly kind: 'empty' }
  /** Pagination that points back at a page already served. */
  | { readonly kind: 'cursor-loop' }
  /**
   * TCP reset (RST, as a crashed load balancer sends): before any byte by default, or after the
   * status line and `afterBytes` bytes of the real body, with a Content-Length that promised more.
   */
  | { readonly kind: 'reset'; readonly afterBytes?: number }
  /**
   * 200 with the real body dripped `bytesPerTick` (default 16) every `intervalMs` (default 250):
   * each chunk arrives well inside any idle timeout, so only a total-time bound ends it.
   */
  | { readonly kind: 'slow-drip'; readonly bytesPerTick?: number; readonly intervalMs?: number };

/** A fault, optionally only for the next `times` requests to the provider. */
export type FaultSetting = Fault & { readonly times?: number };

export type FaultKind = Fault['kind'];

export const FAULT_KINDS = [
  'status',
  'latency',
  'hang',
  'malformed',
  'wrong-shape',
  'truncated',
  'oversized',
  'empty',
  'cursor-loop',
  'reset',
  'slow-drip',
] as const satisfies readonly FaultKind[];

/**
 * Random faults at a rate: each request to a provider in `providers` (default all) draws, from a
 * PRNG seeded by `seed`, whether it fails (probability `rate`) and then one of `faults` uniformly.
 * A fault set with setFault() for a provider takes precedence over the mix.
 */
export interface FaultMix {
  readonly rate: number;
  readonly faults: readonly Fault[];
  readonly seed?: number;
  readonly providers?: readonly string[];
}

/** Stable label of a fault for counting: the kind, with the status for status faults. */
export function faultLabel(f: Fault): string {
  return f.kind === 'status' ? `status-${f.status}` : f.kind;
}
