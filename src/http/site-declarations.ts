import { createRoute, z } from '@hono/zod-openapi';
import { CHART_RANGES } from '../core/history-svg.ts';
import { errorResponse, HTML, STARTING_503, textResponse } from './route-docs.ts';

/**
 * Routes outside the API document (probes, the document itself, the HTML pages) and the MCP
 * endpoint. Declared like the API routes, so the router and GET_PATHS come from one list; the
 * hidden ones are named in test/unit/route-table.test.ts's explicit list.
 */

const pageResponses = { 200: textResponse('HTML page.', HTML) };
const page = (path: string, summary: string) =>
  createRoute({ method: 'get', path, summary, responses: pageResponses });

export const healthzRoute = createRoute({
  method: 'get',
  path: '/healthz',
  summary: 'Readiness probe',
  responses: {
    200: {
      description:
        '{"status":"ok","benchmarks":N}: ready, every route answers; "degraded" on an API replica whose last poll of the engine failed (its last views, marked degraded: true).',
    },
    503: {
      description:
        '{"status":"starting"} from the moment the port is bound until the first views can be served, with "backfill":{"done","total"} while the demo backfills (Retry-After).',
    },
  },
});

export const metricsRoute = createRoute({
  method: 'get',
  path: '/metrics',
  summary: 'Prometheus metrics of this process',
  responses: { 200: textResponse('Prometheus text exposition.', ['text/plain']) },
});

export const openApiRoute = createRoute({
  method: 'get',
  path: '/api/openapi.json',
  summary: 'This document',
  responses: { 200: { description: 'OpenAPI 3.1.0.' } },
});

/** Page filters are read like the API's (once each, bounded); values are checked by the page. */
const pageQuery = () =>
  z.object({
    date: z.string().optional(),
    chain: z.string().optional(),
    region: z.string().optional(),
    kind: z.string().optional(),
    venue: z.string().optional(),
  });

export const homePageRoute = page('/', 'Every benchmark');
export const benchmarkPageRoute = createRoute({
  method: 'get',
  path: '/benchmarks/{slug}',
  summary: 'One benchmark, optionally narrowed or pinned to a frozen day',
  // Any slug reaches the page, which answers an HTML 404 for one it does not know.
  request: {
    params: z.object({ slug: z.string() }),
    // The History section's range (7d when absent); another value is the page's 400.
    query: pageQuery().extend({ range: z.enum(CHART_RANGES).optional() }),
  },
  responses: pageResponses,
});
export const comparePageRoute = createRoute({
  method: 'get',
  path: '/compare/{pair}',
  summary: 'Two providers head to head ({a}-vs-{b})',
  request: { params: z.object({ pair: z.string() }) },
  responses: pageResponses,
});
export const providerPageRoute = createRoute({
  method: 'get',
  path: '/providers/{slug}',
  summary: 'One provider on every benchmark listing it, optionally pinned to a frozen day',
  // Any slug reaches the page, which answers an HTML 404 for one it does not know.
  request: { params: z.object({ slug: z.string() }), query: z.object({ date: z.string().optional() }) },
  responses: pageResponses,
});
export const methodologyPageRoute = page('/methodology', 'How every benchmark is measured');
export const dayArchivePageRoute = page('/days', 'Every frozen day, with its permalinks');
export const benchmarksIndexPageRoute = page('/benchmarks', 'Every benchmark, a line each');
export const providersIndexPageRoute = page('/providers', 'Every provider, a line each');
export const benchmarkDaysPageRoute = createRoute({
  method: 'get',
  path: '/benchmarks/{slug}/days',
  summary: "One benchmark's frozen days, with their permalinks",
  // Any slug reaches the page, which answers an HTML 404 for one it does not know.
  request: { params: z.object({ slug: z.string() }) },
  responses: pageResponses,
});
export const faviconRoute = createRoute({
  method: 'get',
  path: '/favicon.ico',
  summary: 'The site icon (SVG)',
  responses: { 200: textResponse('SVG icon.', ['image/svg+xml']) },
});
export const assetRoute = createRoute({
  method: 'get',
  path: '/assets/{file}',
  summary: "The pages' stylesheet and script, named by a hash of their content",
  request: { params: z.object({ file: z.string() }) },
  responses: {
    200: textResponse('Stylesheet or script, cached forever (immutable).', ['text/css', 'text/javascript']),
    404: errorResponse('No such asset (an old hash, or a name the pages never link).'),
  },
});
export const mcpPageRoute = page('/mcp', 'How to connect an MCP client');
export const robotsRoute = createRoute({
  method: 'get',
  path: '/robots.txt',
  summary: 'Crawl rules: every page and API answer may be crawled; the sitemap is named',
  responses: { 200: textResponse('robots.txt.', ['text/plain']) },
});
export const sitemapRoute = createRoute({
  method: 'get',
  path: '/sitemap.xml',
  summary: 'Every page: the index, each benchmark and provider, the archives, methodology and MCP',
  responses: { 200: textResponse('Sitemap (sitemaps.org 0.9).', ['application/xml']) },
});

/** llmstxt.org: Markdown in a .txt at the site root, served as text/plain. */
const llmsResponses = { 200: textResponse('Markdown (llmstxt.org), as plain text.', ['text/plain']) };
export const llmsTxtRoute = createRoute({
  method: 'get',
  path: '/llms.txt',
  summary: 'The site for language models: a summary and links to every benchmark and the docs',
  responses: llmsResponses,
});
export const llmsFullTxtRoute = createRoute({
  method: 'get',
  path: '/llms-full.txt',
  summary: 'Every benchmark in one Markdown document (the bytes of /api/llm-context)',
  responses: llmsResponses,
});

export const MCP_PATH = '/api/mcp/mcp';

export const mcpRoute = createRoute({
  method: 'post',
  path: MCP_PATH,
  operationId: 'mcp',
  summary:
    'MCP server (Streamable HTTP, POST only): list_benchmarks, get_benchmark, compare_providers, query_prom, get_series, get_provider',
  request: {
    body: {
      required: true,
      content: {
        // Open (additionalProperties: true): generators read a bare `type: object` as an object
        // with no key at all (openapi-typescript: Record<string, never>).
        'application/json': {
          schema: { type: 'object', additionalProperties: true, description: 'One JSON-RPC 2.0 message.' },
        },
      },
    },
  },
  responses: {
    200: {
      description: 'JSON-RPC response.',
      content: { 'application/json': { schema: { type: 'object', additionalProperties: true } } },
    },
    202: { description: 'Notification accepted.' },
    400: { description: 'Batch, bad JSON-RPC or unsupported protocol version.' },
    403: { description: 'Origin or Host not allowed (DNS-rebinding protection).' },
    413: { description: 'Body over 64 KiB.' },
    429: { description: 'Rate limited; see Retry-After.' },
    503: errorResponse(
      `Too many MCP requests are waiting in their queue (busy, Retry-After: 1). ${STARTING_503}`,
    ),
  },
});

/** GET and DELETE on the MCP endpoint: a JSON-RPC 405 (stateless server, no SSE stream, no session). */
export const mcpNotAllowedRoutes = (['get', 'delete'] as const).map((method) =>
  createRoute({
    method,
    path: MCP_PATH,
    summary: 'Not allowed: the MCP server answers POST only',
    responses: { 405: { description: 'JSON-RPC error, Allow: POST.' } },
  }),
);
