import type { Context, Hono } from 'hono';
import { Counter, type Registry } from 'prom-client';
import type { Filters, Stat } from '../core/api-schemas.ts';
import { etagOf } from '../core/hash.ts';
import { DEFAULT_CHART_RANGE } from '../core/history-svg.ts';
import { SLUG_RE } from '../core/spec-schema.ts';
import { urls } from '../core/urls.ts';
import type { RouteExtras } from '../http/app.ts';
import { ANY_BENCHMARK, FOREVER, type HotSource } from '../http/hot-path.ts';
import { CACHE, sendBytes, sendError } from '../http/respond.ts';
import { describeViolation, dimensionsFrom, type InvalidHook, openRoute } from '../http/route-kit.ts';
import {
  assetRoute,
  benchmarkPageRoute,
  comparePageRoute,
  faviconRoute,
  homePageRoute,
  methodologyPageRoute,
  providerPageRoute,
} from '../http/site-declarations.ts';
import { TextCache } from '../http/text-cache.ts';
import { resolveChartRequest } from '../publication/chart-request.ts';
import { FREEZE_GRACE_MS } from '../publication/day-freezer.ts';
import type { Publication } from '../publication/publication.ts';
import type { Served } from '../publication/types.ts';
import { EngineUnavailableError, UnavailableError } from '../publication/types.ts';
import { HistoryCharts } from '../render/history-charts.ts';
import { benchmarkPage, type MatrixColumn } from './benchmark-page.ts';
import { htmlErrorPage } from './error-page.ts';
import { ASSETS, FAVICON_SVG } from './html.ts';
import { comparePage, homePage } from './index-pages.ts';
import { methodologyPage } from './methodology-page.ts';
import { providerPage } from './provider-page.ts';

const HTML = 'text/html; charset=utf-8';
const encoder = new TextEncoder();

type Page = { body: Uint8Array<ArrayBuffer>; etag: string };

const DATED_PAGE_WITH_FILTERS =
  'A dated page shows the unfiltered board frozen with the day; drop the filters (chain, region, kind, venue).';

/** The icon and assets are files, not pages: a bad query is the API's JSON 400. */
const FILE_OPTS = { hidden: true } as const;

const today = (now: number) => new Date(now).toISOString().slice(0, 10);

/**
 * The public HTML pages every published URL points at: /, /benchmarks/{slug}, /compare/{a}-vs-{b}.
 * Returns the site's HTML error page, which the HTTP layer shows browsers that hit no route.
 */
export function registerPageRoutes(
  app: Hono,
  pub: Publication,
  clock: () => number = Date.now,
  metrics?: Registry,
): RouteExtras {
  // Rendered pages keyed by the ETags of the data they show: a page renders once per data version.
  const cache = new TextCache(500);
  if (metrics && !metrics.getSingleMetric('html_page_renders_total')) {
    new Counter({
      name: 'html_page_renders_total',
      help: 'HTML pages rendered (each page renders once per version of the data it shows)',
      registers: [metrics],
      collect() {
        this.reset();
        this.inc(cache.builds);
      },
    });
  }
  const charts = new HistoryCharts(pub);
  const siteName = pub.site.name;
  /** The spec's derivation mode: what a benchmark's values are (a listing read or a window p50). */
  const modeOf = (slug: string) => pub.spec(slug)?.derivation.mode;
  const htmlError = (c: Context, status: 400 | 404 | 503, title: string, message: string) =>
    htmlErrorPage(status, title, message, pub.site, c.req.url);
  // A repeated, over-long or undeclared parameter is read as the API reads it, and told in the site's layout.
  const badQuery: InvalidHook = (c, v) => htmlError(c, 400, 'Bad query', describeViolation(v).message);
  /**
   * Pages are not in the API document (test/unit/route-table.test.ts names them). They are opened
   * from shared links: campaign tags and referrers are theirs to ignore.
   */
  const hidden = { hidden: true, sharedLinks: true, onInvalid: badQuery } as const;
  const guard = async (c: Context, fn: () => Promise<Response>): Promise<Response> => {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof UnavailableError) {
        return htmlError(
          c,
          503,
          'Temporarily unavailable',
          e instanceof EngineUnavailableError
            ? 'The sample engine does not answer; past days are served, live values once it is back. Retry shortly.'
            : 'Benchmarks are temporarily unavailable; retry shortly.',
        );
      }
      throw e;
    }
  };
  const html = (c: Context, page: Page, cacheControl: string, hot: HotSource) =>
    sendBytes(c, { ...page, contentType: HTML, cacheControl }, hot);
  /** A page is replayable while every view it shows is current and it is still the cached render. */
  const pageSource = (key: string, page: Page, served: readonly object[], group: string): HotSource => ({
    valid: () => cache.peek(key) === page && served.every((s) => pub.isCurrent(s)),
    group,
  });

  /**
   * Every view a page shows, from the publication's cached views (the same path as /api/stat): on a
   * hit all of them are peeked synchronously and the rendered page is found by their ETags.
   */
  const views = (keys: ReadonlyArray<readonly [string, Filters | null]>): Served<Stat>[] | undefined => {
    const out: Served<Stat>[] = [];
    for (const [slug, f] of keys) {
      const hit = pub.peekStat(slug, f);
      if (!hit) return undefined;
      out.push(hit);
    }
    return out;
  };
  const load = (keys: ReadonlyArray<readonly [string, Filters | null]>) =>
    views(keys) ?? Promise.all(keys.map(([slug, f]) => pub.stat(slug, f)));
  const keyOf = (prefix: string, served: readonly Served<Stat>[]) =>
    `${prefix}:${served.map((s) => s.etag).join(',')}`;

  const homeKeys = () => pub.specs.map((s) => [s.slug, null] as const);
  const sendHome = (c: Context, served: readonly Served<Stat>[]) => {
    const key = keyOf('home', served);
    const page = cache.get(key, () =>
      homePage({
        stats: served.map((s) => s.value),
        siteName,
        baseUrl: pub.site.baseUrl,
        simulated: pub.isSimulated,
      }),
    );
    return html(c, page, CACHE.live, pageSource(key, page, served, ANY_BENCHMARK));
  };
  openRoute(
    app,
    homePageRoute,
    (c) => {
      const hit = views(homeKeys());
      if (hit) return sendHome(c, hit);
      return guard(c, async () => sendHome(c, await Promise.all(homeKeys().map(([s]) => pub.stat(s, null)))));
    },
    hidden,
  );

  /**
   * The label dimensions matrices are drawn for (chain × provider, region × provider, method ×
   * provider), each with its values: declared ones, or for a data-valued dimension (region) the
   * values this benchmark's own samples carry.
   */
  const matrixKeys = (
    slug: string,
    page: Filters | null,
  ): Array<readonly [string, Filters | null, string, string, string]> => {
    const spec = pub.spec(slug);
    if (!spec) return [];
    const out: Array<readonly [string, Filters | null, string, string, string]> = [];
    for (const [dim, d] of Object.entries(spec.dimensions)) {
      // The page's own filters narrow every matrix too; the filtered dimension has one column left.
      if (d?.appliesTo !== 'label' || page?.[dim as keyof Filters] !== undefined) continue;
      const values = d.fromData
        ? (pub.dimensionValues?.(slug, dim) ?? []).map((v) => ({ value: v, label: v }))
        : d.values;
      // One value is the whole view: a matrix of one column says nothing the rankings do not.
      if (values.length < 2) continue;
      for (const v of values)
        out.push([slug, { ...page, [dim]: v.value } as Filters, dim, v.value, v.label] as const);
    }
    return out;
  };

  openRoute(
    app,
    benchmarkPageRoute,
    (c, { params, query: q }) =>
      guard(c, async () => {
        const slug = params.slug;
        const spec = SLUG_RE.test(slug) ? pub.spec(slug) : undefined;
        if (!spec) {
          return htmlError(c, 404, 'Unknown benchmark', `There is no benchmark "${slug.slice(0, 100)}".`);
        }
        // A family fixes its derivation mode, so a frozen day's Stat is read with today's spec's.
        const mode = spec.derivation.mode;
        if (q.date !== undefined) {
          // A page pinned to a frozen day (every link inside a day snapshot points here). A day is
          // frozen unfiltered, so a filter with it is refused as /api/stat refuses it, never dropped.
          if ([q.chain, q.region, q.kind, q.venue].some((x) => x !== undefined)) {
            return htmlError(c, 400, 'Bad query', DATED_PAGE_WITH_FILTERS);
          }
          const r = await pub.frozenStat(slug, q.date);
          if (r.kind === 'bad_date') return htmlError(c, 400, 'Bad date', r.message);
          if (r.kind === 'not_frozen' && r.retryAfter !== undefined) {
            // Closed past its grace, its freeze being retried: come back, as the API's 503 says.
            const res = await htmlError(
              c,
              503,
              'Not frozen yet',
              r.message ?? `${q.date} is not frozen yet.`,
            );
            res.headers.set('retry-after', String(r.retryAfter));
            return res;
          }
          if (r.kind !== 'ok') {
            return htmlError(
              c,
              404,
              'Not frozen',
              r.kind === 'today' ? `${q.date} is today; it is frozen after it closes.` : r.message,
            );
          }
          const key = `bench:${r.served.etag}`;
          const page = cache.get(key, () =>
            benchmarkPage({
              stat: JSON.parse(new TextDecoder().decode(r.served.body)) as Stat,
              siteName,
              mode,
            }),
          );
          return html(c, page, CACHE.immutable, pageSource(key, page, [], slug));
        }
        const f = pub.resolveFilters(slug, {
          chain: q.chain,
          region: q.region,
          kind: q.kind,
          venue: q.venue,
        });
        if (!f.ok) return htmlError(c, f.status, 'Unknown filter', f.message);
        const mk = matrixKeys(slug, f.filters);
        const keys = [[slug, f.filters] as const, ...mk.map(([s, fl]) => [s, fl] as const)];
        const served = await load(keys);
        const day = today(clock());
        // A draft has nothing to draw; a live view's chart is the /api/chart bytes of the same query.
        const range = q.range ?? DEFAULT_CHART_RANGE;
        const draft = served[0]?.value.status === 'draft';
        const chart = draft
          ? undefined
          : (charts.peek(slug, f.filters, range) ?? (await charts.get(slug, f.filters, range)));
        // The day a live page offers to cite: the last frozen one, never today.
        const lastFrozen = (await pub.dataset.frozenDays())[0];
        const key = `${keyOf('bench', served)}:${day}:${range}:${chart?.image.etag ?? ''}:${lastFrozen ?? ''}`;
        const page = cache.get(key, () => {
          const [main, ...cols] = served;
          const matrix: MatrixColumn[] = cols.map((s, i) => {
            const k = mk[i];
            return { dimension: k?.[2] ?? '', value: k?.[3] ?? '', label: k?.[4] ?? '', stat: s.value };
          });
          return benchmarkPage({
            stat: (main as Served<Stat>).value,
            siteName,
            mode,
            matrix,
            ...(lastFrozen !== undefined && { lastFrozen }),
            ...(chart && {
              history: { svg: chart.svg, range, filters: f.filters },
            }),
          });
        });
        const shown = chart ? [...served, chart.stat, chart.series] : served;
        return html(c, page, CACHE.live, pageSource(key, page, shown, slug));
      }),
    {
      ...hidden,
      dimensionsOf: dimensionsFrom((slug) => pub.spec(slug)),
      onInvalid: (c, v, p) => {
        // A range outside the chart's: the chart's own words (an unknown benchmark first).
        if (v.kind === 'value' && v.name === 'range' && p.slug !== undefined) {
          const r = resolveChartRequest(pub, p.slug, v.raw);
          if (!r.ok && r.status === 404) {
            return htmlError(c, 404, 'Unknown benchmark', `There is no benchmark "${p.slug.slice(0, 100)}".`);
          }
          if (!r.ok) return htmlError(c, 400, 'Bad range', r.message);
        }
        return badQuery(c, v, p);
      },
    },
  );

  // Built from constants and today's provenance (the live index's): rendered once per index version.
  openRoute(
    app,
    methodologyPageRoute,
    (c) =>
      guard(c, async () => {
        const served = pub.peekCitable() ?? (await pub.citable());
        const key = `methodology:${pub.isSimulated}:${served.etag}`;
        const page = cache.get(key, () =>
          methodologyPage(
            pub.specs,
            {
              name: siteName,
              url: pub.site.baseUrl,
              simulated: pub.isSimulated,
              ...(pub.site.sourceUrl ? { sourceUrl: pub.site.sourceUrl } : {}),
            },
            FREEZE_GRACE_MS / 60_000,
            served.value.site.provenance,
          ),
        );
        return html(c, page, CACHE.live, pageSource(key, page, [served], ANY_BENCHMARK));
      }),
    hidden,
  );

  openRoute(
    app,
    comparePageRoute,
    (c, { params }) =>
      guard(c, async () => {
        const pair = params.pair;
        const at = pair.indexOf('-vs-');
        if (at <= 0) {
          return htmlError(c, 400, 'Bad comparison', 'Compare pages look like /compare/mobula-vs-codex.');
        }
        const r = await pub.compare(pair.slice(0, at), pair.slice(at + 4));
        if (!r.ok) return htmlError(c, r.status, 'Cannot compare', r.message);
        const key = `compare:${r.served.etag}`;
        const page = cache.get(key, () => comparePage(r.served.value, { siteName, modeOf }));
        return html(c, page, CACHE.live, pageSource(key, page, [r.served], ANY_BENCHMARK));
      }),
    hidden,
  );

  openRoute(
    app,
    providerPageRoute,
    (c, { params, query }) =>
      guard(c, async () => {
        const slug = params.slug;
        if (!SLUG_RE.test(slug)) {
          return htmlError(c, 404, 'Unknown provider', `There is no provider "${slug.slice(0, 100)}".`);
        }
        const day = query.date ?? null;
        const r = await pub.providerProfile(slug, day);
        if (r.kind === 'unknown_provider') return htmlError(c, 404, 'Unknown provider', r.message);
        if (r.kind === 'bad_date') return htmlError(c, 400, 'Bad date', r.message);
        if (r.kind === 'today') return htmlError(c, 404, 'Not frozen', r.message);
        if (r.kind === 'not_frozen') {
          if (r.retryAfter === undefined) return htmlError(c, 404, 'Not frozen', r.message);
          // Closed past its grace, its freeze being retried: come back, as the API's 503 says.
          const res = htmlError(c, 503, 'Not frozen yet', r.message);
          res.headers.set('retry-after', String(r.retryAfter));
          return res;
        }
        const key = `provider:${r.served.etag}`;
        const page = cache.get(key, () =>
          providerPage(r.served.value, {
            siteName,
            url: urls.providerPage(pub.site, slug, r.day),
            day: r.day,
          }),
        );
        if (r.day !== null) return html(c, page, CACHE.immutable, pageSource(key, page, [], slug));
        return html(c, page, CACHE.live, pageSource(key, page, [r.served], ANY_BENCHMARK));
      }),
    hidden,
  );

  const favicon = encoder.encode(FAVICON_SVG);
  const faviconTag = etagOf(favicon);
  // Pages carry the icon inline; this answers clients that ask for /favicon.ico anyway.
  openRoute(
    app,
    faviconRoute,
    (c) =>
      sendBytes(
        c,
        { body: favicon, etag: faviconTag, contentType: 'image/svg+xml', cacheControl: CACHE.doc },
        FOREVER,
      ),
    FILE_OPTS,
  );
  // The pages' stylesheet and script: their names carry a hash of their bytes, so they never change.
  const assets = new Map(
    [...ASSETS].map(([href, a]) => {
      const body = encoder.encode(a.body);
      return [href.slice('/assets/'.length), { body, etag: etagOf(body), contentType: a.contentType }];
    }),
  );
  openRoute(
    app,
    assetRoute,
    (c) => {
      const asset = assets.get(c.req.param('file') ?? '');
      if (!asset) return sendError(c, 404, 'not_found', 'No such asset.');
      return sendBytes(c, { ...asset, cacheControl: CACHE.immutable }, FOREVER);
    },
    FILE_OPTS,
  );
  return {
    htmlErrorPage: (status, title, message, url) => htmlErrorPage(status, title, message, pub.site, url),
  };
}
