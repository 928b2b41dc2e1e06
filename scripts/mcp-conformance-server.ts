/**
 * A throwaway Citebench server for the MCP conformance suite: in-memory DuckDB filled with the
 * deterministic demo dataset, on 127.0.0.1 and a free port. Prints `LISTENING <port>` when ready.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Registry } from 'prom-client';
import { testConfig } from '../src/config.ts';
import { buildDataset } from '../src/demo/dataset.ts';
import { buildApp } from '../src/http/app.ts';
import { registerMcpRoutes } from '../src/mcp/routes.ts';
import { loadSpecs } from '../src/publication/load-specs.ts';
import { createPublication } from '../src/publication/publication.ts';
import { openDuckDbStore } from '../src/store/duckdb-store.ts';

const port = Number(process.env.PORT ?? 0);
const specs = await loadSpecs(process.env.BENCHMARKS_DIR ?? 'benchmarks');
const store = await openDuckDbStore({ path: ':memory:' });
const clock = () => Date.now();
await store.append(buildDataset({ seed: 1, days: 2, end: clock() }));
const config = testConfig({
  port,
  baseUrl: `http://127.0.0.1:${port || 8080}`,
  mcpRateLimitPerMin: Number(process.env.MCP_RATE_LIMIT_PER_MIN ?? 100_000),
});
const publication = createPublication({ specs, store, config, clock });
const deps = { config, publication, store, metrics: new Registry(), clock };
const app = buildApp({ ...deps, extraRoutes: [(a) => registerMcpRoutes(a, deps)] });
const server = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' });
server.once('listening', () => {
  console.log(`LISTENING ${(server.address() as AddressInfo).port}`);
});

const stop = () => {
  server.close();
  publication.close();
  void store.close().finally(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
