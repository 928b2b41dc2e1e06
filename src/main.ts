import { ConfigError, loadConfig } from './config.ts';
import { SpecError } from './core/spec-schema.ts';
import { HarnessConfigError, loadHarnessConfig } from './harness/config.ts';
import { startHarness } from './harness/service.ts';
import type { HarnessLog } from './harness/types.ts';
import { createLogger, type Logger } from './log.ts';
import { defaultRoutes } from './routes.ts';
import { createService, type Service } from './service.ts';

/** Extra start-up work before listening (a harness); returns how to stop it. */
export type Prepare = (service: Service, log: Logger) => Promise<(() => Promise<void>) | undefined>;

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

/** Starts the service from the environment; exits with a clear message on bad config or specs. */
export async function startFromEnv(prepare: Prepare = realHarness): Promise<Service> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) fail(e.message);
    throw e;
  }
  const log = createLogger(config.logLevel);
  let service: Service;
  try {
    service = await createService({ config, log, routes: defaultRoutes });
  } catch (e) {
    if (e instanceof SpecError) fail(`invalid benchmark spec:\n${e.message}`);
    throw e;
  }
  const stopExtra = await prepare(service, log);
  service.publication.startFreezer((e) => log.warn('snapshot freeze failed', { error: String(e) }));
  const port = await service.listen();
  log.info('listening', {
    url: `http://${config.host}:${port}`,
    baseUrl: config.baseUrl,
    dataDir: config.dataDir,
  });
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info('shutting down', { signal });
    const hard = setTimeout(() => process.exit(1), 10_000);
    hard.unref();
    await stopExtra?.();
    await service.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  return service;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await startFromEnv();
}
