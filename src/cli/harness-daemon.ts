import { createServer } from 'node:http';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { ConfigError, loadConfig } from '../config.ts';
import { HarnessConfigError, loadHarnessConfig } from '../harness/config.ts';
import { startHarness } from '../harness/service.ts';
import { createLogger } from '../log.ts';
import { harnessLog } from '../main.ts';
import { loadProviderCatalogue, loadSpecs } from '../publication/load-specs.ts';
import { createPublication } from '../publication/publication.ts';
import { droppedSamples } from '../service.ts';
import { openStore } from '../store/open-store.ts';
import { loadStoreConfig, StoreConfigError } from '../store/prometheus-config.ts';

const USAGE = `usage: citebench harness [--help]

Runs the measurement harness alone: every benchmark at its cadence, no HTTP API, its own
/metrics on HARNESS_METRICS_PORT (default 9464). With STORE=prometheus it writes to the engine
and is the one process that freezes closed days into SNAPSHOT_DIR, which API replicas
(\`citebench serve\` with HARNESS_ENABLED=false) read. HARNESS_REGION labels its samples.
`;

/**
 * `citebench harness`: the split deployment's writer. Returns when stopped (SIGINT/SIGTERM or
 * `signal`), with an exit code.
 */
export async function runHarnessDaemon(
  argv: readonly string[],
  deps: { env?: Readonly<Record<string, string | undefined>>; signal?: AbortSignal } = {},
): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(USAGE);
    return 0;
  }
  const env = deps.env ?? process.env;
  let config: ReturnType<typeof loadConfig>;
  let storeConfig: ReturnType<typeof loadStoreConfig>;
  let harnessConfig: ReturnType<typeof loadHarnessConfig>;
  try {
    config = loadConfig(env);
    storeConfig = loadStoreConfig(env);
    // The harness configuration reads which providers need keys from the provider catalogue.
    await loadProviderCatalogue(config.benchmarksDir);
    harnessConfig = loadHarnessConfig(env);
  } catch (e) {
    if (e instanceof ConfigError || e instanceof StoreConfigError || e instanceof HarnessConfigError) {
      process.stderr.write(`cannot start: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  const metricsPort = Number(env.HARNESS_METRICS_PORT ?? 9464);
  if (!Number.isInteger(metricsPort) || metricsPort < 0 || metricsPort > 65535) {
    process.stderr.write(`cannot start: HARNESS_METRICS_PORT=${env.HARNESS_METRICS_PORT} is not a port\n`);
    return 2;
  }
  const log = createLogger(config.logLevel);
  const specs = await loadSpecs(config.benchmarksDir);
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const store = await openStore(storeConfig, {
    dataDir: config.dataDir,
    duckdbMemoryLimit: config.duckdbMemoryLimit,
    onEngineError: (e) => log.warn('sample store engine error', { error: e.message }),
    droppedSamplesCounter: droppedSamples(registry),
  });
  const harness = startHarness({ store, specs, metrics: registry, harnessConfig, log: harnessLog(log) });
  const publication = createPublication({ specs, store, config });
  await publication.startFreezer((e) => log.warn('snapshot freeze failed', { error: String(e) }));
  const server = createServer((req, res) => {
    if (req.url !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('only /metrics here\n');
      return;
    }
    void registry.metrics().then((text) => {
      res.writeHead(200, { 'content-type': registry.contentType }).end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(metricsPort, config.host, () => resolve()));
  const addr = server.address();
  log.info('harness running', {
    benchmarks: harness.benchmarks.join(','),
    metrics: `http://${config.host}:${typeof addr === 'object' && addr ? addr.port : metricsPort}/metrics`,
    region: harnessConfig.region ?? '(none)',
    store: storeConfig.backend,
  });
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
    deps.signal?.addEventListener('abort', () => resolve(), { once: true });
  });
  log.info('harness stopping');
  await harness.stop();
  publication.close();
  await new Promise<void>((r) => server.close(() => r()));
  await store.close();
  return 0;
}
