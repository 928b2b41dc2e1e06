import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { buildDataset } from '../../src/demo/dataset.ts';
import {
  createPassthroughQueryEngine,
  QUERY_PROM_DEADLINE_MS,
} from '../../src/mcp/promql/engine-passthrough.ts';
import { VIEW_READ_DEADLINE_MS } from '../../src/publication/engine-deadlines.ts';
import { EngineUnavailableError } from '../../src/publication/types.ts';
import { openPrometheusStore } from '../../src/store/prometheus-store.ts';
import { scaledBudget } from '../helpers/calibration.ts';
import { H, NOW } from '../helpers/fixture.ts';
import { type Cleanup, deployment, replicaService } from '../helpers/replica-deployment.ts';

/**
 * Issue 27 rule 4, the bounds: every engine read a view makes is bounded (3 s, retries included);
 * query_prom has a client of its own, cut at 2 s. What a replica serves while its engine is down
 * is test/unit/replica-engine-down.test.ts.
 */

const NETWORK = 'network-coverage';

const cleanup: Cleanup = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

describe('a replica whose engine hangs', () => {
  it('bounds every engine read a view makes: a hung engine gives engine_unavailable within the deadline, and is down until a poll answers', async () => {
    const { underlying, replicaStore, reach } = await deployment(cleanup);
    await underlying.append(buildDataset({ seed: 7, days: 1, end: NOW, markers: true }));
    const { service } = await replicaService(replicaStore, () => NOW + 60_000, cleanup);
    await service.publication.followStore();
    // Hung, and no poll has noticed yet: the read's own deadline answers.
    reach.mode = 'hung';
    service.publication.statAt(NETWORK, null, NOW).catch(() => undefined);
    const t0 = performance.now();
    await expect(service.publication.statAt(NETWORK, null, NOW - H)).rejects.toBeInstanceOf(
      EngineUnavailableError,
    );
    const took = performance.now() - t0;
    // Not before the deadline, and within it and a margin: quiet, the rejection comes 2–5 ms
    // after it; the margin allows 500 ms × the calibration's factor.
    expect(took).toBeGreaterThan(VIEW_READ_DEADLINE_MS - 200);
    expect(took).toBeLessThan(VIEW_READ_DEADLINE_MS + scaledBudget(500));
    // The miss took the engine as down until a poll answers: the next read fails at once, without
    // asking the engine, so a view of many reads (the index) waits one deadline, not one per read.
    expect(service.publication.engineDown).toBe(true);
    const tried = reach.tried;
    await expect(service.publication.statAt(NETWORK, null, NOW - 2 * H)).rejects.toBeInstanceOf(
      EngineUnavailableError,
    );
    expect(reach.tried).toBe(tried);
    reach.mode = 'up';
    await service.publication.followStore();
    expect(service.publication.engineDown).toBe(false);
  });
});

describe('query_prom on an engine', () => {
  let hung: Server | undefined;
  afterEach(async () => {
    hung?.closeAllConnections();
    await new Promise((r) => hung?.close(r));
    hung = undefined;
  });

  it('has a client of its own, cut at 2 s client-side, one attempt, leaving the store’s client alone', async () => {
    // An engine that accepts the connection and never answers.
    hung = createServer(() => undefined);
    await new Promise<void>((r) => hung?.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(hung.address() as AddressInfo).port}`;
    const store = await openPrometheusStore({ url, skipStartupCheck: true });
    cleanup.push(() => store.close());
    const client = store.queryClient(QUERY_PROM_DEADLINE_MS, 2);
    const engine = createPassthroughQueryEngine(client, url, { deadlineMs: QUERY_PROM_DEADLINE_MS });
    const t0 = performance.now();
    await expect(engine.instant('networks_supported', NOW)).rejects.toThrow(/timed out after 2000 ms/);
    const took = performance.now() - t0;
    // Not before the deadline, and within it and a margin: quiet, the rejection comes ~10 ms
    // after it; the margin allows 500 ms × the calibration's factor.
    expect(took).toBeGreaterThan(QUERY_PROM_DEADLINE_MS - 100);
    expect(took).toBeLessThan(QUERY_PROM_DEADLINE_MS + scaledBudget(500));
    expect(client.counts.reads).toBe(1);
    expect(store.http.counts.reads).toBe(0);
  });
});
