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
 * Reads STORE and the PROMETHEUS_* variables. Throws a StoreConfigError naming the variable and
 * echoing the bad value (secrets excepted: a malformed token or password is never echoed).
 */
export function loadStoreConfig(
  env: Readonly<Record<string, string | undefined>> = process.env,
): StoreConfig {
  const store = nonEmpty(env.STORE) ?? 'embedded';
  if (store === 'embedded') return { backend: 'embedded' };
  if (store !== 'prometheus') {
    throw new StoreConfigError(`STORE must be "embedded" or "prometheus" (got "${env.STORE}")`);
  }
  const rawUrl = nonEmpty(env.PROMETHEUS_URL);
  if (rawUrl === undefined) throw new StoreConfigError('PROMETHEUS_URL is required when STORE=prometheus');
  const url = validateEngineUrl('PROMETHEUS_URL', rawUrl);
  const rawWrite = nonEmpty(env.PROMETHEUS_WRITE_URL);
  const writeUrl =
    rawWrite === undefined ? `${url}/api/v1/write` : validateEngineUrl('PROMETHEUS_WRITE_URL', rawWrite);
  const rawFlush = nonEmpty(env.PROMETHEUS_FLUSH_URL);
  const flushUrl = rawFlush === undefined ? undefined : validateEngineUrl('PROMETHEUS_FLUSH_URL', rawFlush);

  const bearerToken = nonEmpty(env.PROMETHEUS_BEARER_TOKEN);
  const basic = nonEmpty(env.PROMETHEUS_BASIC_AUTH);
  if (bearerToken !== undefined && basic !== undefined) {
    throw new StoreConfigError('set PROMETHEUS_BEARER_TOKEN or PROMETHEUS_BASIC_AUTH, not both');
  }
  if (bearerToken !== undefined && /[\s\r\n]/.test(bearerToken)) {
    throw new StoreConfigError('PROMETHEUS_BEARER_TOKEN must not contain whitespace (value not shown)');
  }
  let basicAuth: { username: string; password: string } | undefined;
  if (basic !== undefined) {
    const i = basic.indexOf(':');
    if (i <= 0) throw new StoreConfigError('PROMETHEUS_BASIC_AUTH must be "user:password" (value not shown)');
    basicAuth = { username: basic.slice(0, i), password: basic.slice(i + 1) };
  }
  const tenant = nonEmpty(env.PROMETHEUS_TENANT);
  // Mimir and Cortex accept tenant ids of printable ASCII without "/" (and "|" joins several ids).
  if (tenant !== undefined && !/^[\x21-\x2e\x30-\x7e]{1,150}$/.test(tenant)) {
    throw new StoreConfigError(
      `PROMETHEUS_TENANT must be 1-150 printable characters without "/" (got "${tenant}")`,
    );
  }
  const snapshotDir = nonEmpty(env.SNAPSHOT_DIR);
  return {
    backend: 'prometheus',
    ...(snapshotDir === undefined ? {} : { snapshotDir }),
    replicaPollMs: positiveInt('REPLICA_POLL_MS', env.REPLICA_POLL_MS, 5_000, 3_600_000),
    prometheus: {
      url,
      writeUrl,
      ...(flushUrl === undefined ? {} : { flushUrl }),
      ...(bearerToken === undefined ? {} : { bearerToken }),
      ...(basicAuth === undefined ? {} : { basicAuth }),
      ...(tenant === undefined ? {} : { tenant }),
      timeoutMs: positiveInt('PROMETHEUS_TIMEOUT_MS', env.PROMETHEUS_TIMEOUT_MS, 10_000, 600_000),
      bufferSamples: positiveInt(
        'PROMETHEUS_BUFFER_SAMPLES',
        env.PROMETHEUS_BUFFER_SAMPLES,
        1_000_000,
        100_000_000,
      ),
    },
  };
}
