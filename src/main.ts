import type { Server } from 'node:http';
import { within, withinDeadline } from './concurrency/deadline.ts';
import { MARKER_AHEAD_MS, MARKER_LOOKBACK_MS } from './core/family.ts';
import { registerSyntheticProviders } from './core/providers.ts';
import { SpecError } from './core/spec-schema.ts';
import { DemoClockError, type OpenedDemoClock, openDemoClock } from './demo/demo-clock.ts';
import { type Prepare, realHarness } from './harness-prepare.ts';
import { bindServer } from './http/node-server.ts';
import { answerStarting } from './http/starting.ts';
import { watchLauncher } from './launcher-watch.ts';
import { createLogger } from './log.ts';
import { FIRST_POLL_WAIT_MS, ORIGIN_CHECK_DEADLINE_MS } from './publication/engine-deadlines.ts';
import { startReplicaPoll } from './replica-poll.ts';
import type { Service } from './service.ts';
import {
  bindFailure,
  checkStoreOrigin,
  fail,
  failEach,
  specFailure,
  startupFailure,
} from './startup-failures.ts';
import { readSettings } from './startup-settings.ts';
import { StartupState } from './startup-state.ts';
import type { EngineStore } from './store/open-store.ts';
import type { Store } from './store/sample-store.ts';

export { harnessLog, type Prepare, simulatedHarness } from './harness-prepare.ts';

/**
 * Shutdown bounds. Requests in flight and the harness's current cycle get 5 s each, in parallel,
 * so with the store's checkpoint the process is gone well inside the 10 s a container runtime
 * waits between SIGTERM and SIGKILL; the hard stop is the backstop if anything hangs.
 */
export const SHUTDOWN = { drainMs: 5_000, harnessMs: 5_000, hardMs: 15_000 } as const;

const SIGNAL_EXIT: Readonly<Record<string, number>> = { SIGINT: 130, SIGTERM: 143 };

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
 * variable is validated (each problem one line), DATA_DIR's lock taken and the store opened, the
 * port bound, and only then is the app imported (1–4 s of module loading on 2 cores; the modules
 * imported statically here are the light ones), the backfill run, the closed days frozen. So a
 * fault is named within a second (bench/startup-faults.ts), and from the bind on /healthz answers
 * 503 "starting" (with the backfill's progress) until the first views can be served. An API
 * replica (STORE=prometheus, HARNESS_ENABLED=false) has nothing to backfill or freeze and binds once
 * its app is loaded, ready from its first answer whether its engine answers or not. SIGTERM and SIGINT (also relayed by npm
 * or tsx) stop it gracefully at any point: stop accepting, let requests in flight finish (bounded),
 * let the harness finish its cycle (bounded; a cycle cut short is abandoned whole, as its samples are
 * one transaction), checkpoint and close the store, exit 0. A second signal exits at once.
 */
export async function startFromEnv(
  prepare: Prepare = realHarness,
  opts: StartOptions = {},
): Promise<Service> {
  // 1. Every variable, before anything is touched: every problem is named, one line each.
  const simulated = opts.simulated === true;
  let settings: Awaited<ReturnType<typeof readSettings>>;
  try {
    // Every mode checks HARNESS_* (the demo and serve --simulate too, though the simulator gives
    // them their URLs and keys) before DATA_DIR is touched; the check reads the provider catalogue.
    // Real measurements are published with the source of the harness that took them; only simulated
    // data may fall back to the site's own methodology section (src/core/source-url.ts).
    settings = await readSettings(process.env, { store: true, sourceUrl: !simulated, harness: true });
  } catch (e) {
    if (e instanceof SpecError) specFailure(e);
    throw e;
  }
  if (!settings.ok) failEach(settings.problems.map((p) => `cannot start: ${p}`));
  const config = { ...settings.config, simulated };
  const storeConfig = settings.store;
  const log = createLogger(config.logLevel);
  // Before the specs are loaded: their provider slugs are checked against the registry.
  if (config.syntheticProviders > 0) {
    registerSyntheticProviders(config.syntheticProviders);
    log.warn('synthetic providers registered (scale benchmark)', { count: config.syntheticProviders });
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
    // The demo and serve --simulate run on the demo clock kept in DATA_DIR (src/demo/demo-clock.ts):
    // a bad demo-clock.json is a DATA_DIR fault, reported before the port is bound.
    let demoClock: OpenedDemoClock | undefined;
    if (config.simulated) {
      demoClock = await openDemoClock({
        dataDir: config.dataDir,
        speed: config.demoSpeed,
        start: config.demoStart,
      }).catch(async (e: unknown) => {
        if (!(e instanceof DemoClockError)) throw e;
        await release();
        return fail(`cannot start: ${e.message}`);
      });
    }
    /** An API replica of a split deployment: it reads an engine another process (the writer) fills. */
    const replica = storeConfig.backend === 'prometheus' && !config.harnessEnabled ? storeConfig : null;
    // A replica of a split demo follows the clock of its writer, `harness --simulate` (src/demo/shared-clock.ts).
    let followed: { readonly now: () => number } | undefined;
    if (demoClock && replica) {
      const [{ followWriterClock }, { snapshotDirOf }] = await Promise.all([
        import('./demo/shared-clock.ts'),
        import('./store/open-store.ts'),
      ]);
      followed = await followWriterClock(snapshotDirOf(replica, config.dataDir), demoClock.clock, log);
    }
    /** The app's modules, then the service on the store start-up opened (an engine's: opened here). */
    const createApp = async (): Promise<Service> => {
      const [{ createService }, { defaultRoutes }] = await Promise.all([
        import('./service.ts'),
        import('./routes.ts'),
      ]);
      const openedStore = await opening;
      try {
        return await createService({
          config,
          log,
          routes: defaultRoutes,
          // A replica's polls are its look at the engine (startReplicaPoll): its open sends nothing,
          // where the engine check took the client's retries with the engine away (1.75 s refused,
          // 4 timeouts hung) before the replica could answer.
          store: replica
            ? { ...replica, prometheus: { ...replica.prometheus, skipStartupCheck: true } }
            : storeConfig,
          startup,
          ...(openedStore ? { openedStore } : {}),
          ...(demoClock
            ? { clock: followed?.now ?? demoClock.clock.now, clockRate: demoClock.clock.rate }
            : {}),
          // The demo's closed days wait for its backfill plan (src/demo/backfill-plan.ts).
          ...(opts.command === 'demo' ? { awaitSlotPlan: true } : {}),
        });
      } catch (e) {
        if (stopping) return stopped();
        if (e instanceof SpecError) {
          await release();
          specFailure(e);
        }
        throw e;
      }
    };
    /** A failed bind, named by its variable (HOST or PORT) in one line. */
    const bindFailed = async (e: unknown): Promise<never> => {
      const named = bindFailure(e, config.host, config.port);
      if (named === null) throw e;
      if (service) await service.close().catch(() => undefined);
      else await release();
      return fail(`cannot start: ${named}`);
    };
    // Once the specs are loaded: their families name the metrics that carry the origin label.
    const checkOrigin = async (svc: Service) => {
      // A replica looks where its poll looks for cycles (the last 15 days), not at the whole
      // history: finding the engine's time bounds first took 3–11 s there with 7 hours of data.
      const now = svc.clock();
      const range = replica ? { notBefore: now - MARKER_LOOKBACK_MS, at: now + MARKER_AHEAD_MS } : undefined;
      const refused = await checkStoreOrigin(svc, opts, storeConfig, range);
      if (refused) {
        await svc.close().catch(() => undefined);
        fail(`cannot start: ${refused}`);
      }
    };
    let stopPoll: (() => void) | undefined;
    let port: number;
    if (replica) {
      // 3. A replica: the app, then the port. What it answers without its engine (the days frozen
      // in SNAPSHOT_DIR) is answered from its first answer on, never 503 `starting` while the app
      // loads or while it waits for an engine that may be away. The price: a busy port or a bad
      // HOST is reported once the app has loaded (1–4 s on 2 cores), not within a second.
      const svc = await createApp();
      service = svc;
      if (stopping) return stopped();
      // The origin is checked in the first poll the engine answers (src/replica-poll.ts), bounded:
      // the engine's own client retries for ~42 s. Until a poll answers, the engine counts as down.
      const poll = startReplicaPoll(svc.publication, replica.replicaPollMs ?? 5_000, log, () =>
        withinDeadline(checkOrigin(svc), ORIGIN_CHECK_DEADLINE_MS, 'the engine'),
      );
      stopPoll = poll.stop;
      startup.firstPoll = poll.first;
      // Read through the engine gate, which is closed until that poll answers: it fails at once,
      // so a region asked before the poll answers is 503 engine_unavailable, not an unknown 404.
      await svc.publication.loadDataValues().catch(() => undefined);
      // An API replica serves the days the writer (`citebench harness`) froze with its BASE_URL.
      const [{ replicaBaseUrlMismatch }, { snapshotDirOf }] = await Promise.all([
        import('./store/deployment-record.ts'),
        import('./store/open-store.ts'),
      ]);
      const mismatch = await replicaBaseUrlMismatch(
        snapshotDirOf(replica, config.dataDir),
        config.baseUrl,
      ).catch((e: unknown) => `cannot read the writer's deployment record: ${(e as Error).message}`);
      if (mismatch) log.warn(mismatch);
      startup.markReady();
      port = await svc.listen().catch(bindFailed);
      // What the open no longer waits for: an engine that answers, but not as a Prometheus API
      // (a wrong PROMETHEUS_URL), still stops the replica with one line.
      const engine = (svc.store as Partial<EngineStore>).engine;
      const checked = engine?.check().catch(async (e: unknown) => {
        await svc.close().catch(() => undefined);
        startupFailure(e);
      });
      // Serving already; its log starts once the first poll and that check are done (bounded), so
      // with the engine up a refusal (the origin check, the check) is the only line it prints.
      await within(Promise.all([poll.first, checked]), FIRST_POLL_WAIT_MS);
    } else {
      // 3. The port: from here every request is answered 503 `starting` until the service is ready.
      const bound = await bindServer(config.port, config.host, (req, res) =>
        answerStarting(req, res, startup),
      ).catch(bindFailed);
      server = bound.server;
      if (stopping) return stopped();
      // 4. The app, then the backfill, the freeze and the first measurements.
      service = await createApp();
      port = await service.listen(server);
      await checkOrigin(service);
    }
    if (stopping) return stopped();
    log.info('listening', {
      url: `http://${config.host}:${port}`,
      baseUrl: config.baseUrl,
      dataDir: config.dataDir,
      status: startup.ready ? 'ready' : 'starting',
    });
    if (demoClock) {
      await demoClock.save();
      const { anchor, anchorWall, speed } = demoClock.clock.anchor;
      log.info('demo clock', {
        now: new Date((followed?.now ?? demoClock.clock.now)()).toISOString(),
        anchor: new Date(anchor).toISOString(),
        anchorWall: new Date(anchorWall).toISOString(),
        speed,
        origin: demoClock.origin,
      });
      if (config.demoStart !== null && demoClock.origin !== 'new')
        log.warn('DEMO_START ignored: DATA_DIR/demo-clock.json continues its simulated time');
    }
    stopExtra = await prepare(service, log, preparing.signal, startup);
    if (stopping) return stopped();
    if (stopPoll) {
      const stopHarness = stopExtra;
      stopExtra = async () => {
        stopPoll?.();
        await stopHarness?.();
      };
    }
    // The region values stored so far are known before the first request asks for one (a
    // replica's: read by its first poll that answers).
    if (replica === null) await service.publication.loadDataValues().catch(() => undefined);
    // Every closed day not frozen yet is frozen before the first request, so no past day is ever
    // computed on demand. On a shared engine only the process that runs the harness freezes (one
    // designated writer of SNAPSHOT_DIR); API replicas (HARNESS_ENABLED=false) only read it.
    if (storeConfig.backend === 'embedded' || process.env.HARNESS_ENABLED !== 'false') {
      await service.publication.startFreezer((e) => log.warn('snapshot freeze failed', { error: String(e) }));
    }
    if (stopping) return stopped();
    startup.markReady();
    // Replicas compute views when asked: prewarming every view after each poll multiplied one
    // replica's engine queries per poll by 18 (bench:split: 5 to 92), and issue 27 bounds those
    // whatever the number of views; a fleet of replicas would multiply it again.
    if (replica === null) service.startPrewarm();
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
