import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Config, testConfig } from '../../src/config.ts';
import { benchmarkMarkdown } from '../../src/core/markdown.ts';
import { buildDataset } from '../../src/demo/dataset.ts';
import { buildApp } from '../../src/http/app.ts';
import { registerMcpRoutes } from '../../src/mcp/routes.ts';
import { loadSpecs } from '../../src/publication/load-specs.ts';
import { createPublication } from '../../src/publication/publication.ts';
import { openDuckDbStore } from '../../src/store/duckdb-store.ts';
import type { Store } from '../../src/store/sample-store.ts';

const END = Date.UTC(2025, 5, 2, 12, 0, 0);
const MCP = '/api/mcp/mcp';

interface Running {
  url: string;
  port: number;
  store: Store;
  close(): Promise<void>;
}

async function start(overrides: Partial<Config> = {}): Promise<Running> {
  const specs = await loadSpecs('benchmarks');
  const store = await openDuckDbStore({ path: ':memory:' });
  await store.append(buildDataset({ seed: 7, days: 3, end: END }));
  const config = testConfig({ baseUrl: 'https://citebench.example', ...overrides });
  const clock = () => END;
  const publication = createPublication({ specs, store, config, clock });
  const deps = { config, publication, store, metrics: new Registry(), clock };
  const app = buildApp({ ...deps, extraRoutes: [(a) => registerMcpRoutes(a, deps)] });
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    store,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      publication.close();
      await store.close();
    },
  };
}

function rpc(method: string, params: Record<string, unknown> = {}, id = 1): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params });
}

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

function post(base: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${base}${MCP}`, { method: 'POST', headers: { ...JSON_HEADERS, ...headers }, body });
}

type ToolResult = {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

describe('MCP over a real socket with the SDK client', () => {
  let srv: Running;
  let client: Client;

  beforeAll(async () => {
    srv = await start();
    client = new Client({ name: 'citebench-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${srv.url}${MCP}`)));
  });
  afterAll(async () => {
    await client.close();
    await srv.close();
  });

  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as ToolResult;

  it('initializes with tools and resources capabilities', () => {
    expect(client.getServerVersion()?.name).toBe('citebench');
    expect(client.getServerCapabilities()).toMatchObject({ tools: {}, resources: {} });
    expect(client.getInstructions()).toMatch(/list_benchmarks/);
  });

  it('lists six read-only tools with input and output schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      'list_benchmarks',
      'get_benchmark',
      'compare_providers',
      'query_prom',
      'get_series',
      'get_provider',
    ]);
    for (const t of tools) {
      expect(t.description?.length).toBeGreaterThan(80);
      expect(t.inputSchema.type).toBe('object');
      expect(t.outputSchema?.type).toBe('object');
      expect(t.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true });
    }
    const q = tools.find((t) => t.name === 'query_prom');
    expect(q?.inputSchema.required).toEqual(['query']);
  });

  it('list_benchmarks returns compact rows', async () => {
    const r = await call('list_benchmarks', {});
    expect(r.isError).toBeFalsy();
    const s = r.structuredContent as { count: number; total: number; benchmarks: Record<string, unknown>[] };
    expect(s.count).toBe(5);
    expect(s.total).toBe(5);
    expect(s.benchmarks.map((b) => b.slug)).toContain('token-trade-recall');
    const row = s.benchmarks.find((b) => b.slug === 'network-coverage');
    expect(Object.keys(row ?? {}).sort()).toEqual(
      [
        'asOf',
        'category',
        'headline',
        'leader',
        'metric',
        'slug',
        'status',
        'title',
        'unit',
        'url',
        'value',
      ].sort(),
    );
    // CoinGecko lists the most networks in the demo dataset.
    expect(row?.leader).toEqual({ name: 'CoinGecko', slug: 'coingecko' });
    expect(JSON.parse(r.content[0]?.text ?? '')).toEqual(s);
  });

  it('list_benchmarks filters by query words (provider names count) and category', async () => {
    const byQuery = async (query: string) =>
      (
        (await call('list_benchmarks', { query })).structuredContent as { benchmarks: { slug: string }[] }
      ).benchmarks.map((b) => b.slug);
    // "trade" is in both trade slugs and titles, "capture" only in token-trade-coverage's metric.
    expect(await byQuery('trade capture')).toEqual(['token-trade-coverage', 'token-trade-recall']);
    expect(await byQuery('recall')).toEqual(['token-trade-recall']);
    expect(await byQuery('networks')).toEqual(['network-coverage']);
    // Bitquery is only in the two trade benchmarks (equal scores, ties broken by slug);
    // CoinPaprika only in network-coverage.
    expect(await byQuery('bitquery')).toEqual(['token-trade-coverage', 'token-trade-recall']);
    expect(await byQuery('CoinPaprika')).toEqual(['network-coverage']);
    // All three list Mobula: equal scores, ties broken by slug.
    expect(await byQuery('mobula')).toEqual([
      'network-coverage',
      'token-trade-coverage',
      'token-trade-recall',
    ]);
    // "coverage" is in both slugs but only in token-trade-coverage's title, which ranks it first.
    expect(await byQuery('coverage')).toEqual(['token-trade-coverage', 'network-coverage']);
    expect(await byQuery('zzzz')).toEqual([]);
    // Only categories some benchmark has are offered: "Bridges" (none yet) is an argument error.
    const none = await call('list_benchmarks', { category: 'Bridges' });
    expect(none.isError).toBe(true);
    const tools = await client.listTools();
    const list = tools.tools.find((t) => t.name === 'list_benchmarks');
    expect(JSON.stringify(list?.inputSchema)).not.toContain('Bridges');
    const get = tools.tools.find((t) => t.name === 'get_benchmark');
    expect(get?.description).toContain('token-trade-coverage chain=solana|ethereum|bsc|base|stellar');
    expect(get?.description).not.toContain('venue');
    const agg = await call('list_benchmarks', { category: 'Aggregators', query: 'trade' });
    const aggRows = agg.structuredContent as { count: number; benchmarks: { slug: string }[] };
    expect(aggRows.count).toBe(2);
    expect(aggRows.benchmarks.map((b) => b.slug)).toEqual(['token-trade-coverage', 'token-trade-recall']);
    const bad = await call('list_benchmarks', { category: 'Nope' });
    expect(bad.isError).toBe(true);
    expect(bad.content[0]?.text).toMatch(/category/);
  });

  it('get_benchmark with detail="summary" returns the compact record', async () => {
    const r = await call('get_benchmark', { slug: 'token-trade-coverage', detail: 'summary' });
    expect(r.isError).toBeFalsy();
    const s = r.structuredContent as {
      value: number;
      rankings: { slug: string; value: number }[];
      quote: string;
      cite?: unknown;
    };
    const full = (await call('get_benchmark', { slug: 'token-trade-coverage' })).structuredContent as {
      value: number;
      quote: string;
      rankings: { slug: string; ms: { p50: number } }[];
    };
    expect(s.value).toBe(full.value);
    expect(s.quote).toBe(full.quote);
    expect(s.rankings.map((x) => [x.slug, x.value])).toEqual(full.rankings.map((x) => [x.slug, x.ms.p50]));
    expect(s.cite).toBeUndefined();
    expect(JSON.stringify(s).length).toBeLessThan(JSON.stringify(full).length / 3);
  });

  it('get_benchmark returns the stat record, filtered and unfiltered', async () => {
    const all = await call('get_benchmark', { slug: 'token-trade-coverage' });
    expect(all.isError).toBeFalsy();
    expect(all.structuredContent?.slug).toBe('token-trade-coverage');
    expect(all.structuredContent?.filters).toBeNull();
    expect(JSON.parse(all.content[0]?.text ?? '')).toEqual(all.structuredContent);
    const sol = await call('get_benchmark', { slug: 'token-trade-coverage', chain: 'solana' });
    expect(sol.structuredContent?.filters).toEqual({ chain: 'solana' });
    const kind = await call('get_benchmark', { slug: 'network-coverage', kind: 'dex-index' });
    expect(kind.structuredContent?.filters).toEqual({ kind: 'dex-index' });
  });

  it('get_benchmark errors list the valid choices', async () => {
    const slug = await call('get_benchmark', { slug: 'nope' });
    expect(slug.isError).toBe(true);
    expect(slug.content[0]?.text).toMatch(/network-coverage.*token-trade-coverage/);
    const chain = await call('get_benchmark', { slug: 'token-trade-coverage', chain: 'dogechain' });
    expect(chain.isError).toBe(true);
    expect(chain.content[0]?.text).toMatch(/solana, ethereum, bsc, base, stellar/);
    const dim = await call('get_benchmark', { slug: 'network-coverage', chain: 'solana' });
    expect(dim.isError).toBe(true);
    expect(dim.content[0]?.text).toMatch(/no "chain" dimension.*kind/);
    const missing = await call('get_benchmark', {});
    expect(missing.isError).toBe(true);
    expect(missing.content[0]?.text).toMatch(/slug/);
  });

  it('query_prom instant query over the stored samples', async () => {
    const r = await call('query_prom', { query: 'networks_supported{provider=~"coingecko|mobula"}' });
    expect(r.isError).toBeFalsy();
    const s = r.structuredContent as {
      resultType: string;
      time: number;
      result: { metric: Record<string, string>; value: [number, number] }[];
    };
    expect(s.resultType).toBe('vector');
    expect(s.time).toBe(END / 1000);
    expect(s.result.map((x) => x.metric.provider)).toEqual(['coingecko', 'mobula']);
    // Cross-check against the store: the newest sample at or before END.
    const latest = await srv.store.latest({
      metric: 'networks_supported',
      matchers: [{ name: 'provider', op: '=', value: 'mobula' }],
      at: END,
    });
    expect(s.result[1]?.value[1]).toBe(latest[0]?.v);
  });

  it('query_prom range query returns `steps` points ending now', async () => {
    const r = await call('query_prom', {
      query: 'avg by (provider) (token_trade_capture_pct{chain="solana"})',
      windowSec: 86_400,
      steps: 24,
    });
    expect(r.isError).toBeFalsy();
    const s = r.structuredContent as {
      resultType: string;
      stepSec: number;
      result: { metric: Record<string, string>; values: [number, number][] }[];
    };
    expect(s.resultType).toBe('matrix');
    expect(s.stepSec).toBe(3600);
    expect(s.result.map((x) => x.metric)).toEqual([
      { provider: 'bitquery' },
      { provider: 'codex' },
      { provider: 'mobula' },
    ]);
    const pts = s.result[2]?.values ?? [];
    expect(pts).toHaveLength(24);
    expect(pts[23]?.[0]).toBe(END / 1000);
    expect(pts[0]?.[0]).toBe(END / 1000 - 23 * 3600);
    for (const [, v] of pts) expect(v).toBeGreaterThan(50);
  });

  it('query_prom refusals are tool errors, not protocol errors', async () => {
    const bad = await call('query_prom', { query: 'up' });
    expect(bad.isError).toBe(true);
    expect(bad.content[0]?.text).toMatch(/query_refused: metric "up" is not queryable/);
    const unsup = await call('query_prom', { query: 'rate(networks_supported[1h])' });
    expect(unsup.content[0]?.text).toMatch(/query_unsupported/);
    const syntax = await call('query_prom', { query: 'sum(' });
    expect(syntax.content[0]?.text).toMatch(/query_parse/);
    const long = await call('query_prom', { query: 'x'.repeat(2001) });
    expect(long.isError).toBe(true);
    const window = await call('query_prom', { query: 'networks_supported', windowSec: 604_801 });
    expect(window.isError).toBe(true);
  });

  it('serves one Markdown resource per benchmark', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual([
      'citebench://benchmark/network-coverage',
      'citebench://benchmark/rpc-latency',
      'citebench://benchmark/rpc-head-lag',
      'citebench://benchmark/token-trade-coverage',
      'citebench://benchmark/token-trade-recall',
    ]);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates[0]?.uriTemplate).toBe('citebench://benchmark/{slug}');
    const read = await client.readResource({ uri: 'citebench://benchmark/network-coverage' });
    const item = read.contents[0] as { mimeType?: string; text?: string };
    expect(item.mimeType).toBe('text/markdown');
    const stat = await (await fetch(`${srv.url}/api/stat/network-coverage`)).json();
    expect(item.text).toBe(benchmarkMarkdown(stat));
    await expect(client.readResource({ uri: 'citebench://benchmark/nope' })).rejects.toThrow(/not found/i);
  });
});

describe('get_benchmark parity with GET /api/stat/{slug}', () => {
  let srv: Running;
  let client: Client;
  beforeAll(async () => {
    srv = await start();
    client = new Client({ name: 'parity', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${srv.url}${MCP}`)));
  });
  afterAll(async () => {
    await client.close();
    await srv.close();
  });

  const cases: Array<[string, Record<string, string>]> = [
    ['network-coverage', {}],
    ['network-coverage', { kind: 'dex-index' }],
    ['network-coverage', { kind: 'asset-registry' }],
    ['token-trade-coverage', {}],
    ['token-trade-coverage', { chain: 'solana' }],
    ['token-trade-coverage', { chain: 'stellar' }],
    ['token-trade-coverage', { chain: 'base' }],
  ];
  for (const [slug, filters] of cases) {
    it(`${slug} ${JSON.stringify(filters)}`, async () => {
      const qs = new URLSearchParams(filters).toString();
      const http = await fetch(`${srv.url}/api/stat/${slug}${qs ? `?${qs}` : ''}`);
      expect(http.status).toBe(200);
      const httpText = await http.text();
      const r = (await client.callTool({
        name: 'get_benchmark',
        arguments: { slug, ...filters },
      })) as ToolResult;
      expect(r.isError).toBeFalsy();
      expect(r.structuredContent).toEqual(JSON.parse(httpText));
      expect(r.content[0]?.text).toBe(httpText);
    });
  }
});

describe('MCP HTTP guards (raw fetch)', () => {
  let srv: Running;
  beforeAll(async () => {
    srv = await start({ mcpRateLimitPerMin: 1000, mcpAllowedOrigins: ['https://app.example'] });
  });
  afterAll(async () => srv.close());

  const init = rpc('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'raw', version: '1' },
  });

  it('GET and DELETE answer 405 with Allow: POST', async () => {
    for (const method of ['GET', 'DELETE']) {
      const r = await fetch(`${srv.url}${MCP}`, { method, headers: { accept: 'text/event-stream' } });
      expect(r.status).toBe(405);
      expect(r.headers.get('allow')).toBe('POST');
      await r.body?.cancel();
    }
  });

  it('a tools/call works without initialize, as plain JSON', async () => {
    const r = await post(srv.url, rpc('tools/call', { name: 'list_benchmarks', arguments: {} }), {
      accept: 'application/json',
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/application\/json/);
    expect(r.headers.get('mcp-session-id')).toBeNull();
    const body = (await r.json()) as { id: number; result: { structuredContent: { count: number } } };
    expect(body.id).toBe(1);
    expect(body.result.structuredContent.count).toBe(5);
  });

  it('rejects bodies over 64 KiB with 413, by Content-Length and by bytes read', async () => {
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'ping',
      params: { pad: 'x'.repeat(70_000) },
    });
    const r = await post(srv.url, big);
    expect(r.status).toBe(413);
    await r.body?.cancel();
    // Chunked (no Content-Length): the cap applies to the bytes actually read.
    const chunks = [big.slice(0, 40_000), big.slice(40_000)];
    const stream = new ReadableStream<Uint8Array>({
      start(ctl) {
        for (const c of chunks) ctl.enqueue(new TextEncoder().encode(c));
        ctl.close();
      },
    });
    const r2 = await fetch(`${srv.url}${MCP}`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(r2.status).toBe(413);
    await r2.body?.cancel();
    const ok = await post(
      srv.url,
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(60_000) } }),
    );
    expect(ok.status).toBe(200);
  });

  it('rejects JSON-RPC batches with -32600', async () => {
    const r = await post(srv.url, ` [${init}]`);
    expect(r.status).toBe(400);
    expect(await r.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32600, message: expect.stringMatching(/batch/) },
      id: null,
    });
  });

  it('answers malformed JSON with -32700', async () => {
    const r = await post(srv.url, '{"jsonrpc": "2.0", "id": 1,');
    expect(r.status).toBe(400);
    expect(((await r.json()) as { error: { code: number } }).error.code).toBe(-32700);
    const empty = await post(srv.url, '');
    expect(((await empty.json()) as { error: { code: number } }).error.code).toBe(-32700);
  });

  it('rejects an unsupported MCP-Protocol-Version with 400', async () => {
    const r = await post(srv.url, rpc('tools/list'), { 'mcp-protocol-version': '1999-01-01' });
    expect(r.status).toBe(400);
    expect(await r.text()).toMatch(/1999-01-01/);
    const ok = await post(srv.url, rpc('tools/list'), { 'mcp-protocol-version': '2025-06-18' });
    expect(ok.status).toBe(200);
  });

  it('403 for a foreign Origin; allowed for the base URL, loopback and configured origins', async () => {
    const bad = await post(srv.url, init, { origin: 'https://evil.example' });
    expect(bad.status).toBe(403);
    expect(await bad.text()).toMatch(/Origin/);
    for (const origin of [
      'https://citebench.example',
      `http://localhost:${srv.port}`,
      'https://app.example',
    ]) {
      const r = await post(srv.url, init, { origin });
      expect(r.status, origin).toBe(200);
      expect(r.headers.get('access-control-allow-origin')).toBe(origin);
    }
  });

  it('403 for a foreign Host (DNS rebinding)', async () => {
    const { request } = await import('node:http');
    const status = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port: srv.port,
            path: MCP,
            method: 'POST',
            headers: { ...JSON_HEADERS, host },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end(init);
      });
    expect(await status(`evil.example:${srv.port}`)).toBe(403);
    expect(await status('citebench.example')).toBe(200);
    expect(await status(`localhost:${srv.port}`)).toBe(200);
  });

  it('never answers 5xx to odd JSON-RPC input', async () => {
    const bodies = [
      '{}',
      '"just a string"',
      '42',
      'null',
      '{"jsonrpc":"2.0","id":1}',
      '{"jsonrpc":"2.0","id":1,"method":"nope"}',
      '{"jsonrpc":"1.0","id":1,"method":"ping"}',
      '{"jsonrpc":"2.0","method":"notifications/initialized"}',
      rpc('tools/call', {}),
      rpc('tools/call', { name: 'nope', arguments: {} }),
      rpc('tools/call', { name: 'get_benchmark', arguments: 'slug' }),
      rpc('tools/call', { name: 'get_benchmark', arguments: { slug: 42 } }),
      rpc('tools/call', { name: 'query_prom', arguments: { query: '{__name__=~".+"}' } }),
      rpc('tools/call', {
        name: 'query_prom',
        arguments: { query: 'networks_supported', windowSec: 3, steps: 360 },
      }),
      rpc('resources/read', { uri: 'file:///etc/passwd' }),
      rpc('resources/read', {}),
      rpc('prompts/list'),
    ];
    for (const b of bodies) {
      const r = await post(srv.url, b);
      expect(r.status, b).toBeLessThan(500);
      await r.body?.cancel();
    }
    const unknownTool = await post(srv.url, rpc('tools/call', { name: 'nope', arguments: {} }));
    expect(((await unknownTool.json()) as { error: { code: number; message: string } }).error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/list_benchmarks/),
    });
    const note = await post(srv.url, '{"jsonrpc":"2.0","method":"notifications/initialized"}');
    expect(note.status).toBe(202);
  });

  it('serves the install page as escaped HTML', async () => {
    const r = await fetch(`${srv.url}/mcp`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await r.text();
    expect(html).toContain('https://citebench.example/api/mcp/mcp');
    expect(html).toContain('claude mcp add --transport http citebench https://citebench.example/api/mcp/mcp');
    for (const word of [
      'Claude Desktop',
      'Cursor',
      'VS Code',
      'curl',
      'list_benchmarks',
      'get_benchmark',
      'query_prom',
    ]) {
      expect(html).toContain(word);
    }
    expect(html).toMatch(/Benchmarks: 5/);
    expect(html).toContain('<code>token-trade-recall</code>');
    // No third-party asset: the only script and stylesheet are the site's own content-hashed files.
    expect(html).not.toMatch(/<img|@import|url\(/);
    for (const m of html.matchAll(/<script[^>]+src="([^"]*)"|<link[^>]+stylesheet[^>]+href="([^"]*)"/g))
      expect(m[1] ?? m[2]).toMatch(/^\/assets\/site\.[0-9a-f]{12}\.(css|js)$/);
  });
});

describe('MCP rate limit', () => {
  let srv: Running;
  beforeAll(async () => {
    srv = await start({ mcpRateLimitPerMin: 3 });
  });
  afterAll(async () => srv.close());

  it('429 with Retry-After once the bucket is empty', async () => {
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 4; i++) {
      const r = await post(srv.url, rpc('ping'));
      statuses.push(r.status);
      if (r.status === 429) retryAfter = r.headers.get('retry-after');
      await r.body?.cancel();
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    // 3 per minute refills one token every 20 s.
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(19);
    expect(Number(retryAfter)).toBeLessThanOrEqual(20);
  });
});
