import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { declaredPath } from '../../src/http/route-kit.ts';
import { GET_PATHS } from '../../src/http/route-table.ts';
import { type Running, startServer } from '../helpers/server.ts';

/**
 * One declaration per route: the router's GET routes and the OpenAPI document's paths are the same
 * set, but for the routes that are not API operations, each named once here.
 */
const OUTSIDE_DOCUMENT = [
  '/healthz',
  '/metrics',
  '/api/openapi.json',
  '/favicon.ico',
  '/assets/{file}',
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
  '/llms.txt',
  '/llms-full.txt',
  '/robots.txt',
  '/sitemap.xml',
].sort();

const template = declaredPath;

let srv: Running;
let doc: { paths: Record<string, Record<string, unknown>> };
beforeAll(async () => {
  srv = await startServer();
  doc = await (await srv.get('/api/openapi.json')).json();
});
afterAll(() => srv.close());

/** Every (method, path) the router answers, as OpenAPI templates; fallbacks (`*`) aside. */
function routerRoutes(method: string): Set<string> {
  return new Set(
    srv.service.app.routes.filter((r) => r.method === method && r.path !== '/*').map((r) => template(r.path)),
  );
}

describe('route table', () => {
  it('routes a GET for every documented path, and documents every GET route but the listed ones', () => {
    const routed = routerRoutes('GET');
    const documented = new Set(Object.keys(doc.paths));
    expect([...routed].filter((p) => !documented.has(p)).sort()).toEqual(OUTSIDE_DOCUMENT);
    // The MCP endpoint is documented as POST; its GET is a JSON-RPC 405.
    expect([...documented].filter((p) => !routed.has(p))).toEqual([]);
  });

  it('routes every documented operation with its method', () => {
    const missing: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const method of Object.keys(ops)) {
        if (!routerRoutes(method.toUpperCase()).has(path)) missing.push(`${method} ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('GET_PATHS, which the fuzzers and the hot-path test read, is the router GET routes (MCP aside)', () => {
    const routed = [...routerRoutes('GET')].filter((p) => p !== '/api/mcp/mcp').sort();
    expect(GET_PATHS.map(template).sort()).toEqual(routed);
  });

  it('every documented operation has an operationId unchanged, or none as before', () => {
    const ids = Object.entries(doc.paths).flatMap(([p, ops]) =>
      Object.entries(ops).map(
        ([m, op]) => `${m} ${p} ${(op as { operationId?: string }).operationId ?? '-'}`,
      ),
    );
    expect(ids.sort()).toEqual(
      [
        'get /api/audit/{slug}/{provider} audit_provider',
        'get /api/badge/{slug}/{provider} -',
        'get /api/chart/{slug} -',
        'get /api/citable list_benchmarks',
        'get /api/citable/{date} list_benchmarks_snapshot',
        'get /api/cite/{slug}/{format} -',
        'get /api/compare/{a}/{b} compare_providers',
        'get /api/dataset list_dataset_days',
        'get /api/dataset/{date}.json get_dataset_manifest',
        'get /api/dataset/{file} -',
        'get /api/freshness get_freshness',
        'get /api/llm-context -',
        'get /api/og/{slug} -',
        'get /api/providers list_providers',
        'get /api/providers/{slug} get_provider',
        'get /api/search/featured get_featured_leaders',
        'get /api/series/{slug} get_series',
        'get /api/sparkline/{slug} -',
        'get /api/stat/{slug} get_benchmark',
        'post /api/mcp/mcp mcp',
      ].sort(),
    );
  });
});
