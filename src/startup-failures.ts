import type { SpecError } from './core/spec-schema.ts';
import type { StartOptions } from './main.ts';
import { readOrigins } from './publication/sample-origins.ts';
import type { Service } from './service.ts';
import { StoreOpenError } from './store/open-errors.ts';
import type { StoreConfig } from './store/prometheus-config.ts';

/**
 * Start-up's failures, each one line on stderr and a non-zero exit: never a stack trace, and
 * nothing else printed before it (src/main.ts reports every fault before its first log line).
 */

export const MISSING_SOURCE_URL =
  "SOURCE_URL is not set: serve publishes real measurements with the public http(s) URL of the harness source that took them (e.g. https://github.com/you/citebench/tree/main/src/harness/families/{family}; {family} becomes each benchmark's family); only the demo and serve --simulate default it to BASE_URL/methodology#harness";

/**
 * A spec problem: one line when there is one (`invalid benchmark spec: benchmarks/x.yml: field …`),
 * else a heading and one line each.
 */
export function specFailure(e: SpecError): never {
  fail(
    e.message.includes('\n')
      ? `invalid benchmark spec:\n${e.message}`
      : `invalid benchmark spec: ${e.message}`,
  );
}

export function fail(message: string): never {
  failEach([message]);
}

/** Several problems found at once (bad settings): one line each, then the same exit as one. */
export function failEach(lines: readonly string[]): never {
  process.stderr.write(lines.map((l) => `${l}\n`).join(''));
  process.exit(2);
}

/**
 * The variable a failed bind comes from, named with its value: the address (HOST) or the port
 * (PORT) that cannot be listened on. Null for other errors.
 */
export function bindFailure(e: unknown, host: string, port: number): string | null {
  const err = e as NodeJS.ErrnoException | undefined;
  switch (err?.code) {
    case 'EADDRINUSE':
      return `${host}:${port} is already in use; set PORT to a free port (e.g. PORT=8081)`;
    case 'EACCES':
      return err.syscall === 'listen'
        ? `PORT=${port} needs privileges this user does not have on ${host} (ports below 1024); set PORT to 1024 or above`
        : null;
    case 'EADDRNOTAVAIL':
      return `HOST=${host} is not an address of this machine; set HOST to one of its addresses (e.g. 127.0.0.1 or 0.0.0.0)`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `HOST=${host} does not resolve to an address (${err.code}); set HOST to a name or address of this machine`;
    default:
      return null;
  }
}

/** One line for an unexpected start-up failure: operators get the cause, not a stack trace. */
export function startupFailure(e: unknown): never {
  if (e instanceof StoreOpenError) fail(`cannot start: ${e.message}`);
  const first = (e instanceof Error ? e.message : String(e)).split('\n')[0];
  process.stderr.write(`cannot start: ${first}\n`);
  process.exit(1);
}

/**
 * A store never mixes origins: the demo refuses one holding measured samples, and a real `serve`
 * one holding simulated samples unless started with --simulate. The message says what to do.
 */
export async function checkStoreOrigin(
  service: Service,
  opts: StartOptions,
  store: StoreConfig = { backend: 'embedded' },
  range?: Parameters<typeof readOrigins>[1],
): Promise<string | null> {
  const o = await readOrigins(service.store, range);
  // Where the samples are, and what to change to use another place: the message names the
  // variable that points there (DATA_DIR for the embedded store, PROMETHEUS_URL for an engine).
  const where =
    store.backend === 'prometheus'
      ? {
          place: `the engine at PROMETHEUS_URL=${store.prometheus.url}`,
          other: 'point PROMETHEUS_URL at another engine (or tenant)',
        }
      : { place: `DATA_DIR=${service.config.dataDir}`, other: 'set DATA_DIR to another folder' };
  if (opts.simulated && o.measured) {
    return `${where.place} holds measured samples; ${opts.command === 'demo' ? 'the demo' : 'serve --simulate'} never writes simulated data beside them (${where.other})`;
  }
  if (!opts.simulated && o.simulated) {
    return `${where.place} holds simulated samples (from the demo); serve them with \`citebench serve --simulate\`, or ${where.other} for real measurements`;
  }
  return null;
}
