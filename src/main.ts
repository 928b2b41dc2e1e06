import type { Server } from 'node:http';
import { ConfigError, loadConfig } from './config.ts';
import { registerSyntheticProviders } from './core/providers.ts';
import { SpecError } from './core/spec-schema.ts';
import { loadHarnessConfig, simulatorEnv } from './harness/config.ts';
import type { Harness } from './harness/service.ts';
import { type HarnessLog, systemClock } from './harness/types.ts';
import { bindServer } from './http/node-server.ts';
import { answerStarting } from './http/starting.ts';
import { watchLauncher } from './launcher-watch.ts';
import { createLogger, type Logger } from './log.ts';
import { loadProviderCatalogue } from './publication/provider-catalogue-file.ts';
import type { Service } from './service.ts';
import {
  bindFailure,
  checkStoreOrigin,
  fail,
  harnessConfigError,
  MISSING_SOURCE_URL,
  specFailure,
  startupFailure,
} from './startup-failures.ts';
import { type StartupProgress, StartupState } from './startup-state.ts';
import { loadStoreConfig, type StoreConfig, StoreConfigError } from './store/prometheus-config.ts';
import type { Store } from './store/sample-store.ts';

/**
 * Extra start-up work once the port is bound (a harness, the demo's backfill), while every request
 * is answered 503 `starting`; returns how to stop it. `signal` fires when a shutdown signal arrives
 * during that work (a long backfill may stop early on it); `startup` takes the backfill's progress,
 * which /healthz shows.
 */
export type Prepare = (
  service: Service,
  log: Logger,
  signal: AbortSignal,
  startup: StartupProgress,
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

/**
 * On a store with no sample yet, every benchmark is measured once right away (at its latest aligned
 * slot) instead of after the next 30-minute or 6-hour slot; the scheduler then carries on.
 */
async function measureOnceIfEmpty(service: Service, harness: Harness, log: Logger): Promise<void> {
  if ((await service.store.timeBounds()) !== null) return;
  for (const spec of service.specs) {
    if (!harness.benchmarks.includes(spec.slug)) continue;
    log.info('empty DATA_DIR: measuring now instead of waiting for the next slot', { benchmark: spec.slug });
    harness
      .measureNow(spec.slug)
      .catch((e: unknown) => log.warn('start-up cycle failed', { benchmark: spec.slug, error: String(e) }));
  }
}

/** The default: the real harness against the providers' APIs, in this process (one writer). */
const realHarness: Prepare = async (service, log) => {
  if (!service.config.harnessEnabled) {
    log.info('harness disabled (HARNESS_ENABLED=false); serving stored data only');
    return undefined;
  }
  const { startHarness } = await import('./harness/service.ts');
  // Validated at start-up already (startFromEnv), so this cannot fail here.
  const harness = startHarness({
    store: service.store,
    specs: service.specs,
    metrics: service.metrics,
    harnessConfig: loadHarnessConfig(),
    log: harnessLog(log),
  });
  await measureOnceIfEmpty(service, harness, log);
  return () => harness.stop();
};

/**
 * `serve --simulate`: the same harness and schedule against the simulated providers (seed
 * DEMO_SEED), every sample labelled simulated; no backfill (that is `demo`).
 */
export const simulatedHarness: Prepare = async (service, log) => {
  if (!service.config.harnessEnabled) {
    log.info('harness disabled (HARNESS_ENABLED=false); serving stored simulated data only');
    return undefined;
  }
  const seed = service.config.demoSeed;
  const [
    { openDemoChains, REGIONAL_FAMILY, startRpcDemo },
    { startSimulator },
    { startHarness },
    { demoTruthReader },
  ] = await Promise.all([
    import('./demo/rpc-demo.ts'),
    import('./sim/server.ts'),
    import('./harness/service.ts'),
    import('./demo/demo-dexes.ts'),
  ]);
  // The demo chains: the json-rpc family's nodes, and the trade cells' ground truth and the
  // simulated trade providers' source (an hour of history, then following the clock).
  const chains = await openDemoChains({
    seed,
    now: Date.now(),
    dataDir: service.config.dataDir,
    log: harnessLog(log),
    backfillMs: 0,
    // The first cycle measures the latest closed 30-min slot: its window opens up to 90 min ago.
    chainLeadMs: 100 * 60_000,
  });
  const stopChains = () => Promise.all(chains.map((c) => c.stop()));
  const sim = await startSimulator({
    seed,
    chains: chains.map((c) => ({ chain: c.chain, url: c.node.url })),
  }).catch(async (e: unknown) => {
    await stopChains();
    throw e;
  });
  // The json-rpc family measures its own simulated nodes, one harness per region (rpc-demo.ts).
  const rpc = await startRpcDemo({
    store: service.store,
    chains,
    specs: service.specs.filter((s) => s.family === REGIONAL_FAMILY),
    metrics: service.metrics,
    seed,
    now: Date.now(),
    env: process.env,
    log: harnessLog(log),
    backfillMs: 0,
  }).catch(async (e: unknown) => {
    await sim.close();
    await stopChains();
    throw e;
  });
  await Promise.all(chains.map((c) => c.buildTo(Date.now())));
  const harness = startHarness({
    store: service.store,
    specs: service.specs.filter((s) => s.family !== REGIONAL_FAMILY),
    metrics: service.metrics,
    // The operator's HARNESS_* (timeouts, retries, region) apply; the simulator gives URLs and keys.
    harnessConfig: loadHarnessConfig({ ...process.env, ...simulatorEnv(sim.baseUrls, sim.keys) }),
    log: harnessLog(log),
    simulated: true,
    truth: demoTruthReader(chains),
  });
  rpc?.goLive(systemClock);
  const stopFollow = chains.map((c) => c.follow(systemClock));
  await measureOnceIfEmpty(service, harness, log);
  return async () => {
    for (const f of stopFollow) f();
    await Promise.all([harness.stop(), rpc?.stop()]);
    await sim.close();
    await stopChains();
  };
};

export interface StartOptions {
  /** Simulated providers (the demo, `serve --simulate`): marked everywhere, refused on a measured store. */
  readonly simulated?: boolean;
  /** The command, for the refusal messages: `demo` or `serve`. */
  readonly command?: 'demo' | 'serve';
}

/** What a first-time user needs after start-up: where to look and three things to try. */
function welcome(baseUrl: string, simulated: boolean): string {
  return [
    '',
    `  Citebench is running${simulated ? ' on SIMULATED demo data' : ''}: open ${baseUrl}/`,
    '',
    '  Try:',
    `    curl ${baseUrl}/api/citable`,
    `    curl '${baseUrl}/api/stat/token-trade-coverage?chain=solana'`,
    `    curl ${baseUrl}/api/cite/network-coverage/bib`,
    '',
    '',
  ].join('\n');
}

/**
 * Starts the service from the environment, failing fast, then saying when it is ready: every
 * variable is validated, DATA_DIR's lock taken and the store opened, the port bound, and only then
 * is the app imported (1–4 s of module loading on 2 cores; the modules imported statically here
 * are the light ones), the backfill run, the closed days frozen. So a fault is one line within a
 * second (bench/startup-faults.ts), and from the bind on /healthz answers 503 "starting" (with the
 * backfill's progress) until the first views can be served. SIGTERM and SIGINT (also relayed by npm
 * or tsx) stop it gracefully at any point: stop accepting, let requests in flight finish (bounded),
 * let the harness finish its cycle (bounded; a cycle cut short is abandoned whole, as its samples are
 * one transaction), checkpoint and close the store, exit 0. A second signal exits at once.
 */
export async function startFromEnv(
  prepare: Prepare = realHarness,
  opts: StartOptions = {},
): Promise<Service> {
  // 1. Every variable, before anything is touched.
  let config: ReturnType<typeof loadConfig>;
  let storeConfig: StoreConfig;
  try {
    config = { ...loadConfig(), simulated: opts.simulated === true };
    storeConfig = loadStoreConfig();
  } catch (e) {
    if (e instanceof ConfigError || e instanceof StoreConfigError) fail(`cannot start: ${e.message}`);
    throw e;
  }
  // Real measurements are published with the source of the harness that took them; only simulated
  // data may fall back to the site's own methodology section (src/core/source-url.ts).
  if (!config.simulated && config.sourceUrl === null) fail(`cannot start: ${MISSING_SOURCE_URL}`);
  const log = createLogger(config.logLevel);
  // Before the specs are loaded: their provider slugs are checked against the registry.
  if (config.syntheticProviders > 0) {
    registerSyntheticProviders(config.syntheticProviders);
    log.warn('synthetic providers registered (scale benchmark)', { count: config.syntheticProviders });
  }
  // Every mode checks HARNESS_* (the demo and serve --simulate too, though the simulator gives
  // them their URLs and keys) before DATA_DIR is touched; the check reads the provider catalogue.
  try {
    if (await loadProviderCatalogue(config.benchmarksDir)) {
      const harnessError = harnessConfigError();
      if (harnessError) fail(`cannot start: ${harnessError}`);
    }
  } catch (e) {
    if (e instanceof SpecError) specFailure(e);
    throw e;
  }
  const startup = new StartupState();
  /** The embedded store being opened (it holds DATA_DIR's lock from then on); an engine store holds none. */
  let opening: Promise<Store> | undefined;
  let server: Server | undefined;
  let service: Service | undefined;
  let stopExtra: (() => Promise<void>) | undefined;
  let stopping: string | undefined;
  const preparing = new AbortController();
  /** What start-up holds before the service owns it: the port, then the store (an open in flight finishes first). */
  const release = async () => {
    server?.close();
    server?.closeAllConnections();
    const store = await opening?.catch(() => undefined);
    await store?.close().catch(() => undefined);
  };

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
        svc.drain(SHUTDOWN.drainMs),
        stopExtra ? within(stopExtra(), SHUTDOWN.harnessMs) : Promise.resolve(true),
      ]);
      if (cut > 0) log.warn('requests cut short at shutdown', { requests: cut });
      // The store refuses new statements once closing, so a cycle still running now either has
      // committed its one append or never will: nothing half-written.
      if (!harnessDone) log.warn('harness cycle abandoned at shutdown (nothing partial is stored)');
      await svc.close();
    } else {
      await release();
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
  // Start-up's work, failing or returning under a shutdown (which exits), is not a start-up fault.
  const stopped = () => new Promise<never>(() => {});

  try {
    // 2. DATA_DIR's lock and the store: locked, unwritable, full or not a database is one line here.
    if (storeConfig.backend === 'embedded') {
      const { openStore } = await import('./store/open-store.ts');
      opening = openStore(storeConfig, {
        dataDir: config.dataDir,
        duckdbMemoryLimit: config.duckdbMemoryLimit,
      });
      await opening;
    }
    if (stopping) return stopped();
    // 3. The port: from here every request is answered 503 `starting` until the service is ready.
    const bound = await bindServer(config.port, config.host, (req, res) =>
      answerStarting(req, res, startup),
    ).catch(async (e: unknown) => {
      const named = bindFailure(e, config.host, config.port);
      if (named === null) throw e;
      await release();
      return fail(`cannot start: ${named}`);
    });
    server = bound.server;
    if (stopping) return stopped();
    // 4. The app, then the backfill, the freeze and the first measurements.
    const [{ createService }, { defaultRoutes }] = await Promise.all([
      import('./service.ts'),
      import('./routes.ts'),
    ]);
    const openedStore = await opening;
    try {
      service = await createService({
        config,
        log,
        routes: defaultRoutes,
        store: storeConfig,
        startup,
        ...(openedStore ? { openedStore } : {}),
      });
    } catch (e) {
      if (stopping) return stopped();
      if (e instanceof SpecError) {
        await release();
        specFailure(e);
      }
      throw e;
    }
    const port = await service.listen(server);
    // Once the specs are loaded: their families name the metrics that carry the origin label.
    const refused = await checkStoreOrigin(service, opts);
    if (refused) {
      await service.close().catch(() => undefined);
      fail(`cannot start: ${refused}`);
    }
    if (stopping) return stopped();
    log.info('listening', {
      url: `http://${config.host}:${port}`,
      baseUrl: config.baseUrl,
      dataDir: config.dataDir,
      status: 'starting',
    });
    stopExtra = await prepare(service, log, preparing.signal, startup);
    if (stopping) return stopped();
    // Every closed day not frozen yet is frozen before the first request, so no past day is ever
    // computed on demand. On a shared engine only the process that runs the harness freezes (one
    // designated writer of SNAPSHOT_DIR); API replicas (HARNESS_ENABLED=false) only read it.
    if (storeConfig.backend === 'embedded' || process.env.HARNESS_ENABLED !== 'false') {
      await service.publication.startFreezer((e) => log.warn('snapshot freeze failed', { error: String(e) }));
    }
    if (stopping) return stopped();
    startup.markReady();
    log.info('ready', { url: `http://${config.host}:${port}` });
    if (config.logLevel !== 'silent') process.stdout.write(welcome(config.baseUrl, config.simulated));
    return service;
  } catch (e) {
    if (stopping) return stopped();
    if (service) await service.close().catch(() => undefined);
    else await release();
    startupFailure(e);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await startFromEnv();
}
