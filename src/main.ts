import { ConfigError, loadConfig } from './config.ts';
import { SpecError } from './core/spec-schema.ts';
import { HarnessConfigError, loadHarnessConfig } from './harness/config.ts';
import { startHarness } from './harness/service.ts';
import type { HarnessLog } from './harness/types.ts';
import { watchLauncher } from './launcher-watch.ts';
import { createLogger, type Logger } from './log.ts';
import { defaultRoutes } from './routes.ts';
import { createService, type Service } from './service.ts';
import { StoreOpenError } from './store/open-errors.ts';

/**
 * Extra start-up work before listening (a harness); returns how to stop it. `signal` fires when a
 * shutdown signal arrives during that work (a long backfill may stop early on it).
 */
export type Prepare = (
  service: Service,
  log: Logger,
  signal: AbortSignal,
) => Promise<(() => Promise<void>) | undefined>;

/**
 * Shutdown bounds. Requests in flight and the harness's current cycle get 5 s each, in parallel,
 * so with the store's checkpoint the process is gone well inside the 10 s a container runtime
 * waits between SIGTERM and SIGKILL; the hard stop is the backstop if anything hangs.
 */
export const SHUTDOWN = { drainMs: 5_000, harnessMs: 5_000, hardMs: 15_000 } as const;

const SIGNAL_EXIT: Readonly<Record<string, number>> = { SIGINT: 130, SIGTERM: 143 };

export function harnessLog(log: Logger): HarnessLog {
  return (level, msg, fields) => {
    const f = fields ? { ...fields } : undefined;
    if (level === 'debug') log.debug(msg, f);
    else if (level === 'info') log.info(msg, f);
    else if (level === 'warn') log.warn(msg, f);
    else log.error(msg, f);
  };
}

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

/** One line for an unexpected start-up failure: operators get the cause, not a stack trace. */
function startupFailure(e: unknown): never {
  if (e instanceof StoreOpenError) fail(`cannot start: ${e.message}`);
  const err = e as NodeJS.ErrnoException;
  if (err?.code === 'EADDRINUSE')
    fail(`cannot start: ${err.message.replace(/^listen /, '')} (PORT is taken)`);
  if (err?.code === 'EACCES' && err.syscall === 'listen') fail(`cannot start: ${err.message}`);
  const first = (e instanceof Error ? e.message : String(e)).split('\n')[0];
  process.stderr.write(`cannot start: ${first}\n`);
  process.exit(1);
}

/** Resolves true when `p` settles within `ms`, false when the bound passes first. */
function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(false), ms);
    p.then(
      () => resolve(true),
      () => resolve(true),
    ).finally(() => clearTimeout(t));
  });
}

/** The default: the real harness against the providers' APIs, in this process (one writer). */
const realHarness: Prepare = async (service, log) => {
  if (process.env.HARNESS_ENABLED === 'false') {
    log.info('harness disabled (HARNESS_ENABLED=false); serving stored data only');
    return undefined;
  }
  let harnessConfig: ReturnType<typeof loadHarnessConfig>;
  try {
    harnessConfig = loadHarnessConfig();
  } catch (e) {
    if (e instanceof HarnessConfigError) fail(e.message);
    throw e;
  }
  const harness = startHarness({
    store: service.store,
    specs: service.specs,
    metrics: service.metrics,
    harnessConfig,
    log: harnessLog(log),
  });
  return () => harness.stop();
};

/**
 * Starts the service from the environment; exits with one clear line on bad config, specs or a
 * DATA_DIR it cannot use. SIGTERM and SIGINT (also relayed by npm or tsx) stop it gracefully:
 * stop accepting, let requests in flight finish (bounded), let the harness finish its cycle
 * (bounded; a cycle cut short is abandoned whole, as its samples are one transaction), checkpoint
 * and close the store, exit 0. A second signal exits at once.
 */
export async function startFromEnv(prepare: Prepare = realHarness): Promise<Service> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) fail(e.message);
    throw e;
  }
  const log = createLogger(config.logLevel);
  let service: Service | undefined;
  let stopExtra: (() => Promise<void>) | undefined;
  let listening = false;
  let stopping: string | undefined;
  const preparing = new AbortController();

  const stop = async (signal: string) => {
    if (stopping) {
      process.stderr.write(`${signal} again: exiting now\n`);
      process.exit(SIGNAL_EXIT[signal] ?? 1);
    }
    stopping = signal;
    log.info('shutting down', { signal });
    const hard = setTimeout(() => {
      process.stderr.write(`shutdown did not finish within ${SHUTDOWN.hardMs} ms; exiting\n`);
      process.exit(1);
    }, SHUTDOWN.hardMs);
    hard.unref();
    preparing.abort();
    const svc = service;
    if (svc) {
      const [cut, harnessDone] = await Promise.all([
        listening ? svc.drain(SHUTDOWN.drainMs) : Promise.resolve(0),
        stopExtra ? within(stopExtra(), SHUTDOWN.harnessMs) : Promise.resolve(true),
      ]);
      if (cut > 0) log.warn('requests cut short at shutdown', { requests: cut });
      // The store refuses new statements once closing, so a cycle still running now either has
      // committed its one append or never will: nothing half-written.
      if (!harnessDone) log.warn('harness cycle abandoned at shutdown (nothing partial is stored)');
      await svc.close();
    }
    log.info('stopped', { signal });
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  // Not a signal: never the "second signal" that exits at once.
  watchLauncher((why) => {
    if (!stopping) void stop(why);
  });

  try {
    try {
      service = await createService({ config, log, routes: defaultRoutes });
    } catch (e) {
      if (e instanceof SpecError) fail(`invalid benchmark spec:\n${e.message}`);
      throw e;
    }
    stopExtra = await prepare(service, log, preparing.signal);
    if (stopping) return service;
    // Every closed day not frozen yet is frozen before the first request, so no past day is ever
    // computed on demand.
    await service.publication.startFreezer((e) => log.warn('snapshot freeze failed', { error: String(e) }));
    const port = await service.listen();
    listening = true;
    log.info('listening', {
      url: `http://${config.host}:${port}`,
      baseUrl: config.baseUrl,
      dataDir: config.dataDir,
    });
    return service;
  } catch (e) {
    // A signal during start-up closes the store under the work in progress, which then fails:
    // that is the shutdown running, not a start-up fault.
    if (stopping) return new Promise<never>(() => {});
    if (service) await service.close().catch(() => undefined);
    startupFailure(e);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await startFromEnv();
}
