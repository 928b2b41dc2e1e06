import { OpenAPIHono } from '@hono/zod-openapi';
import type { Hono } from 'hono';
import type { BlankEnv, BlankSchema } from 'hono/types';
import { Counter } from 'prom-client';
import { within } from '../concurrency/deadline.ts';
import { etagOf } from '../core/hash.ts';
import { loadShedder } from '../load-shed.ts';
import type { Logger } from '../log.ts';
import { FIRST_POLL_WAIT_MS } from '../publication/engine-deadlines.ts';
import type { Publication } from '../publication/publication.ts';
import type { StartupState } from '../startup-state.ts';
import { JSON_TYPE } from './answers.ts';
import { registerAuditRoutes } from './audit-routes.ts';
import { registerCiteRoutes } from './cite-routes.ts';
import { registerDatasetRoutes } from './dataset-routes.ts';
import type { AppDeps } from './deps.ts';
import { FOREVER } from './hot-path.ts';
import { registerLlmsRoutes } from './llms-routes.ts';
import { MetricsText } from './metrics-text.ts';
import { type HtmlErrorPage, wantsHtml } from './negotiate.ts';
import { buildOpenApi } from './openapi.ts';
import { registerProviderRoutes } from './provider-routes.ts';
import { CACHE, EXPOSE_HEADERS, publicationErrorResponse, sendBytes, sendError } from './respond.ts';
import { openRoute } from './route-kit.ts';
import { GET_PATHS } from './route-table.ts';
import { registerSeriesRoutes } from './series-routes.ts';
import { healthzRoute, metricsRoute, openApiRoute } from './site-declarations.ts';
import { registerViewRoutes } from './view-routes.ts';

export { GET_PATHS } from './route-table.ts';

/** What a route module may hand back: the site's HTML error page (the pages module has one). */
export interface RouteExtras {
  readonly htmlErrorPage?: HtmlErrorPage;
}

export interface HttpDeps extends AppDeps {
  readonly publication: Publication;
  readonly log?: Logger;
  /** Extra route modules (images, MCP, pages), called before the fallbacks. */
  // biome-ignore lint/suspicious/noConfusingVoidType: a module that only adds routes returns nothing
  readonly extraRoutes?: readonly ((app: Hono) => RouteExtras | void)[];
  /** The HTML 404 for browsers; without one (no pages mounted) every 404 is JSON. */
  readonly htmlErrorPage?: HtmlErrorPage;
  /** Where start-up is: /healthz waits for a replica's first poll (src/startup-state.ts). */
  readonly startup?: Pick<StartupState, 'firstPoll'>;
}

const encoder = new TextEncoder();

const PREFLIGHT_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, HEAD, OPTIONS',
  'access-control-allow-headers': 'If-None-Match',
  'access-control-expose-headers': EXPOSE_HEADERS,
  'access-control-max-age': '86400',
};

/** The HTTP front door: every declared route, CORS preflight and 405s, the fallbacks. Opens no port. */
export function buildApp(deps: HttpDeps): Hono {
  const pub = deps.publication;
  // Its registry collects the documented operations; /api/openapi.json is generated from it.
  const app = new OpenAPIHono<BlankEnv, BlankSchema>();
  const metricsText = new MetricsText(deps.metrics, () => loadShedder.overloaded());
  // Both read the publication's counts when scraped (the frozen days themselves never change).
  const fromPublication = (name: string, help: string, read: () => number) => {
    if (deps.metrics.getSingleMetric(name)) return;
    new Counter({
      name,
      help,
      registers: [deps.metrics],
      collect() {
        this.reset();
        this.inc(read());
      },
    });
  };
  fromPublication(
    'snapshot_late_writes_total',
    'Writes into an already frozen day: appends seen by this process, or per day the samples the store holds beyond its frozen dataset rows (written while stopped or by a separate harness)',
    () => pub.lateWrites,
  );
  fromPublication(
    'snapshot_freeze_failures_total',
    'Failed day freezes (each retried with backoff: 30 s, doubling to every 15 min)',
    () => pub.freezeFailures,
  );

  openRoute(
    app,
    healthzRoute,
    async (c) => {
      const firstPoll = deps.startup?.firstPoll;
      if (firstPoll) await within(firstPoll, FIRST_POLL_WAIT_MS);
      // A replica whose last poll of the engine failed serves its last views, marked degraded.
      return c.body(
        JSON.stringify({ status: pub.engineDown ? 'degraded' : 'ok', benchmarks: pub.specs.length }),
        200,
        {
          'content-type': JSON_TYPE,
          'cache-control': CACHE.none,
        },
      );
    },
    { hidden: true },
  );

  openRoute(
    app,
    metricsRoute,
    async (c) => {
      const text = await metricsText.text();
      return c.body(text, 200, { 'content-type': deps.metrics.contentType, 'cache-control': CACHE.none });
    },
    { hidden: true },
  );

  // Built on first request, once every route module has registered its operations.
  let openapi: { body: Uint8Array<ArrayBuffer>; etag: string } | undefined;
  openRoute(
    app,
    openApiRoute,
    (c) => {
      if (!openapi) {
        const doc = buildOpenApi(app, deps.config.baseUrl, deps.config.siteName);
        const body = encoder.encode(JSON.stringify(doc));
        openapi = { body, etag: etagOf(body) };
      }
      return sendBytes(c, { ...openapi, contentType: JSON_TYPE, cacheControl: CACHE.doc }, FOREVER);
    },
    { hidden: true },
  );

  registerViewRoutes(app, pub, deps.clock);
  registerAuditRoutes(app, pub);
  registerCiteRoutes(app, pub, deps.clock);
  registerSeriesRoutes(app, pub);
  registerDatasetRoutes(app, pub, deps.clock);
  registerProviderRoutes(app, pub);
  registerLlmsRoutes(app, pub);

  let htmlErrorPage = deps.htmlErrorPage;
  for (const register of deps.extraRoutes ?? [])
    htmlErrorPage = register(app)?.htmlErrorPage ?? htmlErrorPage;

  for (const path of GET_PATHS) {
    app.options(path, () => new Response(null, { status: 204, headers: PREFLIGHT_HEADERS }));
    app.on(['POST', 'PUT', 'PATCH', 'DELETE'], path, (c) =>
      sendError(c, 405, 'method_not_allowed', `${c.req.method} is not allowed here; use GET or HEAD.`, {
        allow: 'GET, HEAD, OPTIONS',
      }),
    );
  }

  app.notFound((c) => {
    const path = c.req.path;
    // One canonical URL per resource: /api/citable/ redirects to /api/citable, query kept. The
    // target is built from the raw (still percent-encoded) URL, so it is always a valid header.
    if (path.length > 1 && path.endsWith('/') && (c.req.method === 'GET' || c.req.method === 'HEAD')) {
      const url = c.req.url;
      const from = url.indexOf('/', url.indexOf('//') + 2);
      const qs = url.indexOf('?');
      const rawPath = url.slice(from, qs === -1 ? undefined : qs);
      const target = `${rawPath.replace(/\/+$/, '') || '/'}${qs === -1 ? '' : url.slice(qs)}`;
      if (/^\/[\x21-\x7e]*$/.test(target) && !target.startsWith('//')) {
        return new Response(null, {
          status: 308,
          headers: { location: target, 'access-control-allow-origin': '*', 'cache-control': CACHE.doc },
        });
      }
    }
    // A browser gets a page in the site layout; API clients (and anything under /api/) get JSON.
    if (htmlErrorPage && path !== '/api' && !path.startsWith('/api/') && wantsHtml(c)) {
      return htmlErrorPage(404, 'Page not found', `There is no page at ${path.slice(0, 200)}.`, c.req.url);
    }
    return sendError(c, 404, 'not_found', `No route for ${c.req.method} ${path.slice(0, 200)}.`);
  });

  app.onError((err, c) => {
    const mapped = publicationErrorResponse(
      c,
      err,
      pub.specs.map((s) => s.slug),
    );
    if (mapped) return mapped;
    // Malformed URLs (bad percent-encoding) surface as URIError from the router or query parser.
    if (err instanceof URIError) return sendError(c, 400, 'bad_request', 'The request URL is malformed.');
    deps.log?.error('unhandled error', { path: c.req.path, error: err.stack ?? String(err) });
    return sendError(c, 500, 'internal_error', 'The request could not be served.');
  });

  return app;
}
