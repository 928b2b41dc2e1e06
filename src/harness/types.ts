/** Why a provider probe failed. Failures are data about the provider, never crashes. */
export type FailureType =
  | 'timeout'
  | 'http_status'
  | 'rate_limit'
  | 'auth'
  | 'parse'
  | 'oversized'
  | 'network'
  /** Our own cycle deadline (or shutdown) cut the request short: not the provider's doing. */
  | 'deadline';

export interface ProbeFailure {
  readonly type: FailureType;
  readonly status?: number;
  /** The provider's structured error code (GraphQL `errors[].extensions.code`), when it sent one. */
  readonly code?: string;
  readonly message: string;
}

export type Result<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly failure: ProbeFailure };

export function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}

export function fail<T>(type: FailureType, message: string, status?: number, code?: string): Result<T> {
  return {
    ok: false,
    failure: {
      type,
      message,
      ...(status !== undefined ? { status } : {}),
      ...(code !== undefined ? { code } : {}),
    },
  };
}

/** Runs an adapter; an unexpected throw becomes a failure, so one provider can never break a cycle. */
export async function guard<T>(fn: () => Promise<Result<T>>): Promise<Result<T>> {
  try {
    return await fn();
  } catch (e) {
    return fail('parse', `unexpected error: ${(e as Error).message ?? String(e)}`);
  }
}

/**
 * Who caused a failure: the one rule that decides what a failure writes (harness contract).
 * `provider`: every failure the provider causes (timeouts, 5xx and other statuses, 429 after the
 * retries, connection resets, DNS and connect failures, GraphQL errors, rate-limit and
 * unknown-token errors included, malformed, truncated or oversized bodies) counts as zero trades and
 * a failed probe. `ours`: our cycle deadline, and our key refused, never score the provider; each
 * stores an exclusion sample. A refusal is an HTTP 401/403 or an error code the provider documents
 * for it (the adapter's `authErrorCodes`): never words in a message, which also say "API key" about
 * rate limits and "token is invalid" about the token measured. It stays ours only when the provider
 * refused every probe of the cycle; otherwise the family scores it as the provider's failure
 * (trade-capture/refusals.ts, json-rpc keyRefusals).
 */
export function blame(f: ProbeFailure): 'provider' | 'ours' {
  if (f.type === 'deadline') return 'ours';
  if (f.type === 'auth' && (f.status === 401 || f.status === 403 || f.code !== undefined)) return 'ours';
  return 'provider';
}

export function is5xx(f: ProbeFailure): boolean {
  return f.type === 'http_status' && (f.status ?? 0) >= 500;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type HarnessLog = (level: LogLevel, msg: string, fields?: Readonly<Record<string, unknown>>) => void;

export const silentLog: HarnessLog = () => {};

/** Injected so tests and the demo backfill can drive time. */
export interface Clock {
  now(): number;
  /** Clock ms per real ms (a demo clock runs faster); 1 when absent. */
  readonly rate?: number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};
