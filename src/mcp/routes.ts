import type { Context, Hono } from 'hono';
import { WorkLimit } from '../concurrency/work-limit.ts';
import type { AppDeps } from '../http/deps.ts';
import { CACHE } from '../http/respond.ts';
import { describeViolation, openRoute } from '../http/route-kit.ts';
import { MCP_PATH, mcpNotAllowedRoutes, mcpPageRoute, mcpRoute } from '../http/site-declarations.ts';
import { htmlErrorPage } from '../pages/error-page.ts';
import type { PrometheusStore } from '../store/prometheus-store.ts';
import { MAX_BODY_BYTES, readCappedBody } from './body.ts';
import { clientAddress, nodeIncoming } from './client-address.ts';
import { createOriginPolicy } from './origin-policy.ts';
import { renderMcpPage, type ToolListing } from './page.ts';
import { createPassthroughQueryEngine, QUERY_PROM_DEADLINE_MS } from './promql/engine-passthrough.ts';
import { createStoreQueryEngine } from './promql/store-engine.ts';
import { RateLimiter } from './rate-limit.ts';
import { SUPPORTED_PROTOCOL_VERSIONS } from './sdk-constants.ts';
import { createMcpCore } from './server.ts';
import { limitedEngine, PROMQL_LIMIT } from './work-limit.ts';

export { MCP_PATH };

type ErrorStatus = 400 | 403 | 405 | 413 | 429 | 500;

function rpcError(
  status: ErrorStatus,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json', 'cache-control': CACHE.none, ...headers },
  });
}

/** What a browser script may read on an MCP answer: its limits and when to retry. */
export const MCP_EXPOSE_HEADERS = 'RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After';

const BOTH_ACCEPT = 'application/json, text/event-stream';

/**
 * We always answer with JSON, so a client that accepts JSON (or anything) is served even when it
 * did not list text/event-stream, as curl users tend not to.
 */
function withAccept(req: Request): Request {
  const accept = req.headers.get('accept');
  if (accept?.includes('application/json') && accept.includes('text/event-stream')) return req;
  if (accept && !/application\/json|application\/\*|\*\/\*/.test(accept)) return req;
  const headers = new Headers(req.headers);
  headers.set('accept', BOTH_ACCEPT);
  return new Request(req.url, { method: 'POST', headers });
}

/** POST /api/mcp/mcp (stateless Streamable HTTP), 405 for GET/DELETE, and the /mcp install page. */
export function registerMcpRoutes(app: Hono, deps: AppDeps): void {
  // MCP_FAST_PATH=false sends every request through the SDK transport (to measure or compare it).
  const fastPath = deps.config.mcpFastPath;
  const { config, publication, store, clock } = deps;
  // On a Prometheus-compatible store the engine evaluates the (guarded) query itself, through a
  // client of query_prom's own: its deadline is the client's, not only the engine's `timeout`.
  const onEngine = (store as { engine?: Pick<PrometheusStore, 'queryClient' | 'queryUrl'> }).engine;
  // On the embedded store with the service's workers, range queries are evaluated on a worker
  // thread: the event loop only reads the store and admits, so queries wait in their queue (2
  // running, 8 waiting) and only a full queue refuses. Evaluated on the loop (no workers) or by
  // an engine, the utilization shedder refuses as well.
  const workers = deps.workers;
  const engine = onEngine
    ? limitedEngine(
        createPassthroughQueryEngine(
          onEngine.queryClient(QUERY_PROM_DEADLINE_MS, PROMQL_LIMIT.running),
          onEngine.queryUrl,
          { deadlineMs: QUERY_PROM_DEADLINE_MS },
        ),
        new WorkLimit(PROMQL_LIMIT.running, PROMQL_LIMIT.queued),
      )
    : limitedEngine(
        createStoreQueryEngine(store, workers ? { worker: workers } : {}),
        new WorkLimit(PROMQL_LIMIT.running, PROMQL_LIMIT.queued, workers ? null : undefined),
      );
  const core = createMcpCore({ publication, engine, clock }, config.siteName, config.simulated);
  const policy = createOriginPolicy(config);
  const limiter = new RateLimiter(config.mcpRateLimitPerMin);
  const mcpUrl = `${config.baseUrl}${MCP_PATH}`;
  const page = renderMcpPage({
    siteName: config.siteName,
    baseUrl: config.baseUrl,
    mcpUrl,
    specs: publication.specs,
    rateLimitPerMin: config.mcpRateLimitPerMin,
    simulated: config.simulated,
    tools: core.tools.map((t) => t.listing as unknown as ToolListing),
  });

  /**
   * Every MCP answer, errors included, says the client's rate-limit standing and, to an allowed
   * Origin, echoes it with the fields a browser script may read: a web client must be able to read
   * a 429 and its Retry-After, not only a 200.
   */
  const finish = (c: Context, res: Response): Response => {
    const { ip, localPort } = clientAddress(c);
    const rate = limiter.state(ip);
    const h = res.headers;
    h.set('vary', 'Origin');
    h.set('ratelimit-limit', String(rate.limit));
    h.set('ratelimit-remaining', String(rate.remaining));
    h.set('ratelimit-reset', String(rate.resetSec));
    const origin = c.req.header('origin');
    if (origin && policy.originAllowed(origin, localPort)) {
      h.set('access-control-allow-origin', origin);
      h.set('access-control-expose-headers', MCP_EXPOSE_HEADERS);
    }
    return res;
  };

  openRoute(app, mcpRoute, async (c) => finish(c, await answer(c)));

  async function answer(c: Context): Promise<Response> {
    const { ip, localPort } = clientAddress(c);
    const verdict = policy.check(c.req.header('host'), c.req.header('origin'), localPort);
    if (!verdict.ok) return rpcError(403, -32000, `Forbidden: ${verdict.reason}`);
    const rate = limiter.take(ip);
    if (!rate.ok) {
      return rpcError(429, -32000, `Too many requests: limit is ${config.mcpRateLimitPerMin} per minute`, {
        'retry-after': String(rate.retryAfterSec),
      });
    }
    const version = c.req.header('mcp-protocol-version');
    if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      return rpcError(
        400,
        -32000,
        `Bad Request: unsupported MCP-Protocol-Version "${version}" (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
      );
    }
    const body = await readCappedBody(c.req.raw, nodeIncoming(c));
    if (!body.ok) {
      if (body.reason === 'aborted') return rpcError(400, -32000, 'Request body could not be read');
      // Close the connection rather than drain an oversized upload.
      return rpcError(413, -32000, `Request body exceeds ${MAX_BODY_BYTES} bytes`, { connection: 'close' });
    }
    const text = body.text.trimStart();
    if (text.startsWith('['))
      return rpcError(400, -32600, 'Invalid Request: JSON-RPC batches are not supported');
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return rpcError(400, -32700, 'Parse error: invalid JSON');
    }
    let res: Response;
    try {
      const fast = fastPath ? core.fastCall(parsed, c.req.header('content-type')) : null;
      res = await (fast ?? core.handle(withAccept(c.req.raw), parsed));
    } catch {
      return rpcError(500, -32603, 'Internal error');
    }
    // Headers are added in place: under @hono/node-server the SDK's Response is the lightweight
    // kind that keeps its string body, which node-server writes without a stream.
    res.headers.set('cache-control', CACHE.none);
    return res;
  }

  const notAllowed = (c: Context) =>
    finish(
      c,
      rpcError(405, -32000, 'Method not allowed: this MCP server is stateless and answers POST only', {
        allow: 'POST',
      }),
    );
  for (const route of mcpNotAllowedRoutes) openRoute(app, route, notAllowed, { hidden: true });

  app.options(MCP_PATH, (c) => {
    const { localPort } = clientAddress(c);
    const origin = c.req.header('origin');
    if (origin && !policy.originAllowed(origin, localPort))
      return finish(c, rpcError(403, -32000, 'Forbidden: Origin not allowed'));
    return finish(
      c,
      new Response(null, {
        status: 204,
        headers: {
          allow: 'POST, OPTIONS',
          'access-control-allow-methods': 'POST',
          'access-control-allow-headers':
            'content-type, accept, mcp-protocol-version, mcp-session-id, last-event-id',
          'access-control-max-age': '600',
        },
      }),
    );
  });

  openRoute(
    app,
    mcpPageRoute,
    () =>
      new Response(page, {
        headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': CACHE.doc },
      }),
    // A page: opened from shared links, whose campaign tags and referrers it ignores.
    {
      hidden: true,
      sharedLinks: true,
      onInvalid: (c, v) =>
        htmlErrorPage(
          400,
          'Bad query',
          describeViolation(v).message,
          { name: config.siteName, simulated: config.simulated },
          c.req.url,
        ),
    },
  );
}
