/** Why a provider probe failed. Failures are data about the provider, never crashes. */
export type FailureType =
  | 'timeout'
  | 'http_status'
  | 'rate_limit'
  | 'auth'
  | 'parse'
  | 'oversized'
  | 'network';

export interface ProbeFailure {
  readonly type: FailureType;
  readonly status?: number;
  readonly message: string;
}

export type Result<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly failure: ProbeFailure };

export function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}

export function fail<T>(type: FailureType, message: string, status?: number): Result<T> {
  return { ok: false, failure: status === undefined ? { type, message } : { type, message, status } };
}

/** Runs an adapter; an unexpected throw becomes a failure, so one provider can never break a cycle. */
export async function guard<T>(fn: () => Promise<Result<T>>): Promise<Result<T>> {
  try {
    return await fn();
  } catch (e) {
    return fail('parse', `unexpected error: ${(e as Error).message ?? String(e)}`);
  }
}

/** The spec's "timeout or 5xx" class: counts as zero trades and as a failed probe. */
export function isTimeoutOr5xx(f: ProbeFailure): boolean {
  return f.type === 'timeout' || (f.type === 'http_status' && (f.status ?? 0) >= 500);
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
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};
