import { ConfigError, loadConfig } from './config.ts';
import { SpecError } from './core/spec-schema.ts';
import { createLogger } from './log.ts';
import { type Service, createService } from './service.ts';
import { defaultRoutes } from './routes.ts';

/** Starts the service from the environment; exits with a clear message on bad config or specs. */
export async function startFromEnv(
  prepare?: (service: Service) => Promise<(() => Promise<void>) | undefined>,
): Promise<Service> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
  const log = createLogger(config.logLevel);
  let service: Service;
  try {
    service = await createService({ config, log, routes: defaultRoutes });
  } catch (e) {
    if (e instanceof SpecError) {
      process.stderr.write(`invalid benchmark spec:\n${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
  const stopExtra = await prepare?.(service);
  service.publication.startFreezer((e) => log.warn('snapshot freeze failed', { error: String(e) }));
  const port = await service.listen();
  log.info('listening', { url: `http://${config.host}:${port}`, baseUrl: config.baseUrl, dataDir: config.dataDir });
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
