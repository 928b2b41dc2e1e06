import { join } from 'node:path';
import { type ServerType, serve } from '@hono/node-server';
import type { Hono } from 'hono';
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { Config } from './config.ts';
import type { BenchmarkSpec } from './core/spec-schema.ts';
import { buildApp } from './http/app.ts';
import type { Logger } from './log.ts';
import { loadSpecs } from './publication/load-specs.ts';
import { createPublication, type Publication } from './publication/publication.ts';
import { type DuckDbStore, openDuckDbStore } from './store/duckdb-store.ts';

export interface Service {
  readonly config: Config;
  readonly clock: () => number;
  readonly specs: readonly BenchmarkSpec[];
  readonly store: DuckDbStore;
  readonly publication: Publication;
  readonly metrics: Registry;
  readonly app: Hono;
  /** Resolves once the socket is listening; the port actually bound. */
  listen(): Promise<number>;
  /** Stops accepting, finishes in-flight requests, closes the store. */
  close(): Promise<void>;
}

export interface ServiceOptions {
  readonly config: Config;
  readonly log: Logger;
  /** Opens ':memory:' instead of DATA_DIR (tests and benchmarks). */
  readonly inMemory?: boolean;
  readonly clock?: () => number;
  /** Extra route registrars (images, MCP) given the assembled dependencies. */
  readonly routes?: readonly RouteRegistrar[];
  readonly onClose?: () => Promise<void>;
}

export type ServiceCore = Omit<Service, 'app' | 'listen' | 'close'> & {
  /** Registers cleanup that runs on close, before the store closes. */
  onClose(fn: () => Promise<void> | void): void;
};

export type RouteRegistrar = (app: Hono, core: ServiceCore) => void;

/** Wires config, specs, store, publication and HTTP; opens no port until listen(). */
export async function createService(opts: ServiceOptions): Promise<Service> {
  const { config, log } = opts;
  const clock = opts.clock ?? Date.now;
  const specs = await loadSpecs(config.benchmarksDir);
  const store = await openDuckDbStore({
    path: opts.inMemory ? ':memory:' : join(config.dataDir, 'citebench.duckdb'),
    memoryLimit: config.duckdbMemoryLimit,
  });
  const metrics = new Registry();
  collectDefaultMetrics({ register: metrics });
  const publication = createPublication({ specs, store, config, clock });
  const closeHooks: (() => Promise<void> | void)[] = [];
  const shared = { config, clock, specs, store, publication, metrics };
  const core: ServiceCore = { ...shared, onClose: (fn) => closeHooks.push(fn) };
  const app = buildApp({
    config,
    publication,
    store,
    metrics,
    clock,
    log,
    extraRoutes: (opts.routes ?? []).map((r) => (a: Hono) => r(a, core)),
  });
  let server: ServerType | undefined;
  return {
    ...shared,
    app,
    listen: () =>
      new Promise((resolve, reject) => {
        server = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, (info) =>
          resolve(info.port),
        );
        server.once('error', reject);
      }),
    close: async () => {
      publication.close();
      if (server) {
        const s = server;
        await new Promise<void>((resolve) => {
          s.close(() => resolve());
          // Idle keep-alive sockets would hold close() open.
          if ('closeIdleConnections' in s) s.closeIdleConnections();
        });
      }
      for (const fn of closeHooks) await fn();
      await opts.onClose?.();
      await store.close();
    },
  };
}
