import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { getRequestListener, type HttpBindings } from '@hono/node-server';
import type { Hono } from 'hono';
import { Counter, collectDefaultMetrics, Registry } from 'prom-client';
import type { Config } from './config.ts';
import type { BuildInfo } from './core/provenance.ts';
import type { BenchmarkSpec } from './core/spec-schema.ts';
import { buildApp, type RouteExtras } from './http/app.ts';
import { asGet, headOf, withRedirectLength } from './http/head.ts';
import { HotPath } from './http/hot-path.ts';
import { laneGate } from './http/lane-gate.ts';
import { bindServer, boundPort, LIMITS } from './http/node-server.ts';
import { CACHE } from './http/respond.ts';
import { answerStarting } from './http/starting.ts';
import type { Logger } from './log.ts';
import { MCP_PATH } from './mcp/routes.ts';
import { VIEW_READ_DEADLINE_MS } from './publication/engine-deadlines.ts';
import { loadSpecs } from './publication/load-specs.ts';
import { type Prewarmer, startPrewarm } from './publication/prewarm.ts';
import { createPublication, type Publication } from './publication/publication.ts';
import type { StartupState } from './startup-state.ts';
import { openStore } from './store/open-store.ts';
import type { StoreConfig } from './store/prometheus-config.ts';
import type { Store } from './store/sample-store.ts';
import { ServiceWorkers } from './workers/service-workers.ts';

export interface Service {
  readonly config: Config;
  readonly clock: () => number;
  /** Clock ms per real ms: DEMO_SPEED on the demo clock (src/demo/demo-clock.ts), else 1. */
  readonly clockRate: number;
  readonly specs: readonly BenchmarkSpec[];
  readonly store: Store;
  readonly publication: Publication;
  readonly metrics: Registry;
  /** Worker threads for renders, PromQL and series (cores − 1, at least 1). */
  readonly workers: ServiceWorkers;
  readonly app: Hono;
  /** Stored answers replayed without the router (src/http/hot-path.ts). */
  readonly hotPath: HotPath;
  /**
   * Resolves once the socket is listening; the port actually bound. Given a server start-up bound
   * already (src/main.ts binds before it imports the app), takes over its requests instead.
   */
  listen(bound?: Server): Promise<number>;
  /**
   * Stops accepting connections and waits up to `graceMs` for requests in flight; connections
   * still busy then are closed. Resolves with the number of requests cut short.
   */
  drain(graceMs?: number): Promise<number>;
  /**
   * Starts computing live views off the request path (src/publication/prewarm.ts): all of them now,
   * then those each change touches. main.ts starts it once the service is ready (after the backfill).
   */
  startPrewarm(): Prewarmer;
  /** Drains (default grace), runs close hooks, checkpoints and closes the store. */
  close(): Promise<void>;
}

export { LIMITS } from './http/node-server.ts';

function tooLarge(req: IncomingMessage): boolean {
  const te = req.headers['transfer-encoding'];
  const cl = req.headers['content-length'];
  if (te === undefined && cl === undefined) return false;
  if ((req.url ?? '').split('?')[0] === MCP_PATH) return false;
  if (te !== undefined) return true;
  return !/^\d+$/.test(cl ?? '') || Number(cl) > LIMITS.maxBodyBytes;
}

function payloadTooLarge(): Response {
  const body = JSON.stringify({
    error: 'payload_too_large',
    message: `Request bodies are not accepted here beyond ${LIMITS.maxBodyBytes} bytes (chunked bodies not at all).`,
  });
  return new Response(body, {
    status: 413,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'access-control-allow-origin': '*',
      'cache-control': CACHE.none,
      // Do not drain an upload we refuse.
      connection: 'close',
    },
  });
}

export interface ServiceOptions {
  readonly config: Config;
  readonly log: Logger;
  /** Opens ':memory:' instead of DATA_DIR (tests and benchmarks). */
  readonly inMemory?: boolean;
  /** Which store (STORE=embedded|prometheus); embedded when omitted. */
  readonly store?: StoreConfig;
  readonly clock?: () => number;
  /** Clock ms per real ms (the demo clock runs DEMO_SPEED× faster); 1 when omitted. */
  readonly clockRate?: number;
  /** The demo: closed days wait for its backfill plan (publication.expectSlots) before they freeze. */
  readonly awaitSlotPlan?: boolean;
  /** The build named in provenance (package.json, CITEBENCH_REVISION or git HEAD when omitted). */
  readonly build?: BuildInfo;
  /** Extra route registrars (images, MCP) given the assembled dependencies. */
  readonly routes?: readonly RouteRegistrar[];
  readonly onClose?: () => Promise<void>;
  /** The embedded store start-up opened already (taking DATA_DIR's lock before binding the port). */
  readonly openedStore?: Store;
  /** Until it is ready every request is answered 503 `starting` (src/http/starting.ts); absent, ready at once. */
  readonly startup?: StartupState;
}

export type ServiceCore = Omit<Service, 'app' | 'hotPath' | 'listen' | 'drain' | 'close' | 'startPrewarm'> & {
  /** Registers cleanup that runs on close, before the store closes. */
  onClose(fn: () => Promise<void> | void): void;
};

/** Mounts a route module; the pages module hands back the site's HTML error page. */
// biome-ignore lint/suspicious/noConfusingVoidType: a module that only adds routes returns nothing
export type RouteRegistrar = (app: Hono, core: ServiceCore) => RouteExtras | void;

/** Samples the engine store dropped past its write buffer while the engine was down. */
export function droppedSamples(registry: Registry): Counter {
  return new Counter({
    name: 'store_dropped_samples_total',
    help: 'Samples dropped because the engine was down longer than the write buffer holds',
    registers: [registry],
  });
}

/** Wires config, specs, store, publication and HTTP; opens no port until listen(). */
export async function createService(opts: ServiceOptions): Promise<Service> {
  const { config, log } = opts;
  const clock = opts.clock ?? Date.now;
  const clockRate = opts.clockRate ?? 1;
  const specs = await loadSpecs(config.benchmarksDir);
  const metrics = new Registry();
  collectDefaultMetrics({ register: metrics });
  const store =
    opts.openedStore ??
    (await openStore(opts.store ?? { backend: 'embedded' }, {
      dataDir: config.dataDir,
      duckdbMemoryLimit: config.duckdbMemoryLimit,
      ...(opts.inMemory ? { inMemory: true } : {}),
      onEngineError: (e) => log.warn('sample store engine error', { error: e.message }),
      droppedSamplesCounter: droppedSamples(metrics),
      clock,
    }));
  // Renders, PromQL, series grids and dataset files run here, off the event loop (src/workers/).
  const workers = new ServiceWorkers();
  const publication = createPublication({
    specs,
    store,
    offload: workers,
    config,
    clock,
    clockRate,
    ...(opts.awaitSlotPlan ? { awaitSlotPlan: true } : {}),
    ...(opts.build ? { build: opts.build } : {}),
    // On an engine each read is bounded, retries included; a replica answers 503 engine_unavailable
    // with a Retry-After of about one poll.
    ...(opts.store?.backend === 'prometheus'
      ? {
          engineReads: {
            deadlineMs: VIEW_READ_DEADLINE_MS,
            retryAfterS: Math.max(1, Math.ceil((opts.store.replicaPollMs ?? 5_000) / 1000)),
          },
        }
      : {}),
  });
  const closeHooks: (() => Promise<void> | void)[] = [];
  const shared = { config, clock, clockRate, specs, store, publication, metrics, workers };
  const core: ServiceCore = { ...shared, onClose: (fn) => closeHooks.push(fn) };
  const app = buildApp({
    config,
    publication,
    store,
    metrics,
    clock,
    workers,
    log,
    ...(opts.startup ? { startup: opts.startup } : {}),
    extraRoutes: (opts.routes ?? []).map((r) => (a: Hono) => r(a, core)),
  });
  let server: Server | undefined;
  let prewarm: ReturnType<typeof startPrewarm> | undefined;
  let inFlight = 0;
  let draining: Promise<number> | undefined;
  const hotPath = new HotPath(clock);
  new Counter({
    name: 'http_hot_path_replays_total',
    help: 'Answers replayed from stored bytes without the router (src/http/hot-path.ts)',
    registers: [metrics],
    collect() {
      this.reset();
      this.inc(hotPath.hits);
    },
  });
  new Counter({
    name: 'publication_prewarm_views_total',
    help: 'Live views the prewarm asked for off the request path, after changes (src/publication/prewarm.ts)',
    registers: [metrics],
    collect() {
      this.reset();
      this.inc(prewarm?.prewarmer.views ?? 0);
    },
  });
  // New samples drop the stored answers built from them at once (each replay also checks that its
  // source is still current, so this only frees memory early and stops in-flight fills).
  publication.onChange((slugs) => hotPath.invalidate(slugs));
  /** Routes a request; a GET's answer (`storable`) may be kept by the hot path for replay. */
  const route = (req: Request, env: HttpBindings, storable: boolean) => {
    const incoming = env.incoming;
    if (tooLarge(incoming)) return payloadTooLarge();
    if (!storable) return app.fetch(req, env);
    const epoch = hotPath.begin();
    const res = app.fetch(req, env);
    if (res instanceof Response) {
      hotPath.fill(incoming.url, withRedirectLength(res), epoch);
      return res;
    }
    return res.then((r) => {
      hotPath.fill(incoming.url, withRedirectLength(r), epoch);
      return r;
    });
  };
  // A HEAD is answered as its GET without the body (src/http/head.ts), never stored for replay.
  const fetch = (req: Request, env: HttpBindings) => {
    const method = env.incoming.method;
    if (method !== 'HEAD') return route(req, env, method === 'GET');
    return headOf(route(asGet(req), env, false));
  };
  const routed = getRequestListener(fetch as Parameters<typeof getRequestListener>[0], {
    hostname: config.host,
  });
  const startup = opts.startup;
  const serve = (req: IncomingMessage, res: ServerResponse) => {
    // Replayed answers end synchronously; only routed ones can be in flight at a drain.
    inFlight++;
    res.once('close', () => inFlight--);
    void routed(req, res);
  };
  // Stored answers are replayed at once; expensive requests wait in their class's lane, so a burst
  // of them shares the loop by class.
  const gate = laneGate((req, res) => hotPath.serve(req, res), serve, metrics);
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    // Before the hot path: nothing is stored for replay until the service is ready.
    if (startup !== undefined && !startup.ready) return answerStarting(req, res, startup);
    gate.listener(req, res);
  };

  const drain = (graceMs: number = LIMITS.drainGraceMs): Promise<number> => {
    draining ??= new Promise<number>((resolve) => {
      const s = server;
      if (!s) return resolve(0);
      let cut = 0;
      // Keep-alive sockets that go idle after close() would hold it open until their timeout.
      const idle = setInterval(() => s.closeIdleConnections(), 50);
      const bound = setTimeout(() => {
        cut = inFlight;
        s.closeAllConnections();
      }, graceMs);
      s.close(() => {
        clearInterval(idle);
        clearTimeout(bound);
        resolve(cut);
      });
      s.closeIdleConnections();
    });
    return draining;
  };

  return {
    ...shared,
    app,
    hotPath,
    listen: async (bound?: Server) => {
      if (bound) {
        server = bound;
        bound.removeAllListeners('request');
        bound.on('request', onRequest);
        return boundPort(bound, config.port);
      }
      const b = await bindServer(config.port, config.host, onRequest);
      server = b.server;
      return b.port;
    },
    drain,
    startPrewarm: () => {
      // Pages render through the app itself, so their caches (Stats, chart, HTML) are the ones a
      // request reads; the body is read to the end and dropped.
      const page = async (path: string) => {
        const res = await app.request(path);
        await res.arrayBuffer();
      };
      prewarm ??= startPrewarm(publication, {
        pages: { benchmark: (slug) => page(`/benchmarks/${slug}`), home: () => page('/') },
        // A point moved by the clock alone (a grid point passed between cycles) is warmed too.
        points: publication.points,
        // Checked every simulated second, at most every 50 ms of wall time (the demo at 600×).
        pointPollMs: Math.max(50, Math.round(1_000 / clockRate)),
        onPass: (p) =>
          log.debug('prewarm pass', {
            benchmarks: p.slugs.length,
            views: p.views,
            failed: p.failed,
            ms: p.ms,
          }),
      });
      return prewarm.prewarmer;
    },
    close: async () => {
      prewarm?.stop();
      publication.close();
      await drain();
      for (const fn of closeHooks) await fn();
      await workers.close();
      await opts.onClose?.();
      await store.close();
    },
  };
}
