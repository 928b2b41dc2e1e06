import { z } from 'zod';
import { type PrometheusStoreOptions, StoreConfigError, validateEngineUrl } from './prometheus-options.ts';

// The loader's callers catch StoreConfigError from here.
export { StoreConfigError, validateEngineUrl };

/** Which `SampleStore` the service runs on: the embedded DuckDB file, or a Prometheus-compatible engine. */
export type StoreConfig =
  | { readonly backend: 'embedded' }
  | {
      readonly backend: 'prometheus';
      readonly prometheus: PrometheusStoreOptions;
      /** SNAPSHOT_DIR: frozen days as files every replica reads (default DATA_DIR/snapshots). */
      readonly snapshotDir?: string;
      /** REPLICA_POLL_MS (default 5000): how often an API replica (HARNESS_ENABLED=false) reads the engine. */
      readonly replicaPollMs?: number;
    };

/** An integer from 1 to `max`, `fallback` when unset; a problem is a StoreConfigError. */
function positiveInt(name: string, raw: string | undefined, fallback: number, max: number): number {
  if (raw === undefined || raw === '') return fallback;
  const r = z.coerce.number().int().min(1).max(max).safeParse(raw);
  if (!r.success || !/^\d+$/.test(raw.trim())) {
    throw new StoreConfigError(`${name} must be an integer from 1 to ${max} (got "${raw}")`);
  }
  return r.data;
}

const nonEmpty = (raw: string | undefined): string | undefined =>
  raw === undefined || raw.trim() === '' ? undefined : raw.trim();

/**
 * Reads STORE and the PROMETHEUS_* variables. Throws a StoreConfigError naming each bad variable
 * and echoing its value (secrets excepted: a malformed token or password is never echoed), every
 * problem in its `problems`, not only the first.
 */
export function loadStoreConfig(
  env: Readonly<Record<string, string | undefined>> = process.env,
): StoreConfig {
  const store = nonEmpty(env.STORE) ?? 'embedded';
  if (store === 'embedded') return { backend: 'embedded' };
  // The other variables mean nothing without a backend that reads them.
  if (store !== 'prometheus') {
    throw new StoreConfigError(`STORE must be "embedded" or "prometheus" (got "${env.STORE}")`);
  }
  const problems: string[] = [];
  /** What `read` gives, or undefined with its problem kept: every variable is checked. */
  const checked = <T>(read: () => T): T | undefined => {
    try {
      return read();
    } catch (e) {
      if (!(e instanceof StoreConfigError)) throw e;
      problems.push(...e.problems);
      return undefined;
    }
  };
  const urlOf = (name: string, raw: string | undefined) =>
    raw === undefined ? undefined : checked(() => validateEngineUrl(name, raw));
  const rawUrl = nonEmpty(env.PROMETHEUS_URL);
  if (rawUrl === undefined) problems.push('PROMETHEUS_URL is required when STORE=prometheus');
  const url = urlOf('PROMETHEUS_URL', rawUrl);
  const rawWrite = nonEmpty(env.PROMETHEUS_WRITE_URL);
  const writeUrl = rawWrite === undefined ? `${url}/api/v1/write` : urlOf('PROMETHEUS_WRITE_URL', rawWrite);
  const flushUrl = urlOf('PROMETHEUS_FLUSH_URL', nonEmpty(env.PROMETHEUS_FLUSH_URL));

  const bearerToken = nonEmpty(env.PROMETHEUS_BEARER_TOKEN);
  const basic = nonEmpty(env.PROMETHEUS_BASIC_AUTH);
  if (bearerToken !== undefined && basic !== undefined) {
    problems.push('set PROMETHEUS_BEARER_TOKEN or PROMETHEUS_BASIC_AUTH, not both');
  }
  if (bearerToken !== undefined && /[\s\r\n]/.test(bearerToken)) {
    problems.push('PROMETHEUS_BEARER_TOKEN must not contain whitespace (value not shown)');
  }
  let basicAuth: { username: string; password: string } | undefined;
  if (basic !== undefined) {
    const i = basic.indexOf(':');
    if (i <= 0) problems.push('PROMETHEUS_BASIC_AUTH must be "user:password" (value not shown)');
    else basicAuth = { username: basic.slice(0, i), password: basic.slice(i + 1) };
  }
  const tenant = nonEmpty(env.PROMETHEUS_TENANT);
  // Mimir and Cortex accept tenant ids of printable ASCII without "/" (and "|" joins several ids).
  if (tenant !== undefined && !/^[\x21-\x2e\x30-\x7e]{1,150}$/.test(tenant)) {
    problems.push(`PROMETHEUS_TENANT must be 1-150 printable characters without "/" (got "${tenant}")`);
  }
  const snapshotDir = nonEmpty(env.SNAPSHOT_DIR);
  const replicaPollMs = checked(() => positiveInt('REPLICA_POLL_MS', env.REPLICA_POLL_MS, 5_000, 3_600_000));
  const timeoutMs = checked(() =>
    positiveInt('PROMETHEUS_TIMEOUT_MS', env.PROMETHEUS_TIMEOUT_MS, 10_000, 600_000),
  );
  const bufferSamples = checked(() =>
    positiveInt('PROMETHEUS_BUFFER_SAMPLES', env.PROMETHEUS_BUFFER_SAMPLES, 1_000_000, 100_000_000),
  );
  if (
    problems.length > 0 ||
    url === undefined ||
    writeUrl === undefined ||
    replicaPollMs === undefined ||
    timeoutMs === undefined ||
    bufferSamples === undefined
  ) {
    throw new StoreConfigError(problems.join('; '), problems);
  }
  return {
    backend: 'prometheus',
    ...(snapshotDir === undefined ? {} : { snapshotDir }),
    replicaPollMs,
    prometheus: {
      url,
      writeUrl,
      ...(flushUrl === undefined ? {} : { flushUrl }),
      ...(bearerToken === undefined ? {} : { bearerToken }),
      ...(basicAuth === undefined ? {} : { basicAuth }),
      ...(tenant === undefined ? {} : { tenant }),
      timeoutMs,
      bufferSamples,
    },
  };
}
