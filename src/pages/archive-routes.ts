import type { Context, Hono } from 'hono';
import { etagOf } from '../core/hash.ts';
import { PROVIDERS } from '../core/providers.ts';
import { SLUG_RE } from '../core/spec-schema.ts';
import { CACHE, sendBytes } from '../http/respond.ts';
import { describeViolation, openRoute, type Violation } from '../http/route-kit.ts';
import {
  benchmarkDaysPageRoute,
  benchmarksIndexPageRoute,
  dayArchivePageRoute,
  providersIndexPageRoute,
  robotsRoute,
  sitemapRoute,
} from '../http/site-declarations.ts';
import type { Publication } from '../publication/publication.ts';
import { UnavailableError } from '../publication/types.ts';
import { benchmarksIndexPage, providersIndexPage } from './catalogue-pages.ts';
import { htmlErrorPage } from './error-page.ts';
import { dayArchivePage } from './frozen-parts.ts';

const HTML = 'text/html; charset=utf-8';
const encoder = new TextEncoder();

/** /days and /benchmarks/{slug}/days: the frozen days, each linked, built from the freezer's list. */
export function registerArchiveRoutes(app: Hono, pub: Publication): void {
  const page = async (slug: string | undefined) => {
    const spec = slug === undefined ? undefined : pub.spec(slug);
    const html = dayArchivePage({
      siteName: pub.site.name,
      baseUrl: pub.site.baseUrl,
      simulated: pub.isSimulated,
      days: await pub.dataset.frozenDays(),
      benchmarks: pub.specs.map((s) => ({ slug: s.slug, title: s.title })),
      ...(spec && { benchmark: { slug: spec.slug, title: spec.title } }),
    });
    const body = encoder.encode(html);
    // The list grows once a day: a short cache, like every live page.
    return { body, etag: etagOf(body), contentType: HTML, cacheControl: CACHE.live };
  };
  const shared = {
    hidden: true,
    sharedLinks: true,
    onInvalid: (c: Context, v: Violation) =>
      htmlErrorPage(400, 'Bad query', describeViolation(v).message, pub.site, c.req.url),
  } as const;
  openRoute(app, dayArchivePageRoute, async (c) => sendBytes(c, await page(undefined)), shared);
  openRoute(
    app,
    benchmarkDaysPageRoute,
    async (c, { params }) => {
      if (!SLUG_RE.test(params.slug) || !pub.spec(params.slug)) {
        return htmlErrorPage(
          404,
          'Unknown benchmark',
          `There is no benchmark "${params.slug.slice(0, 100)}".`,
          pub.site,
          c.req.url,
        );
      }
      return sendBytes(c, await page(params.slug));
    },
    shared,
  );

  const text = (body: string, contentType: string) => {
    const bytes = encoder.encode(body);
    return { body: bytes, etag: etagOf(bytes), contentType, cacheControl: CACHE.doc };
  };
  const site = () => ({ siteName: pub.site.name, baseUrl: pub.site.baseUrl, simulated: pub.isSimulated });
  const html = (text: string) => {
    const body = encoder.encode(text);
    return { body, etag: etagOf(body), contentType: HTML, cacheControl: CACHE.live };
  };
  openRoute(
    app,
    benchmarksIndexPageRoute,
    async (c) => {
      try {
        const stats = await Promise.all(
          pub.specs.map(async (s) => (pub.peekStat(s.slug, null) ?? (await pub.stat(s.slug, null))).value),
        );
        return sendBytes(c, html(benchmarksIndexPage(stats, site())));
      } catch (e) {
        if (!(e instanceof UnavailableError)) throw e;
        const res = htmlErrorPage(
          503,
          'Temporarily unavailable',
          'Benchmarks are temporarily unavailable; retry shortly.',
          pub.site,
          c.req.url,
        );
        return res;
      }
    },
    shared,
  );
  openRoute(
    app,
    providersIndexPageRoute,
    (c) => sendBytes(c, html(providersIndexPage(pub.providers().value, site()))),
    shared,
  );
  openRoute(
    app,
    robotsRoute,
    (c) =>
      sendBytes(
        c,
        text(
          `User-agent: *\nAllow: /\nSitemap: ${pub.site.baseUrl}/sitemap.xml\n`,
          'text/plain; charset=utf-8',
        ),
      ),
    { hidden: true },
  );
  openRoute(app, sitemapRoute, (c) => sendBytes(c, text(sitemap(pub), 'application/xml; charset=utf-8')), {
    hidden: true,
  });
}

/** The site's pages (sitemaps.org 0.9): fixed for the process, since specs and providers are. */
function sitemap(pub: Publication): string {
  const base = pub.site.baseUrl;
  const measured = new Set(pub.specs.flatMap((s) => s.providers.map((p) => p.slug)));
  const paths = [
    '/',
    '/methodology',
    '/mcp',
    '/days',
    '/benchmarks',
    '/providers',
    ...pub.specs.flatMap((s) => [`/benchmarks/${s.slug}`, `/benchmarks/${s.slug}/days`]),
    ...[...PROVIDERS.keys()].filter((p) => measured.has(p)).map((p) => `/providers/${p}`),
  ];
  const xmlEsc = (s: string) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;');
  return `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
${paths.map((p) => `<url><loc>${xmlEsc(`${base}${p}`)}</loc></url>`).join('\n')}
</urlset>
`;
}
