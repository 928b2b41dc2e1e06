import { Ajv2020 } from 'ajv/dist/2020.js';
import { testConfig } from '../../src/config.ts';
import { buildDataset } from '../../src/demo/dataset.ts';
import { createLogger } from '../../src/log.ts';
import { defaultRoutes } from '../../src/routes.ts';
import { createService, type Service } from '../../src/service.ts';
import { BENCHMARKS_DIR, NOW } from './fixture.ts';

export interface FuzzTarget {
  readonly service: Service;
  readonly base: string;
  readonly port: number;
  /** Validates a body against the OpenAPI document's Error schema; returns the errors or null. */
  errorBodyProblem(body: string): string | null;
  /** Unhandled rejections seen in this process since start. */
  readonly unhandled: unknown[];
  close(): Promise<void>;
}

/**
 * The full service (API, images, MCP, pages) on a real socket with 3 days of data. MCP's per-IP
 * rate limit is lifted: every fuzz request comes from 127.0.0.1 and must reach the handlers.
 */
export async function startFuzzTarget(): Promise<FuzzTarget> {
  const service = await createService({
    config: testConfig({
      port: 0,
      benchmarksDir: BENCHMARKS_DIR,
      baseUrl: 'http://bench.test',
      logLevel: 'silent',
      mcpRateLimitPerMin: 100_000,
    }),
    log: createLogger('silent'),
    inMemory: true,
    clock: () => NOW,
    routes: defaultRoutes,
  });
  await service.store.append(buildDataset({ seed: 7, days: 3, end: NOW }));
  const port = await service.listen();
  const base = `http://127.0.0.1:${port}`;
  const doc = (await (await fetch(`${base}/api/openapi.json`)).json()) as {
    components: { schemas: Record<string, unknown> };
  };
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  const validate = ajv.compile(doc.components.schemas.Error as object);
  const unhandled: unknown[] = [];
  const onUnhandled = (e: unknown) => unhandled.push(e);
  process.on('unhandledRejection', onUnhandled);
  return {
    service,
    base,
    port,
    unhandled,
    errorBodyProblem(body) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        return `not JSON: ${body.slice(0, 200)}`;
      }
      return validate(parsed) ? null : ajv.errorsText(validate.errors);
    },
    async close() {
      process.off('unhandledRejection', onUnhandled);
      await service.close();
    },
  };
}
