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
  | { readonly kind: 'cursor-loop' };

/** A fault, optionally only for the next `times` requests to the provider. */
export type FaultSetting = Fault & { readonly times?: number };

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
] as const;
