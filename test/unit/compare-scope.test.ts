import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Compare, Stat } from '../../src/core/api-schemas.ts';
import { MCP_PATH } from '../../src/http/site-declarations.ts';
import { type Running, startServer } from '../helpers/server.ts';

/**
 * Where a route can honour a date or a filter, it does: compare of a closed day from its frozen
 * Stats, compare under dimension filters, and a citation of the filtered Stat.
 */

const CLOSED = '2026-11-19';
const PAIR = '/api/compare/mobula/codex';

describe('compare and cite honour dates and filters', () => {
  let srv: Running;
  let client: Client;
  beforeAll(async () => {
    srv = await startServer();
    client = new Client({ name: 'compare-scope', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${srv.url}${MCP_PATH}`)));
  });
  afterAll(async () => {
    await client.close();
    await srv.close();
  });
  const json = async <T>(path: string) => {
    const res = await srv.get(path);
    expect(res.status, path).toBe(200);
    return { res, body: (await res.json()) as T };
  };
  const toolText = async (args: Record<string, unknown>) => {
    const r = (await client.callTool({ name: 'compare_providers', arguments: args })) as {
      content: { text: string }[];
      isError?: boolean;
    };
    expect(r.isError, JSON.stringify(args)).toBeFalsy();
    return r.content[0]?.text;
  };

  it("?date= compares the day's frozen Stats: immutable, X-Snapshot-Date, dated links, not the live rows", async () => {
    const { res, body } = await json<Compare>(`${PAIR}?date=${CLOSED}`);
    expect(res.headers.get('x-snapshot-date')).toBe(CLOSED);
    expect(res.headers.get('cache-control')).toMatch(/immutable/);
    expect(body.date).toBe(CLOSED);
    for (const row of body.shared) expect(row.pageUrl, row.slug).toContain(`date=${CLOSED}`);
    // A latest-mode row is the frozen Stat's own values.
    const frozen = (await json<Stat>(`/api/stat/network-coverage?date=${CLOSED}`)).body;
    const net = body.shared.find((r) => r.slug === 'network-coverage');
    expect(net?.aValue).toBe(frozen.rankings.find((r) => r.slug === 'mobula')?.ms.p50);
    const live = (await json<Compare>(PAIR)).body;
    expect(live.date).toBeUndefined();
    expect(body.shared.map((r) => r.aValue)).not.toEqual(live.shared.map((r) => r.aValue));
    // The same bytes again, and through MCP.
    const again = await srv.get(`${PAIR}?date=${CLOSED}`);
    expect(await again.text()).toBe(JSON.stringify(body));
    expect(await toolText({ a: 'mobula', b: 'codex', date: CLOSED })).toBe(JSON.stringify(body));
  });

  it('a dated compare refuses filters, today and a malformed day as /api/stat?date= does', async () => {
    const cases: [string, number, string][] = [
      [`${PAIR}?date=${CLOSED}&chain=solana`, 400, 'bad_request'],
      [`${PAIR}?date=2026-11-20`, 404, 'not_frozen'],
      [`${PAIR}?date=2026-02-30`, 400, 'bad_date'],
      [`${PAIR}?date=yesterday`, 400, 'bad_date'],
    ];
    for (const [path, status, error] of cases) {
      const res = await srv.get(path);
      expect(res.status, path).toBe(status);
      expect(((await res.json()) as { error: string }).error, path).toBe(error);
    }
  });

  it('a filter keeps the benchmarks declaring it with that value, each under it, and says so', async () => {
    const { body } = await json<Compare>(`${PAIR}?chain=solana`);
    expect(body.filters).toEqual({ chain: 'solana' });
    // network-coverage has no chain; recall has no Solana: only trade coverage is a row.
    expect(body.shared.map((r) => r.slug)).toEqual(['token-trade-coverage']);
    const unfiltered = (await json<Compare>(PAIR)).body.shared.find((r) => r.slug === 'token-trade-coverage');
    expect([body.shared[0]?.aValue, body.shared[0]?.bValue]).not.toEqual([
      unfiltered?.aValue,
      unfiltered?.bValue,
    ]);
    expect(await toolText({ a: 'mobula', b: 'codex', chain: 'solana' })).toBe(JSON.stringify(body));
    // A provider the filter leaves out has no value in its row, which is then not comparable.
    const kind = (await json<Compare>(`${PAIR}?kind=dex-index`)).body;
    expect(kind.shared.map((r) => [r.slug, r.aValue, r.comparable])).toEqual([
      ['network-coverage', null, false],
    ]);
    const none = await srv.get(`${PAIR}?chain=atlantis`);
    expect(none.status).toBe(404);
    expect(((await none.json()) as { error: string }).error).toBe('unknown_dimension_value');
    const venue = await srv.get(`${PAIR}?venue=uniswap`);
    expect(venue.status).toBe(404);
    expect(((await venue.json()) as { error: string }).error).toBe('unknown_dimension');
  });

  it("a citation with the Stat's filters cites the filtered Stat: its own cite record, its pageUrl", async () => {
    const stat = (await json<Stat>('/api/stat/network-coverage?kind=dex-index')).body;
    const res = await srv.get('/api/cite/network-coverage/bib?kind=dex-index');
    expect(res.status).toBe(200);
    const bib = await res.text();
    expect(bib).toBe(stat.cite.bibtex);
    expect(bib).toContain('/benchmarks/network-coverage?kind=dex-index');
    expect((await srv.get(`/api/cite/network-coverage/bib?date=${CLOSED}&kind=dex-index`)).status).toBe(400);
    expect((await srv.get('/api/cite/network-coverage/bib?chain=solana')).status).toBe(404);
  });
});
