/**
 * Issue 26 item 1, in part: PromQL range queries on the embedded store are evaluated in a worker
 * thread of the service's pool (src/workers/); the event loop only reads the store and admits.
 */
import { Hono } from 'hono';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { testConfig } from '../../src/config.ts';
import { unpackSamples } from '../../src/core/packed-samples.ts';
import { buildDataset } from '../../src/demo/dataset.ts';
import { loadShedder } from '../../src/load-shed.ts';
import { PromQueryError } from '../../src/mcp/promql/errors.ts';
import { createStoreQueryEngine } from '../../src/mcp/promql/store-engine.ts';
import { registerMcpRoutes } from '../../src/mcp/routes.ts';
import { type DuckDbStore, openDuckDbStore } from '../../src/store/duckdb-store.ts';
import { promqlTask } from '../../src/workers/promql-task.ts';
import { ServiceWorkers } from '../../src/workers/service-workers.ts';
import { countingReads } from '../helpers/counting-store.ts';
import { fixture, NOW } from '../helpers/fixture.ts';
import { toolCallInit } from '../helpers/mcp-call.ts';

const MIN = 60_000;
const DAY = 24 * 60 * MIN;
let store: DuckDbStore;
const worker = new ServiceWorkers(1);

beforeAll(async () => {
  store = await openDuckDbStore({ path: ':memory:' });
  await store.append(buildDataset({ seed: 7, days: 7, end: NOW, markers: true }));
});
afterAll(async () => {
  await worker.close();
  await store.close();
});

const QUERIES = [
  'avg by (provider) (avg_over_time(token_trade_capture_pct[6h]))',
  'token_trade_capture_pct{provider="codex",chain="base"}',
  'max by (chain) (token_trade_capture_pct) - 100',
  'sum(count_over_time(harness_cycle[1h]))',
  'quantile_over_time(0.5, token_trade_capture_pct{chain="solana"}[12h]) * 2',
  '1 + 1',
  'networks_supported',
];

describe('PromQL range queries in a worker thread', () => {
  it('give exactly the inline evaluation’s answers (7 d, 360 steps and a 30-minute grid)', async () => {
    const inline = createStoreQueryEngine(store);
    const off = createStoreQueryEngine(store, { worker });
    const before = worker.pool.finished;
    for (const q of QUERIES) {
      for (const [start, step] of [
        [NOW - 7 * DAY, Math.floor((7 * DAY) / 359)],
        [NOW - DAY, 30 * MIN],
      ] as const) {
        const want = await inline.range(q, start, NOW, step);
        expect(want.result.length, q).toBeGreaterThan(0);
        expect(await off.range(q, start, NOW, step), q).toEqual(want);
      }
    }
    expect(worker.pool.finished - before).toBe(QUERIES.length * 2);
  }, 60_000);

  it('refuse as the inline evaluation does: too many points, and the deadline', async () => {
    const small = createStoreQueryEngine(store, { worker, maxPoints: 5 });
    const tooMany = await small
      .range('token_trade_capture_pct', NOW - DAY, NOW, 30 * MIN)
      .catch((e: unknown) => e);
    expect(tooMany).toBeInstanceOf(PromQueryError);
    expect((tooMany as PromQueryError).kind).toBe('refused');
    expect((tooMany as PromQueryError).message).toMatch(/exceeds 5 points/);
    // A clock that jumps past the deadline once the store was read: the worker gets no time left.
    let now = 0;
    const late = createStoreQueryEngine(store, { worker, deadlineMs: 100, timer: () => (now += 60) });
    const e = await late.range('token_trade_capture_pct', NOW - DAY, NOW, 30 * MIN).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(PromQueryError);
    expect((e as PromQueryError).message).toMatch(/100 ms evaluation deadline/);
  });

  it('a worker that dies is replaced on the next query', async () => {
    const off = createStoreQueryEngine(store, { worker });
    await off.range('1 + 1', NOW - DAY, NOW, 30 * MIN);
    const starts = worker.pool.starts;
    await worker.pool.terminateWorkers();
    const r = await off.range('1 + 1', NOW - DAY, NOW, 30 * MIN);
    expect(r.resultType).toBe('matrix');
    expect(worker.pool.starts).toBe(starts + 1);
  });

  it('query_prom on the embedded store is answered while the event loop is saturated (it was query_busy before issue 26)', async () => {
    const f = await fixture();
    const app = new Hono();
    registerMcpRoutes(app, {
      config: testConfig({ mcpRateLimitPerMin: 100_000 }),
      publication: f.publication,
      store: f.store,
      metrics: new Registry(),
      clock: () => NOW,
      workers: worker,
    });
    const overloaded = vi.spyOn(loadShedder, 'overloaded').mockReturnValue(true);
    try {
      const res = await app.request(
        '/api/mcp/mcp',
        toolCallInit(
          'query_prom',
          { query: 'avg by (provider) (token_trade_capture_pct)', windowSec: 86_400, steps: 48 },
          { host: 'localhost:8080' },
        ),
      );
      const body = (await res.json()) as { result: { isError?: boolean; content: { text: string }[] } };
      expect(body.result.isError, body.result.content[0]?.text).toBeUndefined();
      expect(JSON.parse(body.result.content[0]?.text ?? '{}')).toMatchObject({ resultType: 'matrix' });
    } finally {
      overloaded.mockRestore();
      await f.close();
    }
  });
});

describe('a range query as the worker gets it', () => {
  it("is read packed from the store: the same samples as select's, SQL and in-memory tail alike", async () => {
    // The store's in-memory tail holds 74 h: a week is read by SQL, the others from the tail.
    for (const after of [NOW - 7 * DAY, NOW - 2 * 60 * MIN, NOW - DAY / 2]) {
      for (const matchers of [[], [{ name: 'chain', op: '=' as const, value: 'base' }]]) {
        const q = { metric: 'token_trade_capture_pct', matchers, after, until: NOW };
        const want = await store.select(q);
        const got = await store.selectPacked(q);
        expect(want.length).toBeGreaterThan(0);
        expect(unpackSamples(got)).toEqual(want);
      }
    }
  });

  it('moves three buffers per selector, read with selectPacked, not select', async () => {
    const { store: counted, calls } = countingReads(store);
    const sent: number[] = [];
    const engine = createStoreQueryEngine(counted, {
      deadlineMs: 30_000,
      worker: {
        evaluate: (req) => {
          sent.push(promqlTask(req).transfer.length);
          return worker.evaluate(req);
        },
      },
    });
    const query = 'avg by (provider) (avg_over_time(token_trade_capture_pct[6h])) * 2';
    const r = await engine.range(query, NOW - 7 * DAY, NOW, 30 * MIN);
    expect(r.result.length).toBeGreaterThan(0);
    expect(calls).toEqual({ select: 0, selectPacked: 1 });
    // Two buffers per series moved cost the loop ~1 ms of postMessage for a week-long query.
    expect(sent).toEqual([3]);
  });
});
