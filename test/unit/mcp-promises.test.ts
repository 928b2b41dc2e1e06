/**
 * Issue 28 item 16: what the MCP server promises, it keeps. Simulated data says so on every
 * result, query_prom included; descriptions name only metrics its guard accepts; dimension
 * arguments are the ones the specs declare.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../../src/config.ts';
import { FAMILIES, STORED_METRIC_NAMES } from '../../src/core/family.ts';
import type { BenchmarkSpec } from '../../src/core/spec-schema.ts';
import { buildDataset } from '../../src/demo/dataset.ts';
import '../../src/harness/families/index.ts';
import { renderMcpPage, type ToolListing } from '../../src/mcp/page.ts';
import { createStoreQueryEngine } from '../../src/mcp/promql/store-engine.ts';
import { createMcpCore, type McpCore } from '../../src/mcp/server.ts';
import type { ToolResult } from '../../src/mcp/tool-def.ts';
import { loadSpecs } from '../../src/publication/load-specs.ts';
import { createPublication } from '../../src/publication/publication.ts';
import type { PublicationApi } from '../../src/publication/types.ts';
import { openDuckDbStore } from '../../src/store/duckdb-store.ts';
import type { Store } from '../../src/store/sample-store.ts';

const END = Date.UTC(2025, 5, 2, 12, 0, 0);

let store: Store;
let publication: PublicationApi & { close(): void };
let specs: BenchmarkSpec[];

beforeAll(async () => {
  specs = await loadSpecs('benchmarks');
  store = await openDuckDbStore({ path: ':memory:' });
  await store.append(buildDataset({ seed: 7, days: 2, end: END }));
  publication = createPublication({ specs, store, config: testConfig(), clock: () => END });
});
afterAll(async () => {
  publication.close();
  await store.close();
});

function core(simulated: boolean, pub: PublicationApi = publication): McpCore {
  return createMcpCore(
    { publication: pub, engine: createStoreQueryEngine(store), clock: () => END },
    'Citebench',
    simulated,
  );
}

async function call(c: McpCore, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  const tool = c.tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  return tool.call(args);
}

type Listing = { description: string; inputSchema: { properties: Record<string, { description?: string }> } };
const listing = (c: McpCore, name: string) =>
  c.tools.find((t) => t.name === name)?.listing as unknown as Listing;

describe('query_prom on simulated data', () => {
  it('instant and range results carry simulated: true; measured ones do not', async () => {
    const sim = core(true);
    const instant = await call(sim, 'query_prom', { query: 'networks_supported' });
    expect(instant.isError).toBeFalsy();
    expect(instant.structuredContent?.simulated).toBe(true);
    expect(JSON.parse(instant.content[0]?.text ?? '{}').simulated).toBe(true);
    const range = await call(sim, 'query_prom', { query: 'networks_supported', windowSec: 3600, steps: 4 });
    expect(range.structuredContent).toMatchObject({ resultType: 'matrix', simulated: true });
    const measured = await call(core(false), 'query_prom', { query: 'networks_supported' });
    expect(measured.structuredContent).not.toHaveProperty('simulated');
    const q = sim.tools.find((t) => t.name === 'query_prom')?.listing as
      | { outputSchema: { properties: object } }
      | undefined;
    expect(q?.outputSchema.properties).toHaveProperty('simulated');
  });
});

describe('tool descriptions name only queryable metrics', () => {
  it('every metric-like name in a description is one the guard accepts', async () => {
    const c = core(false);
    const labels = new Set([
      'region',
      'origin',
      ...[...FAMILIES.values()].flatMap((f) => f.metrics.flatMap((m) => m.labels)),
    ]);
    const words = new Set<string>();
    for (const t of c.tools) {
      const l = t.listing as unknown as Listing;
      const text = [
        l.description,
        ...Object.values(l.inputSchema.properties).map((p) => p.description ?? ''),
      ].join(' ');
      for (const m of text.matchAll(/\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g)) words.add(m[0]);
    }
    const metrics = [...words].filter(
      (w) => !labels.has(w) && !w.endsWith('_over_time') && !/^(get|list|query|compare)_/.test(w),
    );
    expect(metrics.length).toBeGreaterThan(3);
    expect(metrics).not.toContain('provider_unresponsive');
    for (const m of metrics) {
      expect(STORED_METRIC_NAMES, m).toContain(m);
      const r = await call(c, 'query_prom', { query: `count(${m})` });
      expect(r.isError, `${m}: ${r.content[0]?.text}`).toBeFalsy();
    }
  });
});

describe('dimension arguments come from the specs', () => {
  const declared = () => new Set(specs.flatMap((s) => Object.keys(s.dimensions)));

  it('get_benchmark and get_series offer the declared dimensions only (no venue today)', () => {
    expect([...declared()].sort()).toEqual(['chain', 'kind', 'region']);
    for (const name of ['get_benchmark', 'get_series']) {
      const props = Object.keys(listing(core(false), name).inputSchema.properties);
      expect(props, name).not.toContain('venue');
      for (const d of ['chain', 'region', 'kind']) expect(props, name).toContain(d);
      expect(listing(core(false), name).description, name).not.toMatch(/venue/);
    }
    expect(listing(core(false), 'get_benchmark').inputSchema.properties.chain?.description).toMatch(
      /"ethereum".*Declared by rpc-latency, rpc-head-lag, token-trade-coverage, token-trade-recall;/,
    );
  });

  it('a spec that declares venue brings the argument back', () => {
    const base = specs[0] as BenchmarkSpec;
    const withVenue: BenchmarkSpec = {
      ...base,
      slug: 'venue-bench',
      dimensions: {
        venue: { appliesTo: 'label', fromData: false, values: [{ value: 'uniswap', label: 'Uniswap' }] },
      },
    };
    const pub: PublicationApi = { ...publication, specs: [...specs, withVenue] };
    const props = listing(core(false, pub), 'get_benchmark').inputSchema.properties;
    expect(props.venue?.description).toMatch(/"uniswap".*Declared by venue-bench;/);
  });

  it('an undeclared dimension argument is refused, not dropped into the unfiltered view', async () => {
    const c = core(false);
    const b = await call(c, 'get_benchmark', { slug: 'token-trade-coverage', venue: 'uniswap' });
    expect(b.isError).toBe(true);
    // No benchmark declares venue, so the closed schema refuses it and names what the tool takes.
    expect(b.content[0]?.text).toMatch(
      /invalid_arguments: "venue" is not an argument of get_benchmark; it takes slug, date, chain/,
    );
    const s = await call(c, 'get_series', { slug: 'token-trade-coverage', venue: 'uniswap' });
    expect(s.isError).toBe(true);
    expect(s.content[0]?.text).toMatch(/"venue" is not an argument of get_series/);
    // A dimension another benchmark declares is this benchmark's unknown_dimension, as over HTTP.
    const r = await call(c, 'get_benchmark', { slug: 'network-coverage', chain: 'solana' });
    expect(r.isError).toBe(true);
    expect(r.content[0]?.text).toMatch(/unknown_dimension: .*no "chain" dimension/);
    const ok = await call(c, 'get_benchmark', {
      slug: 'token-trade-coverage',
      chain: 'solana',
      detail: 'summary',
    });
    expect(ok.isError).toBeFalsy();
  });

  it('the /mcp page lists every tool the server exposes, with the arguments its tools/list gives', () => {
    const server = core(false);
    const html = renderMcpPage({
      siteName: 'Citebench',
      baseUrl: 'https://x.test',
      mcpUrl: 'https://x.test/api/mcp/mcp',
      specs,
      rateLimitPerMin: 60,
      tools: server.tools.map((t) => t.listing as unknown as ToolListing),
    });
    expect(server.tools.length).toBeGreaterThanOrEqual(6);
    for (const t of server.tools) {
      const card = new RegExp(`data-testid="tool-${t.name}">(.*?)</div>`, 's').exec(html)?.[1] ?? '';
      const props = Object.keys((t.listing.inputSchema as { properties: object }).properties);
      for (const p of props) expect(card, `${t.name} ${p}`).toContain(`<code>${p}</code>`);
    }
    expect(html).toContain(
      'Arguments: <code>slug</code>, <code>date</code> (optional), <code>chain</code> (optional), <code>region</code> (optional), <code>kind</code> (optional), <code>detail</code> (optional).',
    );
    expect(html).not.toContain('<code>venue</code>');
  });
});
