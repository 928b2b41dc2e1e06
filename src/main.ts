import { ConfigError, loadConfig } from './config.ts';
import { registerSyntheticProviders } from './core/providers.ts';
import { SpecError } from './core/spec-schema.ts';
import { DemoClockError, type OpenedDemoClock, openDemoClock, scaledClock } from './demo/demo-clock.ts';
import { demoTruthReader } from './demo/demo-dexes.ts';
import { openDemoChains, REGIONAL_FAMILY, startRpcDemo } from './demo/rpc-demo.ts';
import { HarnessConfigError, loadHarnessConfig, simulatorEnv } from './harness/config.ts';
import { type Harness, startHarness } from './harness/service.ts';
import type { HarnessLog } from './harness/types.ts';
import { watchLauncher } from './launcher-watch.ts';
import { createLogger, type Logger } from './log.ts';
import { loadProviderCatalogue } from './publication/load-specs.ts';
import { readOrigins } from './publication/sample-origins.ts';
import { defaultRoutes } from './routes.ts';
import { createService, type Service } from './service.ts';
import { startSimulator } from './sim/server.ts';
import { StoreOpenError } from './store/open-errors.ts';
import { loadStoreConfig, type StoreConfig, StoreConfigError } from './store/prometheus-config.ts';

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

const MISSING_SOURCE_URL =
  "SOURCE_URL is not set: serve publishes real measurements with the public http(s) URL of the harness source that took them (e.g. https://github.com/you/citebench/tree/main/src/harness/families/{family}; {family} becomes each benchmark's family); only the demo and serve --simulate default it to BASE_URL/methodology#harness";

/**
 * A spec problem: one line when there is one (`invalid benchmark spec: benchmarks/x.yml: field …`),
 * else a heading and one line each.
 */
function specFailure(e: SpecError): never {
  fail(
    e.message.includes('\n')
      ? `invalid benchmark spec:\n${e.message}`
      : `invalid benchmark spec: ${e.message}`,
  );
}

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

/** One line for an unexpected start-up failure: operators get the cause, not a stack trace. */
function startupFailure(e: unknown): never {
  if (e instanceof StoreOpenError) fail(`cannot start: ${e.message}`);
  const err = e as NodeJS.ErrnoException;
  if (err?.code === 'EADDRINUSE') {
    const where = err.message.replace(/^listen EADDRINUSE: address already in use /, '');
    fail(`cannot start: ${where} is already in use; set PORT to a free port (e.g. PORT=8081)`);
  }
  if (err?.code === 'EACCES' && err.syscall === 'listen') fail(`cannot start: ${err.message}`);
  const first = (e instanceof Error ? e.message : String(e)).split('\n')[0];
  process.stderr.write(`cannot start: ${first}\n`);
  process.exit(1);
}

/** The harness configuration's error (every bad HARNESS_* or provider variable), or null. */
function harnessConfigError(): string | null {
  try {
    loadHarnessConfig();
    return null;
  } catch (e) {
    if (e instanceof HarnessConfigError) return e.message;
    throw e;
  }
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
  // The demo clock (DEMO_SPEED, kept in DATA_DIR): the schedule, the chains and the publication.
  const clock = scaledClock(service.clock, service.clockRate);
  // The demo chains: the json-rpc family's nodes, and the trade cells' ground truth and the
  // simulated trade providers' source (an hour of history, then following the clock).
  const chains = await openDemoChains({
    seed,
    now: clock.now(),
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
    now: clock.now(),
    env: process.env,
    log: harnessLog(log),
    backfillMs: 0,
  }).catch(async (e: unknown) => {
    await sim.close();
    await stopChains();
    throw e;
  });
  await Promise.all(chains.map((c) => c.buildTo(clock.now())));
  const harness = startHarness({
    store: service.store,
    specs: service.specs.filter((s) => s.family !== REGIONAL_FAMILY),
    metrics: service.metrics,
    // The operator's HARNESS_* (timeouts, retries, region) apply; the simulator gives URLs and keys.
    harnessConfig: loadHarnessConfig({ ...process.env, ...simulatorEnv(sim.baseUrls, sim.keys) }),
    log: harnessLog(log),
    simulated: true,
    truth: demoTruthReader(chains),
    clock,
  });
  rpc?.goLive(clock);
  const stopFollow = chains.map((c) => c.follow(clock));
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

/**
 * A store never mixes origins: the demo refuses one holding measured samples, and a real `serve`
 * one holding simulated samples unless started with --simulate. The message says what to do.
 */
async function checkStoreOrigin(service: Service, opts: StartOptions): Promise<string | null> {
  const o = await readOrigins(service.store);
  const dir = service.config.dataDir;
  if (opts.simulated && o.measured) {
    return `${dir} holds measured samples; ${opts.command === 'demo' ? 'the demo' : 'serve --simulate'} never writes simulated data beside them (set DATA_DIR to another folder)`;
  }
  if (!opts.simulated && o.simulated) {
    return `${dir} holds simulated samples (from the demo); serve them with \`citebench serve --simulate\`, or set DATA_DIR to another folder for real measurements`;
  }
  return null;
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
 * Starts the service from the environment; exits with one clear line on bad config, specs or a
 * DATA_DIR it cannot use. SIGTERM and SIGINT (also relayed by npm or tsx) stop it gracefully:
 * stop accepting, let requests in flight finish (bounded), let the harness finish its cycle
 * (bounded; a cycle cut short is abandoned whole, as its samples are one transaction), checkpoint
 * and close the store, exit 0. A second signal exits at once.
 */
export async function startFromEnv(
  prepare: Prepare = realHarness,
  opts: StartOptions = {},
): Promise<Service> {
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
    // The demo and serve --simulate run on the demo clock kept in DATA_DIR (src/demo/demo-clock.ts).
    let demoClock: OpenedDemoClock | undefined;
    try {
      if (config.simulated) {
        demoClock = await openDemoClock({
          dataDir: config.dataDir,
          speed: config.demoSpeed,
          start: config.demoStart,
        });
      }
      service = await createService({
        config,
        log,
        routes: defaultRoutes,
        store: storeConfig,
        ...(demoClock ? { clock: demoClock.clock.now, clockRate: demoClock.clock.rate } : {}),
        // The demo's closed days wait for its backfill plan (src/demo/backfill-plan.ts).
        ...(opts.command === 'demo' ? { awaitSlotPlan: true } : {}),
      });
    } catch (e) {
      if (e instanceof SpecError) specFailure(e);
      if (e instanceof DemoClockError) fail(`cannot start: ${e.message}`);
      throw e;
    }
    const refused = await checkStoreOrigin(service, opts);
    if (refused) {
      await service.close().catch(() => undefined);
      fail(`cannot start: ${refused}`);
    }
    if (demoClock) {
      await demoClock.save();
      const { anchor, anchorWall, speed } = demoClock.clock.anchor;
      log.info('demo clock', {
        now: new Date(demoClock.clock.now()).toISOString(),
        anchor: new Date(anchor).toISOString(),
        anchorWall: new Date(anchorWall).toISOString(),
        speed,
        origin: demoClock.origin,
      });
      if (config.demoStart !== null && demoClock.origin !== 'new')
        log.warn('DEMO_START ignored: DATA_DIR/demo-clock.json continues its simulated time');
    }
    stopExtra = await prepare(service, log, preparing.signal);
    if (stopping) return service;
    // Every closed day not frozen yet is frozen before the first request, so no past day is ever
    // computed on demand. On a shared engine only the process that runs the harness freezes (one
    // designated writer of SNAPSHOT_DIR); API replicas (HARNESS_ENABLED=false) only read it.
    if (storeConfig.backend === 'embedded' || process.env.HARNESS_ENABLED !== 'false') {
      await service.publication.startFreezer((e) => log.warn('snapshot freeze failed', { error: String(e) }));
    }
    const port = await service.listen();
    listening = true;
    log.info('listening', {
      url: `http://${config.host}:${port}`,
      baseUrl: config.baseUrl,
      dataDir: config.dataDir,
    });
    if (config.logLevel !== 'silent') process.stdout.write(welcome(config.baseUrl, config.simulated));
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
