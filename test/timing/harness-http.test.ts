import { createServer } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { type HttpOptions, requestJson, retryAfterMs } from '../../src/harness/http.ts';
import { type StubServer, startStubServer } from '../../src/sim/stub-server.ts';
import { scaledBudget } from '../helpers/calibration.ts';

// A loopback stub answers in ~1 ms; the request timeout of the tests that are not about timeouts is
// only an outer bound (a stub that answers must never be cut by a busy machine).
const base: HttpOptions = { timeoutMs: 30_000, maxBodyBytes: 1024, maxRetries: 2, retryMaxWaitMs: 5000 };

let stub: StubServer | null = null;
afterEach(async () => {
  await stub?.close();
  stub = null;
});

describe('requestJson', () => {
  it('parses JSON on 2xx', async () => {
    stub = await startStubServer(() => ({ body: '{"a":1}' }));
    expect(await requestJson({ url: stub.url }, base)).toEqual({ ok: true, value: { a: 1 } });
  });

  it('classifies statuses: 401/403 auth, 5xx and other 4xx http_status with the status', async () => {
    for (const [status, type] of [
      [401, 'auth'],
      [403, 'auth'],
      [500, 'http_status'],
      [503, 'http_status'],
      [404, 'http_status'],
    ] as const) {
      stub = await startStubServer(() => ({ status, body: '{"message":"no"}' }));
      const r = await requestJson({ url: stub.url }, base);
      expect(r).toMatchObject({ ok: false, failure: { type, status } });
      await stub.close();
      stub = null;
    }
  });

  it('honours Retry-After on 429 and succeeds on retry', async () => {
    let n = 0;
    stub = await startStubServer(() =>
      n++ < 2 ? { status: 429, headers: { 'retry-after': '3' } } : { body: '[1]' },
    );
    const waits: number[] = [];
    const r = await requestJson({ url: stub.url }, { ...base, sleep: async (ms) => void waits.push(ms) });
    expect(r).toEqual({ ok: true, value: [1] });
    expect(waits).toEqual([3000, 3000]);
  });

  it('gives up after the retry bound with rate_limit, waiting at most retryMaxWaitMs', async () => {
    stub = await startStubServer(() => ({ status: 429, headers: { 'retry-after': '600' } }));
    const waits: number[] = [];
    const r = await requestJson({ url: stub.url }, { ...base, sleep: async (ms) => void waits.push(ms) });
    expect(r).toMatchObject({ ok: false, failure: { type: 'rate_limit', status: 429 } });
    expect(waits).toEqual([5000, 5000]);
    expect(stub.requests).toHaveLength(3);
  });

  it('times out a hanging server at its timeout', async () => {
    stub = await startStubServer(() => ({ hang: true }));
    const TIMEOUT_MS = 150;
    const t0 = performance.now();
    const r = await requestJson({ url: stub.url }, { ...base, timeoutMs: TIMEOUT_MS });
    expect(r).toMatchObject({ ok: false, failure: { type: 'timeout' } });
    // The timeout plus a margin: quiet, the failure comes ~2 ms after it; the margin allows 250 ms
    // × the calibration's factor (a request that waited for the stub never returns).
    expect(performance.now() - t0).toBeLessThan(TIMEOUT_MS + scaledBudget(250));
  });

  it('aborts when the cycle deadline signal fires, as a failure of ours (deadline), not a provider timeout', async () => {
    const ctl = new AbortController();
    // The deadline fires while the request is in flight: once the stub has it, never before.
    stub = await startStubServer(() => {
      ctl.abort('deadline');
      return { hang: true };
    });
    const r = await requestJson({ url: stub.url }, { ...base, timeoutMs: 10_000, signal: ctl.signal });
    expect(r).toMatchObject({
      ok: false,
      failure: { type: 'deadline', message: 'cycle deadline reached mid-request' },
    });
    // The provider's own timeout stays a timeout even with a cycle signal present.
    const slow = await requestJson(
      { url: stub.url },
      { ...base, timeoutMs: 50, signal: new AbortController().signal },
    );
    expect(slow).toMatchObject({ ok: false, failure: { type: 'timeout' } });
  });

  it('stops reading past the body cap, declared or streamed', async () => {
    stub = await startStubServer(() => ({ body: 'x'.repeat(5000) }));
    expect(await requestJson({ url: stub.url }, base)).toMatchObject({
      ok: false,
      failure: { type: 'oversized' },
    });
    await stub.close();
    // A chunked body with no content-length: the cap is enforced while streaming.
    let chunks = 0;
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const t = setInterval(() => {
        chunks++;
        if (!res.write('x'.repeat(512))) return;
        if (chunks > 10_000) clearInterval(t);
      }, 1);
      res.on('close', () => clearInterval(t));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const addr = server.address();
    const port = typeof addr === 'object' && addr ? addr.port : 0;
    const r = await requestJson({ url: `http://127.0.0.1:${port}` }, base);
    expect(r).toMatchObject({ ok: false, failure: { type: 'oversized' } });
    expect(chunks).toBeLessThan(100);
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
    stub = null;
  });

  it('invalid JSON is a parse failure; a refused connection a network failure', async () => {
    stub = await startStubServer(() => ({ body: '{"a":' }));
    expect(await requestJson({ url: stub.url }, base)).toMatchObject({
      ok: false,
      failure: { type: 'parse' },
    });
    const url = stub.url;
    await stub.close();
    stub = null;
    expect(await requestJson({ url }, base)).toMatchObject({ ok: false, failure: { type: 'network' } });
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(retryAfterMs('2')).toBe(2000);
    expect(retryAfterMs(null)).toBe(1000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4000)).toBe(6000);
  });
});
