import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GET_ROUTES } from '../../src/http/route-table.ts';
import { MCP_PATH } from '../../src/http/site-declarations.ts';
import { ASSETS } from '../../src/pages/html.ts';
import { type Running, startServer } from '../helpers/server.ts';

/**
 * Nothing is silently dropped: a parameter or argument a route or tool does not take is refused
 * with the names it does take, never answered as if it were absent (the live, unfiltered answer
 * to a dated or filtered question).
 */

const CLOSED = '2026-11-19';
const [ASSET] = [...ASSETS.keys()];

/** One concrete request target per declared GET route. */
const CONCRETE: Record<string, string> = {
  '/api/citable/{date}': `/api/citable/${CLOSED}`,
  '/api/stat/{slug}': '/api/stat/rpc-latency',
  '/api/compare/{a}/{b}': '/api/compare/mobula/codex',
  '/api/audit/{slug}/{provider}': '/api/audit/network-coverage/mobula',
  '/api/cite/{slug}/{format}': '/api/cite/network-coverage/bib',
  '/api/providers/{slug}': '/api/providers/mobula',
  '/api/series/{slug}': '/api/series/network-coverage',
  '/api/dataset/{date}.json': `/api/dataset/${CLOSED}.json`,
  '/api/dataset/{file}': `/api/dataset/${CLOSED}.csv`,
  '/api/og/{slug}': '/api/og/network-coverage',
  '/api/sparkline/{slug}': '/api/sparkline/network-coverage',
  '/api/chart/{slug}': '/api/chart/network-coverage',
  '/api/badge/{slug}/{provider}': '/api/badge/network-coverage/mobula',
  '/benchmarks/{slug}': '/benchmarks/rpc-latency',
  '/benchmarks/{slug}/days': '/benchmarks/rpc-latency/days',
  '/compare/{pair}': '/compare/mobula-vs-codex',
  '/providers/{slug}': '/providers/mobula',
  '/assets/{file}': ASSET ?? '/assets/none',
};
const PAGES = new Set([
  '/mcp',
  '/',
  '/benchmarks/{slug}',
  '/benchmarks/{slug}/days',
  '/days',
  '/benchmarks',
  '/providers',
  '/compare/{pair}',
  '/providers/{slug}',
  '/methodology',
]);
const targetOf = (path: string) => CONCRETE[path] ?? path;

describe('HTTP: a parameter a route does not declare is a 400 naming those it does', () => {
  let srv: Running;
  beforeAll(async () => {
    srv = await startServer();
  });
  afterAll(() => srv.close());

  it('every GET route answers 200 bare, and 400 to an undeclared name, listing its own parameters', async () => {
    const seen: string[] = [];
    for (const route of GET_ROUTES) {
      const target = targetOf(route.path);
      const bare = await srv.get(target);
      expect(bare.status, target).toBe(200);
      const res = await srv.get(`${target}?zz_stray=1`);
      const text = await res.text();
      expect(res.status, target).toBe(400);
      expect(text, target).toContain('zz_stray');
      const declared = Object.keys(
        (route as { request?: { query?: { shape: Record<string, unknown> } } }).request?.query?.shape ?? {},
      );
      if (PAGES.has(route.path)) {
        expect(res.headers.get('content-type'), target).toMatch(/^text\/html/);
      } else {
        const body = JSON.parse(text) as { error: string; message: string };
        expect(body.error, target).toBe('unsupported_parameter');
        expect(body.message, target).toContain(
          declared.length ? `it takes ${declared.join(', ')}` : 'it takes no query parameters',
        );
      }
      seen.push(route.path);
    }
    expect(seen.length).toBe(GET_ROUTES.length);
  });

  it("a benchmark's view names the benchmark's dimensions; the four spec names it lacks keep the 404 unknown_dimension", async () => {
    const res = await srv.get('/api/stat/network-coverage?network=solana');
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; message: string };
    expect(body.message).toMatch(
      /this benchmark's dimensions: kind, region\)|this benchmark's dimensions: region, kind\)/,
    );
    const lacking = await srv.get('/api/stat/network-coverage?chain=solana');
    expect(lacking.status).toBe(404);
    expect(((await lacking.json()) as { error: string }).error).toBe('unknown_dimension');
  });

  it('a route that takes no date refuses one instead of answering live (its dated twin is a path)', async () => {
    for (const path of [`/api/citable?date=${CLOSED}`, `/api/llm-context?date=${CLOSED}`]) {
      const res = await srv.get(path);
      expect(res.status, path).toBe(400);
      expect(res.headers.get('x-snapshot-date'), path).toBeNull();
    }
  });

  it('a dated page with a filter is a 400, as the dated API answers, not the unfiltered frozen board', async () => {
    const api = await srv.get(`/api/stat/network-coverage?date=${CLOSED}&kind=dex-index`);
    expect(api.status).toBe(400);
    const page = await srv.get(`/benchmarks/network-coverage?date=${CLOSED}&kind=dex-index`);
    expect(page.status).toBe(400);
    expect(await page.text()).toContain('drop the filters');
    expect((await srv.get(`/benchmarks/network-coverage?date=${CLOSED}`)).status).toBe(200);
  });

  it("pages ignore only a shared link's campaign tags and referrer; the API refuses them too", async () => {
    const tags = 'utm_source=x&utm_campaign=y&fbclid=z&ref=news';
    for (const page of ['/', '/benchmarks/rpc-latency', '/providers/mobula', '/methodology', '/mcp']) {
      expect((await srv.get(`${page}?${tags}`)).status, page).toBe(200);
      expect((await srv.get(`${page}?utm=x`)).status, page).toBe(400);
    }
    expect((await srv.get('/api/stat/rpc-latency?utm_source=x')).status).toBe(400);
  });
});

describe('MCP: every tool is closed, and get_benchmark honours date as /api/stat does', () => {
  let srv: Running;
  let client: Client;
  beforeAll(async () => {
    srv = await startServer();
    client = new Client({ name: 'unsupported-parameters', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${srv.url}${MCP_PATH}`)));
  });
  afterAll(async () => {
    await client.close();
    await srv.close();
  });

  type Result = { content: { type: string; text: string }[]; isError?: boolean };
  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as Result;

  it('every tool lists a closed input schema and answers an extra argument with a tool error naming what it takes', async () => {
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThanOrEqual(6);
    const valid: Record<string, Record<string, unknown>> = {
      get_benchmark: { slug: 'network-coverage' },
      get_series: { slug: 'network-coverage' },
      compare_providers: { a: 'mobula', b: 'codex' },
      get_provider: { slug: 'mobula' },
      query_prom: { query: 'up' },
    };
    for (const tool of tools) {
      expect((tool.inputSchema as { additionalProperties?: unknown }).additionalProperties, tool.name).toBe(
        false,
      );
      const takes = Object.keys(tool.inputSchema.properties ?? {});
      const r = await call(tool.name, { ...(valid[tool.name] ?? {}), foo: 'bar' });
      expect(r.isError, tool.name).toBe(true);
      expect(r.content[0]?.text, tool.name).toBe(
        `invalid_arguments: "foo" is not an argument of ${tool.name}; it takes ${takes.join(', ')}`,
      );
    }
  });

  it('get_benchmark with date returns the bytes of /api/stat/{slug}?date=, and refuses a dimension with it', async () => {
    const http = await (await srv.get(`/api/stat/network-coverage?date=${CLOSED}`)).text();
    const dated = await call('get_benchmark', { slug: 'network-coverage', date: CLOSED });
    expect(dated.isError).toBeFalsy();
    expect(dated.content[0]?.text).toBe(http);
    const live = await call('get_benchmark', { slug: 'network-coverage' });
    expect(live.content[0]?.text).not.toBe(http);
    const summary = await call('get_benchmark', {
      slug: 'network-coverage',
      date: CLOSED,
      detail: 'summary',
    });
    expect(JSON.parse(summary.content[0]?.text ?? '{}').asOf).toBe(JSON.parse(http).asOf);
    const filtered = await call('get_benchmark', {
      slug: 'network-coverage',
      date: CLOSED,
      kind: 'dex-index',
    });
    expect(filtered.isError).toBe(true);
    expect(filtered.content[0]?.text).toMatch(/^bad_request: .*drop kind/);
    const bad = await call('get_benchmark', { slug: 'network-coverage', date: 'yesterday' });
    expect(bad.isError).toBe(true);
    expect(bad.content[0]?.text).toMatch(/^bad_date: /);
  });
});
