import { createServer } from 'node:http';
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { Config } from '../config.ts';
import { HarnessConfigError, loadHarnessConfig } from '../harness/config.ts';
import { startHarness } from '../harness/service.ts';
import { watchLauncher } from '../launcher-watch.ts';
import { createLogger } from '../log.ts';
import { harnessLog } from '../main.ts';
import { loadSpecs } from '../publication/load-specs.ts';
import { createPublication } from '../publication/publication.ts';
import { droppedSamples } from '../service.ts';
import { readSettings } from '../startup-settings.ts';
import { writeDeploymentRecord } from '../store/deployment-record.ts';
import { type EngineHealth, watchEngine } from '../store/engine-health.ts';
import { type EngineStore, openStore, snapshotDirOf } from '../store/open-store.ts';
import type { Store } from '../store/sample-store.ts';
import {
  measuredSamplesRefusal,
  openWriterClock,
  shareWriterClock,
  startSimulatedWriter,
} from './harness-simulate.ts';
import { HARNESS_USAGE } from './harness-usage.ts';

/** The writer's own rules on its variables, each problem one line (without "cannot start: "). */
function writerProblems(env: Readonly<Record<string, string | undefined>>): string[] {
  const problems: string[] = [];
  // Frozen days carry BASE_URL in their citations and replicas serve them as they are: the
  // default http://localhost:8080 would be frozen in for good.
  if (env.STORE?.trim() === 'prometheus' && !env.BASE_URL?.trim()) {
    problems.push(
      "BASE_URL is required with STORE=prometheus: this harness freezes the closed days every API replica serves, and their citations carry BASE_URL (set it to the API's public URL, e.g. BASE_URL=https://bench.example.org)",
    );
  }
  const metricsPort = Number(env.HARNESS_METRICS_PORT ?? 9464);
  if (!Number.isInteger(metricsPort) || metricsPort < 0 || metricsPort > 65535) {
    problems.push(`HARNESS_METRICS_PORT=${env.HARNESS_METRICS_PORT} is not a port`);
  }
  return problems;
}

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
  const simulate = argv.includes('--simulate');
  const unknown = argv.filter((a) => a !== '--simulate');
  if (unknown.length > 0) {
    process.stderr.write(`harness: unknown option ${unknown[0]}\n${HARNESS_USAGE}`);
    return 2;
  }
  const env = deps.env ?? process.env;
  // Every setting at once, one line each: the service's, the store's, this writer's own, HARNESS_*.
  const settings = await readSettings(env, {
    store: true,
    sourceUrl: false,
    harness: true,
    more: writerProblems,
  });
  if (!settings.ok) {
    process.stderr.write(settings.problems.map((p) => `cannot start: ${p}\n`).join(''));
    return 2;
  }
  const config: Config = { ...settings.config, simulated: simulate };
  const storeConfig = settings.store;
  let harnessConfig: ReturnType<typeof loadHarnessConfig>;
  try {
    // Checked above where BENCHMARKS_DIR has a provider catalogue; without one this names it.
    harnessConfig = loadHarnessConfig(env);
  } catch (e) {
    if (!(e instanceof HarnessConfigError)) throw e;
    process.stderr.write(e.problems.map((p) => `cannot start: ${p}\n`).join(''));
    return 2;
  }
  const metricsPort = Number(env.HARNESS_METRICS_PORT ?? 9464);
  // The demo clock of DATA_DIR (--simulate): a bad demo-clock.json is one line, before anything starts.
  const clock = simulate ? await openWriterClock(config) : null;
  if (typeof clock === 'string') {
    process.stderr.write(`cannot start: ${clock}\n`);
    return 2;
  }
  const log = createLogger(config.logLevel);
  const specs = await loadSpecs(config.benchmarksDir);
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // The engine's state is logged once per change (engine-health.ts), also when found at start.
  let health: EngineHealth | undefined;
  const early: Error[] = [];
  const store: Store | EngineStore = await openStore(storeConfig, {
    dataDir: config.dataDir,
    duckdbMemoryLimit: config.duckdbMemoryLimit,
    onEngineError: (e) => (health ? health.onError(e) : early.push(e)),
    droppedSamplesCounter: droppedSamples(registry),
    ...(clock ? { clock: clock.clock.now } : {}),
  });
  if ('engine' in store) {
    health = watchEngine({ engine: store.engine, registry, log });
    for (const e of early.splice(0)) health.onError(e);
  }
  const snapshotDir =
    storeConfig.backend === 'prometheus' ? snapshotDirOf(storeConfig, config.dataDir) : null;
  const stopStore = async () => {
    health?.stop();
    await store.close();
  };
  if (simulate) {
    const where =
      storeConfig.backend === 'prometheus'
        ? `the engine at PROMETHEUS_URL=${storeConfig.prometheus.url}`
        : `DATA_DIR=${config.dataDir}`;
    const refused = await measuredSamplesRefusal(store, where);
    if (refused) {
      await stopStore();
      process.stderr.write(`cannot start: ${refused}\n`);
      return 2;
    }
  }
  if (snapshotDir !== null) await writeDeploymentRecord(snapshotDir, { baseUrl: config.baseUrl });
  if (clock) await shareWriterClock(clock, snapshotDir, log, config.demoStart !== null);
  const publication = createPublication({
    specs,
    store,
    config,
    ...(clock ? { clock: clock.clock.now, clockRate: clock.clock.rate, awaitSlotPlan: true } : {}),
  });
  // /metrics first: the engine's state and the backfill's cycles show while it runs.
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
  const metricsUrl = `http://${config.host}:${typeof addr === 'object' && addr ? addr.port : metricsPort}/metrics`;
  const stopped = new AbortController();
  let stopWatching = (): void => undefined;
  const stop = new Promise<string>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
    deps.signal?.addEventListener('abort', () => resolve('aborted'), { once: true });
    // SIGTERM to `npx citebench harness` reaches npm alone, which exits and leaves this process
    // running under its orphaned `sh -c` (src/launcher-watch.ts): its going away is a stop too.
    stopWatching = watchLauncher(resolve);
  });
  let why: string | undefined;
  void stop.then((w) => {
    why = w;
    stopped.abort();
  });
  let harness: { stop(): Promise<void> };
  let benchmarks: readonly string[];
  if (clock) {
    harness = await startSimulatedWriter({
      store,
      specs,
      metrics: registry,
      config,
      clock,
      publication,
      log,
      signal: stopped.signal,
    });
    benchmarks = specs.map((s) => s.slug);
  } else {
    const real = startHarness({ store, specs, metrics: registry, harnessConfig, log: harnessLog(log) });
    harness = real;
    benchmarks = real.benchmarks;
  }
  if (why === undefined) {
    await publication.startFreezer((e) => log.warn('snapshot freeze failed', { error: String(e) }));
    log.info('harness running', {
      benchmarks: benchmarks.join(','),
      metrics: metricsUrl,
      region: harnessConfig.region ?? '(none)',
      store: storeConfig.backend,
      ...(simulate ? { simulated: true } : {}),
    });
  }
  await stop;
  stopWatching();
  log.info('harness stopping', { signal: why ?? 'aborted' });
  await harness.stop();
  publication.close();
  await new Promise<void>((r) => server.close(() => r()));
  await stopStore();
  log.info('harness stopped');
  return 0;
}
