import { Hono } from 'hono';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../../src/config.ts';
import type { AppDeps } from '../../src/http/deps.ts';
import { fastToolCall } from '../../src/mcp/fast-call.ts';
import { registerMcpRoutes } from '../../src/mcp/routes.ts';
import type { BuiltTool } from '../../src/mcp/tool-def.ts';
import { type Fixture, fixture, NOW } from '../helpers/fixture.ts';

let f: Fixture;
let fast: Hono;
let sdk: Hono;

function app(fastPath: boolean): Hono {
  const config = testConfig({ mcpFastPath: fastPath, mcpRateLimitPerMin: 100_000 });
  const deps: AppDeps = {
    config,
    publication: f.publication,
    store: f.store,
    metrics: new Registry(),
    clock: () => NOW,
  };
  const a = new Hono();
  registerMcpRoutes(a, deps);
  return a;
}

async function post(a: Hono, body: unknown) {
  const res = await a.request('/api/mcp/mcp', {
    method: 'POST',
    headers: {
      host: 'localhost:8080',
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, type: res.headers.get('content-type'), json: await res.json() };
}

beforeAll(async () => {
  f = await fixture();
  fast = app(true);
  sdk = app(false);
});
afterAll(() => f.close());

describe('MCP tools/call fast path', () => {
  const call = (id: string | number, name: string, args?: Record<string, unknown>) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: args === undefined ? { name } : { name, arguments: args },
  });

  it('answers exactly what the SDK transport answers', async () => {
    const requests = [
      call(1, 'get_benchmark', { slug: 'token-trade-coverage' }),
      call('a-string-id', 'get_benchmark', { slug: 'token-trade-coverage', chain: 'solana' }),
      call(3, 'get_benchmark', { slug: 'network-coverage', kind: 'dex-index' }),
      call(4, 'get_benchmark', { slug: 'nope' }),
      call(5, 'get_benchmark', { slug: 'token-trade-coverage', chain: 'tron' }),
      call(6, 'get_benchmark', {}),
      call(7, 'list_benchmarks'),
      call(8, 'list_benchmarks', { query: 'networks' }),
      call(9, 'query_prom', { query: 'avg(token_trade_capture_pct)' }),
      call(10, 'query_prom', { query: 'up' }),
    ];
    for (const r of requests) {
      const a = await post(fast, r);
      const b = await post(sdk, r);
      expect(a, JSON.stringify(r)).toEqual(b);
      expect(a.status).toBe(200);
      expect(a.json.id).toBe(r.id);
    }
  });

  it('leaves everything else to the SDK, which answers it the same either way', async () => {
    const others = [
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { jsonrpc: '2.0', id: 2, method: 'ping' },
      call(3, 'no_such_tool'),
      { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'get_benchmark', arguments: 'x' } },
      {
        jsonrpc: '2.0',
        id: 5,
        method: 'tools/call',
        params: { name: 'list_benchmarks', task: { ttl: 1000 } },
      },
    ];
    for (const r of others) expect(await post(fast, r), JSON.stringify(r)).toEqual(await post(sdk, r));
  });
});

describe('fastToolCall eligibility', () => {
  const tool: BuiltTool = {
    name: 'echo',
    listing: {},
    call: async (args) => ({ content: [{ type: 'text', text: JSON.stringify(args ?? null) }] }),
  };
  const tools = new Map([['echo', tool]]);
  const base = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'echo', arguments: { a: 1 } } };

  it('takes plain single tools/call requests and serializes {result, jsonrpc, id}', async () => {
    const res = fastToolCall(tools, base, 'application/json');
    expect(res).not.toBeNull();
    expect(await (await (res as Promise<Response>)).text()).toBe(
      '{"result":{"content":[{"type":"text","text":"{\\"a\\":1}"}]},"jsonrpc":"2.0","id":7}',
    );
  });

  it('declines anything the SDK must see', () => {
    const declined: [unknown, string | null][] = [
      [base, 'text/plain'],
      [base, null],
      [{ ...base, method: 'tools/list' }, 'application/json'],
      [{ ...base, id: null }, 'application/json'],
      [{ ...base, id: 1.5 }, 'application/json'],
      [{ ...base, extra: 1 }, 'application/json'],
      [{ ...base, params: { name: 'echo', _meta: { progressToken: 1 } } }, 'application/json'],
      [{ ...base, params: { name: 'echo', task: {} } }, 'application/json'],
      [{ ...base, params: { name: 'other' } }, 'application/json'],
      [{ ...base, params: { name: 'echo', arguments: [1] } }, 'application/json'],
      [[base], 'application/json'],
    ];
    for (const [body, type] of declined)
      expect(fastToolCall(tools, body, type), JSON.stringify(body)).toBeNull();
  });
});
