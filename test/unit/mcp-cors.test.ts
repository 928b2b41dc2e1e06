import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../../src/config.ts';
import { buildDataset } from '../../src/demo/dataset.ts';
import { buildApp } from '../../src/http/app.ts';
import { EXPOSE_HEADERS } from '../../src/http/respond.ts';
import { GET_PATHS } from '../../src/http/route-table.ts';
import { registerMcpRoutes } from '../../src/mcp/routes.ts';
import { loadSpecs } from '../../src/publication/load-specs.ts';
import { createPublication } from '../../src/publication/publication.ts';
import { openDuckDbStore } from '../../src/store/duckdb-store.ts';

/**
 * Every MCP answer to an allowed Origin, errors included, echoes it with Vary: Origin, says the
 * client's RateLimit-* standing and exposes those fields and Retry-After to the page's script; GET
 * routes expose only fields they send (issue 28, item 7).
 */

const END = Date.UTC(2025, 5, 2, 12, 0, 0);
const MCP = '/api/mcp/mcp';
const ORIGIN = 'https://citebench.example';
const LIMIT = 4;

interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

describe('MCP CORS and rate-limit fields', () => {
  let port = 0;
  let close: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    const specs = await loadSpecs('benchmarks');
    const store = await openDuckDbStore({ path: ':memory:' });
    await store.append(buildDataset({ seed: 7, days: 1, end: END }));
    const config = testConfig({ baseUrl: ORIGIN, mcpRateLimitPerMin: LIMIT });
    const clock = () => END;
    const publication = createPublication({ specs, store, config, clock });
    const deps = { config, publication, store, metrics: new Registry(), clock };
    const app = buildApp({ ...deps, extraRoutes: [(a) => registerMcpRoutes(a, deps)] });
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    port = (server.address() as AddressInfo).port;
    close = async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      publication.close();
      await store.close();
    };
  });
  afterAll(() => close());

  function send(
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: string,
  ): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port, path, method, headers: { host: `127.0.0.1:${port}`, ...headers } },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
        },
      );
      // The server may close after refusing an oversized upload before reading it.
      req.on('error', (e) => ((e as NodeJS.ErrnoException).code === 'EPIPE' ? undefined : reject(e)));
      req.end(body);
    });
  }

  const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
  const post = (body: string, headers: Record<string, string> = {}) =>
    send('POST', MCP, { ...json, origin: ORIGIN, ...headers }, body);

  function expectFields(a: Answer, what: string) {
    expect(a.headers['access-control-allow-origin'], what).toBe(ORIGIN);
    expect(String(a.headers.vary), what).toMatch(/\bOrigin\b/);
    const exposed = String(a.headers['access-control-expose-headers'])
      .split(',')
      .map((s) => s.trim().toLowerCase());
    for (const name of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after'])
      expect(exposed, `${what}: ${name}`).toContain(name);
    expect(a.headers['ratelimit-limit'], what).toBe(String(LIMIT));
    expect(String(a.headers['ratelimit-remaining']), what).toMatch(/^\d+$/);
    expect(String(a.headers['ratelimit-reset']), what).toMatch(/^\d+$/);
  }

  it('on 200, 400, 403, 405 and 413, from the limiter', async () => {
    const ok = await post(ping);
    expect(ok.status).toBe(200);
    expectFields(ok, '200');
    expect(ok.headers['ratelimit-remaining']).toBe(String(LIMIT - 1));
    expect(Number(ok.headers['ratelimit-reset'])).toBeGreaterThan(0);

    const batch = await post(`[${ping}]`);
    expect(batch.status).toBe(400);
    expectFields(batch, '400');
    expect(batch.headers['ratelimit-remaining']).toBe(String(LIMIT - 2));

    // An allowed Origin under a foreign Host (DNS rebinding) is refused, still readable; no token spent.
    const host = await post(ping, { host: `evil.example:${port}` });
    expect(host.status).toBe(403);
    expectFields(host, '403');
    expect(host.headers['ratelimit-remaining']).toBe(String(LIMIT - 2));

    const get = await send('GET', MCP, { origin: ORIGIN });
    expect(get.status).toBe(405);
    expectFields(get, '405');

    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'ping',
      params: { pad: 'x'.repeat(70_000) },
    });
    const tooBig = await post(big);
    expect(tooBig.status).toBe(413);
    expectFields(tooBig, '413');
  });

  it('on 429, with Retry-After, and never to a foreign Origin', async () => {
    let last: Answer | undefined;
    for (let i = 0; i < LIMIT + 1 && last?.status !== 429; i++) last = await post(ping);
    expect(last?.status).toBe(429);
    const limited = last as Answer;
    expectFields(limited, '429');
    expect(limited.headers['ratelimit-remaining']).toBe('0');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);

    const foreign = await post(ping, { origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
    expect(String(foreign.headers.vary)).toMatch(/\bOrigin\b/);
  });

  it('GET routes expose only fields a GET route sends (no rate limit there)', async () => {
    expect(EXPOSE_HEADERS.split(', ')).toEqual(['ETag', 'Retry-After', 'X-Snapshot-Date']);
    for (const path of ['/api/citable', '/api/stat/network-coverage', '/api/nope']) {
      const a = await send('GET', path, {});
      expect(a.headers['access-control-expose-headers'], path).toBe(EXPOSE_HEADERS);
      expect(a.headers['ratelimit-limit'], path).toBeUndefined();
    }
    const pre = await send('OPTIONS', GET_PATHS[3] ?? '/api/citable', { origin: ORIGIN });
    expect(pre.headers['access-control-expose-headers']).toBe(EXPOSE_HEADERS);
  });
});
