import { createServer } from 'node:http';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { ConfigError, loadConfig } from '../config.ts';
import { HarnessConfigError, loadHarnessConfig } from '../harness/config.ts';
import { startHarness } from '../harness/service.ts';
import { watchLauncher } from '../launcher-watch.ts';
import { createLogger } from '../log.ts';
import { harnessLog } from '../main.ts';
import { loadProviderCatalogue, loadSpecs } from '../publication/load-specs.ts';
import { createPublication } from '../publication/publication.ts';
import { droppedSamples } from '../service.ts';
import { writeDeploymentRecord } from '../store/deployment-record.ts';
import { openStore, snapshotDirOf } from '../store/open-store.ts';
import { loadStoreConfig, StoreConfigError } from '../store/prometheus-config.ts';

export const HARNESS_USAGE = `usage: citebench harness [start] [--help]
       citebench harness run <benchmark> [options]   (see \`citebench harness run --help\`)

Runs the measurement harness alone: every benchmark at its cadence, no HTTP API, its own
/metrics on HARNESS_METRICS_PORT (default 9464). At start it reads each benchmark's newest cycle
from the store and logs \`resuming lastSlot=… next=…\`; a slot already stored is never run again.

With STORE=prometheus it is the writer of a split deployment: it writes samples to the engine at
PROMETHEUS_URL and is the one process that freezes closed days into SNAPSHOT_DIR, which API
replicas (\`citebench serve\` with HARNESS_ENABLED=false and the same STORE, PROMETHEUS_URL and
SNAPSHOT_DIR) read.

  STORE            embedded (default: DATA_DIR's database) or prometheus
  PROMETHEUS_URL   the engine's query API (required with STORE=prometheus)
  SNAPSHOT_DIR     the shared folder of frozen days (default DATA_DIR/snapshots); the writer
                   records its BASE_URL there in deployment.json
  BASE_URL         the API's public URL, written into every frozen day's citations (required
                   with STORE=prometheus: replicas serve those days as they are)
  HARNESS_REGION   labels this harness's samples (region=…): harnesses in several regions may
                   write to one engine
  HARNESS_METRICS_PORT  this process's /metrics port (default 9464)

  harness run      runs measurement cycles by hand and prints a table (no schedule)
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
    process.stdout.write(HARNESS_USAGE);
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
  // Frozen days carry BASE_URL in their citations and replicas serve them as they are: the
  // default http://localhost:8080 would be frozen in for good.
  if (storeConfig.backend === 'prometheus' && !env.BASE_URL?.trim()) {
    process.stderr.write(
      "cannot start: BASE_URL is required with STORE=prometheus: this harness freezes the closed days every API replica serves, and their citations carry BASE_URL (set it to the API's public URL, e.g. BASE_URL=https://bench.example.org)\n",
    );
    return 2;
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
  if (storeConfig.backend === 'prometheus') {
    await writeDeploymentRecord(snapshotDirOf(storeConfig, config.dataDir), { baseUrl: config.baseUrl });
  }
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
  let stopWatching = (): void => undefined;
  const why = await new Promise<string>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
    deps.signal?.addEventListener('abort', () => resolve('aborted'), { once: true });
    // SIGTERM to `npx citebench harness` reaches npm alone, which exits and leaves this process
    // running under its orphaned `sh -c` (src/launcher-watch.ts): its going away is a stop too.
    stopWatching = watchLauncher(resolve);
  });
  stopWatching();
  log.info('harness stopping', { signal: why });
  await harness.stop();
  publication.close();
  await new Promise<void>((r) => server.close(() => r()));
  await store.close();
  log.info('harness stopped');
  return 0;
}
