import type { Context } from 'hono';
import { Hono } from 'hono';
import { Counter } from 'prom-client';
import type { Filters, Freshness, Stat } from '../core/api-schemas.ts';
import {
  CITE_CONTENT_TYPES,
  CITE_EXTENSIONS,
  CITE_FORMATS,
  type CiteFormat,
  citeAs,
  citeFromBundle,
} from '../core/citations.ts';
import { DAY_MS, dayEnd, parseDay } from '../core/dates.ts';
import { etagOf } from '../core/hash.ts';
import { DIMENSION_NAMES, SLUG_RE } from '../core/spec-schema.ts';
import type { Logger } from '../log.ts';
import { htmlErrorPage, wantsHtml } from '../pages/routes.ts';
import type { Publication } from '../publication/publication.ts';
import type { FilterResolution } from '../publication/types.ts';
import { registerDatasetRoutes } from './dataset-routes.ts';
import type { AppDeps } from './deps.ts';
import { ANY_BENCHMARK, FOREVER, type HotSource } from './hot-path.ts';
import { viewSource } from './hot-source.ts';
import { buildOpenApi } from './openapi.ts';
import { readQuery } from './query.ts';
import {
  CACHE,
  citeCacheControl,
  citeMaxAgeIsConstant,
  EXPOSE_HEADERS,
  publicationErrorResponse,
  sendBytes,
  sendError,
} from './respond.ts';
import { registerSeriesRoutes } from './series-routes.ts';
import { TextCache } from './text-cache.ts';

export interface HttpDeps extends AppDeps {
  readonly publication: Publication;
  readonly log?: Logger;
  /** Extra route registrars (images, MCP), called before the fallbacks. */
  readonly extraRoutes?: readonly ((app: Hono) => void)[];
}

const JSON_TYPE = 'application/json; charset=utf-8';

function parseDayStart(day: string): number {
  const d = parseDay(day);
  return d.ok ? d.start : 0;
}
const encoder = new TextEncoder();

/** A cached JSON view (bytes + ETag) as a response, offered to the hot path while it is current. */
function sendServed(
  c: Context,
  s: { body: Uint8Array<ArrayBuffer>; etag: string; value?: unknown },
  hot: HotSource,
  cacheControl: string = CACHE.live,
) {
  // A view served while the store is down must not be cached as if it were current.
  const v = s.value as { degraded?: boolean; site?: { degraded?: boolean } } | undefined;
  const cc = v?.degraded || v?.site?.degraded ? CACHE.degraded : cacheControl;
  return sendBytes(c, { body: s.body, etag: s.etag, contentType: JSON_TYPE, cacheControl: cc }, hot);
}

function badSlug(c: Context, slug: string): Response {
  return sendError(
    c,
    400,
    'bad_slug',
    `"${slug.slice(0, 100)}" is not a valid slug (^[a-z0-9][a-z0-9-]{0,79}$).`,
  );
}

function unknownSlug(c: Context, pub: Publication, slug: string): Response {
  return sendError(
    c,
    404,
    'unknown_benchmark',
    `Unknown benchmark "${slug}". Valid slugs: ${pub.specs.map((s) => s.slug).join(', ')}.`,
  );
}

/** Every GET route answers HEAD (Hono does this) and 405 for other methods (the fuzzers read it too). */
export const GET_PATHS = [
  '/healthz',
  '/metrics',
  '/api/openapi.json',
  '/api/citable',
  '/api/citable/:date',
  '/api/stat/:slug',
  '/api/compare/:a/:b',
  '/api/audit/:slug/:provider',
  '/api/cite/:slug/:format',
  '/api/llm-context',
  '/api/freshness',
  '/api/search/featured',
  '/api/series/:slug',
  '/api/dataset',
  '/api/dataset/:file',
  '/api/og/:slug',
  '/api/sparkline/:slug',
  '/mcp',
  '/',
  '/benchmarks/:slug',
  '/compare/:pair',
  '/methodology',
  '/favicon.ico',
];

/**
 * `?window=24h` on a window-mode benchmark: the audit covers the Stat's window, narrowed by the
 * Stat's own filters (`chain`, `region`, …), resolved as /api/stat resolves them. Filters without a
 * window, or a window other than the Stat's, are a clear 400.
 */
function auditWindow(
  pub: Publication,
  slug: string,
  v: Readonly<Record<string, string | undefined>>,
): { ok: true; window: { filters: Filters | null } | undefined } | Extract<FilterResolution, { ok: false }> {
  const spec = pub.spec(slug);
  const hasFilter = DIMENSION_NAMES.some((d) => v[d] !== undefined);
  if (v.window === undefined) {
    if (!hasFilter) return { ok: true, window: undefined };
    return {
      ok: false,
      status: 400,
      error: 'bad_query',
      message: `${DIMENSION_NAMES.filter((d) => v[d] !== undefined).join(' and ')} narrows only a window audit: add window=24h.`,
    };
  }
  if (spec?.derivation.mode !== 'window') {
    return {
      ok: false,
      status: 400,
      error: 'bad_query',
      message: `${slug} publishes the latest listing count, not a window statistic: its audit has no window.`,
    };
  }
  if (v.window !== spec.window) {
    return {
      ok: false,
      status: 400,
      error: 'bad_query',
      message: `window must be ${spec.window} (the window of ${slug}'s statistics).`,
    };
  }
  if (!hasFilter) return { ok: true, window: { filters: null } };
  const f = pub.resolveFilters(slug, v);
  return f.ok ? { ok: true, window: { filters: f.filters } } : f;
}

export function buildApp(deps: HttpDeps): Hono {
  const pub = deps.publication;
  const app = new Hono();
  if (!deps.metrics.getSingleMetric('snapshot_late_writes_total')) {
    new Counter({
      name: 'snapshot_late_writes_total',
      help: 'Writes that carried samples for an already frozen day (the frozen day does not change)',
      registers: [deps.metrics],
      collect() {
        this.reset();
        this.inc(pub.lateWrites);
      },
    });
  }

  app.get('/healthz', (c) =>
    c.body(JSON.stringify({ status: 'ok', benchmarks: pub.specs.length }), 200, {
      'content-type': JSON_TYPE,
      'cache-control': CACHE.none,
    }),
  );

  app.get('/metrics', async (c) => {
    const text = await deps.metrics.metrics();
    return c.body(text, 200, { 'content-type': deps.metrics.contentType, 'cache-control': CACHE.none });
  });

  let openapi: { body: Uint8Array<ArrayBuffer>; etag: string } | undefined;
  app.get('/api/openapi.json', (c) => {
    if (!openapi) {
      const body = encoder.encode(JSON.stringify(buildOpenApi(deps.config.baseUrl, deps.config.siteName)));
      openapi = { body, etag: etagOf(body) };
    }
    return sendBytes(c, { ...openapi, contentType: JSON_TYPE, cacheControl: CACHE.doc }, FOREVER);
  });

  // Cached views are answered synchronously: no promise, no JSON work, just the stored bytes.
  app.get('/api/citable', (c): Response | Promise<Response> => {
    const hit = pub.peekCitable();
    if (hit) return sendServed(c, hit, viewSource(pub, hit, ANY_BENCHMARK));
    return pub.citable().then((s) => sendServed(c, s, viewSource(pub, s, ANY_BENCHMARK)));
  });

  app.get('/api/citable/:date', async (c) => {
    const r = await pub.snapshot(c.req.param('date'));
    if (r.kind === 'bad_date') return sendError(c, 400, 'bad_date', r.message);
    if (r.kind === 'not_frozen') return sendError(c, 404, 'not_frozen', r.message);
    return sendBytes(
      c,
      {
        body: r.served.body,
        etag: r.served.etag,
        contentType: JSON_TYPE,
        cacheControl: r.kind === 'frozen' ? CACHE.immutable : CACHE.live,
        headers: { 'x-snapshot-date': r.day },
      },
      // Today's date answers with the live index (the hot path drops every entry at 00:00 UTC).
      r.kind === 'frozen' ? FOREVER : viewSource(pub, r.served, ANY_BENCHMARK),
    );
  });

  const resolved = new Map<string, FilterResolution>();
  const statQuery = ['chain', 'region', 'kind', 'venue', 'date'] as const;
  app.get('/api/stat/:slug', (c): Response | Promise<Response> => {
    const slug = c.req.param('slug');
    if (!SLUG_RE.test(slug)) return badSlug(c, slug);
    let filters: Filters | null = null;
    const url = c.req.url;
    const qs = url.indexOf('?');
    if (qs !== -1) {
      // Specs are fixed for the process, so a (slug, query string) always resolves the same way;
      // readQuery bounds the query before it becomes a cache key.
      const key = `${slug}${url.slice(qs)}`;
      let f = resolved.get(key);
      if (!f) {
        const q = readQuery(c, statQuery);
        if (!q.ok) return sendError(c, 400, q.error, q.message);
        const v = q.values;
        if (v.date !== undefined) return frozenStat(c, slug, v.date, v);
        f = pub.resolveFilters(slug, { chain: v.chain, region: v.region, kind: v.kind, venue: v.venue });
        if (resolved.size >= 2000) resolved.clear();
        // Region values come from the data, so a region's answer can change when a harness writes.
        if (v.region === undefined) resolved.set(key, f);
      }
      if (!f.ok) return sendError(c, f.status, f.error, f.message);
      filters = f.filters;
    }
    const hit = pub.peekStat(slug, filters);
    if (hit) return sendServed(c, hit, viewSource(pub, hit, slug));
    return pub.stat(slug, filters).then((s) => sendServed(c, s, viewSource(pub, s, slug)));
  });

  /** GET /api/stat/{slug}?date=YYYY-MM-DD: the unfiltered Stat frozen with that day's snapshot. */
  async function frozenStat(
    c: Context,
    slug: string,
    date: string,
    q: Readonly<Record<string, string | undefined>>,
  ): Promise<Response> {
    if (!pub.spec(slug)) return unknownSlug(c, pub, slug);
    if (q.chain !== undefined || q.region !== undefined || q.kind !== undefined || q.venue !== undefined) {
      return sendError(
        c,
        400,
        'bad_request',
        'A dated Stat is the unfiltered one frozen with the day; drop the filters.',
      );
    }
    const r = await pub.frozenStat(slug, date);
    if (r.kind === 'bad_date') return sendError(c, 400, 'bad_date', r.message);
    if (r.kind === 'today') {
      return sendError(
        c,
        404,
        'not_frozen',
        `${date} is today: it is frozen after it closes. Its live values are at /api/stat/${slug}.`,
      );
    }
    if (r.kind === 'not_frozen') return sendError(c, 404, 'not_frozen', r.message);
    return sendBytes(
      c,
      {
        ...r.served,
        contentType: JSON_TYPE,
        cacheControl: CACHE.immutable,
        headers: { 'x-snapshot-date': date },
      },
      FOREVER,
    );
  }

  app.get('/api/audit/:slug/:provider', async (c) => {
    const slug = c.req.param('slug');
    const provider = c.req.param('provider');
    if (!SLUG_RE.test(slug)) return badSlug(c, slug);
    if (!SLUG_RE.test(provider)) return badSlug(c, provider);
    if (!pub.spec(slug)) return unknownSlug(c, pub, slug);
    const q = readQuery(c, ['date', 'window', ...DIMENSION_NAMES]);
    if (!q.ok) return sendError(c, 400, q.error, q.message);
    const v = q.values;
    const w = auditWindow(pub, slug, v);
    if (!w.ok) return sendError(c, w.status, w.error, w.message);
    let evalTime: number | undefined;
    if (v.date !== undefined) {
      // A link from a frozen day: the measurements as they stood at the end of that day.
      const d = await pub.checkDay(v.date);
      if (d.kind === 'bad_date') return sendError(c, 400, 'bad_date', d.message);
      if (d.kind === 'ok' || d.kind === 'not_frozen') evalTime = dayEnd(parseDayStart(v.date));
    }
    const a = await pub.audit(slug, provider, evalTime, w.window);
    if (!a) {
      const valid = pub.spec(slug)?.providers.map((p) => p.slug) ?? [];
      return sendError(
        c,
        404,
        'unknown_provider',
        `"${provider}" is not measured by ${slug}. Valid: ${valid.join(', ')}.`,
      );
    }
    return sendServed(c, a, viewSource(pub, a, slug));
  });

  app.get('/api/compare/:a/:b', async (c) => {
    const r = await pub.compare(c.req.param('a'), c.req.param('b'));
    if (!r.ok) return sendError(c, r.status, r.error, r.message);
    return sendServed(c, r.served, viewSource(pub, r.served, ANY_BENCHMARK));
  });

  const citations = new TextCache(2000);
  app.get('/api/cite/:slug/:format', async (c) => {
    const slug = c.req.param('slug');
    const format = c.req.param('format');
    if (!SLUG_RE.test(slug)) return badSlug(c, slug);
    if (!(CITE_FORMATS as readonly string[]).includes(format)) {
      return sendError(
        c,
        400,
        'bad_format',
        `Unknown format "${format.slice(0, 20)}". Allowed: ${CITE_FORMATS.join(', ')}.`,
      );
    }
    if (!pub.spec(slug)) return unknownSlug(c, pub, slug);
    const q = readQuery(c, ['date']);
    if (!q.ok) return sendError(c, 400, q.error, q.message);
    const fmt = format as CiteFormat;
    const file = `${pub.site.name.toLowerCase().replace(/[^a-z0-9]+/g, '') || 'citation'}-${slug}${q.values.date ? `-${q.values.date}` : ''}.${CITE_EXTENSIONS[fmt]}`;
    const headers = { 'content-disposition': `attachment; filename="${file}"` };
    if (q.values.date !== undefined) {
      // The citation of a frozen day: the very records frozen with that day's Stat.
      const r = await pub.frozenStat(slug, q.values.date);
      if (r.kind === 'bad_date') return sendError(c, 400, 'bad_date', r.message);
      if (r.kind !== 'ok') {
        return sendError(
          c,
          404,
          'not_frozen',
          r.kind === 'today' ? `${q.values.date} is today; it is frozen after it closes.` : r.message,
        );
      }
      const date = q.values.date;
      const bytes = citations.get(`${slug}/${fmt}/${date}`, () => {
        const frozen = JSON.parse(new TextDecoder().decode(r.served.body)) as Stat;
        // The bundle predates CSL: a dated CSL-JSON is built from the frozen Stat, retrieved that day.
        return fmt === 'csl'
          ? citeAs('csl', {
              siteName: pub.site.name,
              slug,
              title: frozen.title,
              url: frozen.pageUrl,
              retrieved: dayEnd(parseDayStart(date)),
              simulated: frozen.simulated === true,
            })
          : citeFromBundle(fmt, frozen.cite);
      });
      return sendBytes(
        c,
        { ...bytes, contentType: CITE_CONTENT_TYPES[fmt], cacheControl: CACHE.immutable, headers },
        FOREVER,
      );
    }
    const served = await pub.stat(slug, null);
    const stat = served.value;
    const now = deps.clock();
    // "Retrieved <day>" is the only part of a live citation that moves: one text per day and Stat.
    const bytes = citations.get(`${slug}/${fmt}/${served.etag}/${Math.floor(now / DAY_MS)}`, () =>
      citeAs(fmt, {
        siteName: pub.site.name,
        slug,
        title: stat.title,
        url: stat.pageUrl,
        retrieved: now,
        simulated: stat.simulated === true,
      }),
    );
    return sendBytes(
      c,
      { ...bytes, contentType: CITE_CONTENT_TYPES[fmt], cacheControl: citeCacheControl(now), headers },
      // Replayed only while its max-age is the constant hour (the last hour of a day counts down).
      { valid: () => pub.isCurrent(served) && citeMaxAgeIsConstant(deps.clock()), group: slug },
    );
  });

  app.get('/api/llm-context', async (c) => {
    const s = await pub.llmContext();
    return sendBytes(
      c,
      { body: s.body, etag: s.etag, contentType: 'text/markdown; charset=utf-8', cacheControl: CACHE.live },
      viewSource(pub, s, ANY_BENCHMARK),
    );
  });

  // Per request (its `now` and ages move), but from memory: synchronous once the store was read.
  // Its bytes stand for one millisecond of the clock: the hot path may replay them within it (under
  // load many requests share a millisecond), never after it or after a newest sample moved.
  const sendFreshness = (c: Context, f: Freshness) => {
    const version = pub.freshnessVersion;
    const body = JSON.stringify(f);
    return sendBytes(
      c,
      { body, etag: etagOf(body), contentType: JSON_TYPE, cacheControl: CACHE.probe },
      { valid: () => deps.clock() === f.now && pub.freshnessVersion === version, group: ANY_BENCHMARK },
    );
  };
  app.get('/api/freshness', (c): Response | Promise<Response> => {
    const known = pub.peekFreshness();
    if (known) return sendFreshness(c, known);
    return pub.freshness().then((f) => sendFreshness(c, f));
  });

  app.get('/api/search/featured', async (c) => {
    const s = await pub.featured();
    return sendServed(c, s, viewSource(pub, s, ANY_BENCHMARK));
  });

  registerSeriesRoutes(app, pub);
  registerDatasetRoutes(app, pub, deps.clock);

  for (const register of deps.extraRoutes ?? []) register(app);

  for (const path of GET_PATHS) {
    app.options(
      path,
      () =>
        new Response(null, {
          status: 204,
          headers: {
            'access-control-allow-origin': '*',
            'access-control-allow-methods': 'GET, HEAD, OPTIONS',
            'access-control-allow-headers': 'If-None-Match',
            'access-control-expose-headers': EXPOSE_HEADERS,
            'access-control-max-age': '86400',
          },
        }),
    );
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
    if (path !== '/api' && !path.startsWith('/api/') && wantsHtml(c)) {
      return htmlErrorPage(
        404,
        'Page not found',
        `There is no page at ${path.slice(0, 200)}.`,
        pub.site,
        c.req.url,
      );
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
