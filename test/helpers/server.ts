import { testConfig } from '../../src/config.ts';
import type { BuildInfo } from '../../src/core/provenance.ts';
import type { Sample } from '../../src/core/samples.ts';
import { buildDataset } from '../../src/demo/dataset.ts';
import { createLogger } from '../../src/log.ts';
import { defaultRoutes } from '../../src/routes.ts';
import { createService, type Service } from '../../src/service.ts';
import { BENCHMARKS_DIR, NOW } from './fixture.ts';

export interface Running {
  readonly service: Service;
  readonly url: string;
  readonly clock: { now: number };
  get(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

/** A real service on a real socket (port 0), in-memory store, fixed clock. */
export async function startServer(
  opts: { samples?: readonly Sample[]; simulated?: boolean; sourceUrl?: string; build?: BuildInfo } = {},
): Promise<Running> {
  const clock = { now: NOW };
  const config = testConfig({
    port: 0,
    benchmarksDir: BENCHMARKS_DIR,
    baseUrl: 'http://bench.test',
    logLevel: 'silent',
    simulated: opts.simulated === true,
    sourceUrl: opts.sourceUrl ?? null,
  });
  const service = await createService({
    config,
    log: createLogger('silent'),
    inMemory: true,
    clock: () => clock.now,
    routes: defaultRoutes,
    ...(opts.build ? { build: opts.build } : {}),
  });
  const samples = opts.samples ?? buildDataset({ seed: 7, days: 3, end: NOW });
  if (samples.length) await service.store.append(samples);
  // As at start-up: every closed day is frozen before the first request.
  await service.publication.freezeClosedDays();
  const port = await service.listen();
  const url = `http://127.0.0.1:${port}`;
  return {
    service,
    url,
    clock,
    get: (path, init) => fetch(`${url}${path}`, init),
    close: () => service.close(),
  };
}
