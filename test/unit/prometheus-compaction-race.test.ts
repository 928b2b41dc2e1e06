import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { EngineError, PrometheusHttp } from '../../src/store/prometheus-http.ts';

/**
 * Prometheus 2.42 (Debian 12's) answers a read that raced its head compaction with 422 "cannot
 * populate chunk N from block B: not found" (seen in CI on scale-prometheus.test.ts). The same
 * query succeeds when sent again; any other 422 is the query's fault and is not retried.
 */

let server: Server | undefined;
afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

/** An engine that answers the first `failures` queries with 422 and `error`, then succeeds. */
async function engine(failures: number, error: string): Promise<{ url: string; hits: () => number }> {
  let n = 0;
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      n++;
      res.setHeader('content-type', 'application/json');
      if (n <= failures) {
        res.statusCode = 422;
        res.end(JSON.stringify({ status: 'error', errorType: 'execution', error }));
      } else {
        res.end(JSON.stringify({ status: 'success', data: { resultType: 'vector', result: [] } }));
      }
    });
  });
  await new Promise<void>((r) => server?.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, hits: () => n };
}

// The timeout is an outer bound: the loopback engine answers in ~1 ms, and no test here is about it.
const http = () =>
  new PrometheusHttp({ timeoutMs: 30_000, maxConcurrency: 2, retries: 3, retryBaseMs: 5, retryMaxMs: 20 });

describe('a read that raced a head compaction', () => {
  it('is sent again and succeeds', async () => {
    const e = await engine(
      2,
      'cannot populate chunk 48402268160 from block 00000000000000000000000000: not found',
    );
    const got = await http().api('/api/v1/query', e.url, { query: 'up' });
    expect(got).toMatchObject({ status: 'success' });
    expect(e.hits()).toBe(3);
  });

  it('any other 422 fails at once, naming the engine error', async () => {
    const e = await engine(5, 'vector cannot contain metrics with the same labelset');
    const err = await http()
      .api('/api/v1/query', e.url, { query: 'up' })
      .catch((x: unknown) => x);
    expect(err).toBeInstanceOf(EngineError);
    expect((err as EngineError).down).toBe(false);
    expect((err as EngineError).message).toMatch(/HTTP 422: vector cannot contain/);
    expect(e.hits()).toBe(1);
  });
});
