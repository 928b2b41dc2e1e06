import { ProblemsError } from '../problems-error.ts';
/**
 * What a Prometheus store is opened with, and the check of its URLs. Its own module so the store
 * (which validates URLs it is given) and the environment loader (prometheus-config.ts, which builds
 * these options) both import it and not each other.
 */
export interface PrometheusStoreOptions {
  /** Query side: Prometheus, or the `…/prometheus` prefix of Mimir or a VictoriaMetrics cluster. */
  readonly url: string;
  /** Remote write receiver; default `${url}/api/v1/write`. */
  readonly writeUrl?: string;
  /**
   * Called (GET) after each successful write and before listeners fire, so a recompute reads what
   * was just written. VictoriaMetrics single-node needs `${url}/internal/force_flush`: measured on
   * 1.79, a new series becomes queryable ~10 s after the write, a new sample of a known one ~1 s.
   */
  readonly flushUrl?: string;
  readonly bearerToken?: string;
  readonly basicAuth?: { readonly username: string; readonly password: string };
  readonly tenant?: string;
  readonly timeoutMs?: number;
  /** Samples kept in memory while the engine is down; the oldest are dropped beyond it. */
  readonly bufferSamples?: number;
  readonly maxConcurrency?: number;
  readonly retries?: number;
  readonly retryBaseMs?: number;
  readonly retryMaxMs?: number;
  /** Longest range one raw query asks for; longer selects are split (engines cap samples per query). */
  readonly maxRangeMs?: number;
  /** `latest` first looks this far back in one raw query, and only searches further for series it missed. */
  readonly latestWindowMs?: number;
  /** No sample is older than this (epoch ms): bounds `series`, `timeBounds` and `latest`. */
  readonly historyStartMs?: number;
  /** The metrics `series()` and `timeBounds()` cover when called without names. */
  readonly metrics?: readonly string[];
  /** prom-client Counter (or anything with `inc`) counting samples dropped from a full buffer. */
  readonly droppedSamplesCounter?: { inc(n: number): void };
  /** Errors the caller cannot see: a failed flush, a buffered batch the engine rejected. */
  readonly onError?: (err: Error) => void;
  /**
   * The service's clock (the demo clock at DEMO_SPEED > 1, whose samples run ahead of the wall):
   * `series` and `timeBounds` look up to two days past it. Date.now when omitted.
   */
  readonly clock?: () => number;
  /** Skip the reachability check at open (tests of a down engine). */
  readonly skipStartupCheck?: boolean;
}

export class StoreConfigError extends ProblemsError {
  override readonly name = 'StoreConfigError';
}

/**
 * An engine URL: http(s), no credentials (they go in PROMETHEUS_BEARER_TOKEN or
 * PROMETHEUS_BASIC_AUTH, which never end up in logs), no query or fragment (paths are appended).
 */
export function validateEngineUrl(name: string, raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new StoreConfigError(`${name} must be an http(s) URL (got "${raw}")`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new StoreConfigError(`${name} must use http or https (got "${raw}")`);
  }
  if (u.username || u.password) {
    throw new StoreConfigError(
      `${name} must not carry credentials; use PROMETHEUS_BASIC_AUTH or PROMETHEUS_BEARER_TOKEN (got "${u.host}${u.pathname}")`,
    );
  }
  if (u.search || u.hash) throw new StoreConfigError(`${name} must have no query or fragment (got "${raw}")`);
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
}
