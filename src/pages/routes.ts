import type { Context, Hono } from 'hono';
import type { Stat } from '../core/api-schemas.ts';
import { etagOf } from '../core/hash.ts';
import { SLUG_RE } from '../core/spec-schema.ts';
import { CACHE, sendBytes } from '../http/respond.ts';
import { FREEZE_GRACE_MS, type Publication } from '../publication/publication.ts';
import { UnavailableError } from '../publication/types.ts';
import { benchmarkPage } from './benchmark-page.ts';
import { esc, layout } from './html.ts';
import { comparePage, homePage } from './index-pages.ts';
import { methodologyPage } from './methodology-page.ts';

const HTML = 'text/html; charset=utf-8';
const encoder = new TextEncoder();

/** Rendered pages keyed by the ETag of the data they show: a page renders once per data version. */
class PageCache {
  private readonly map = new Map<string, { body: Uint8Array<ArrayBuffer>; etag: string }>();
  get(key: string, render: () => string) {
    let hit = this.map.get(key);
    if (!hit) {
      const body = encoder.encode(render());
      hit = { body, etag: etagOf(body) };
      if (this.map.size >= 500) this.map.clear();
      this.map.set(key, hit);
    }
    return hit;
  }
}

function htmlError(
  c: Context,
  status: 400 | 404 | 503,
  title: string,
  message: string,
  siteName: string,
): Response {
  const body = layout(
    { title, description: message, url: c.req.url, siteName },
    `<h1>${esc(title)}</h1><p>${esc(message)}</p><p><a href="/">All benchmarks</a></p>`,
  );
  return new Response(body, {
    status,
    headers: {
      'content-type': HTML,
      'cache-control': CACHE.none,
      ...(status === 503 ? { 'retry-after': '30' } : {}),
    },
  });
}

/** The public HTML pages every published URL points at: /, /benchmarks/{slug}, /compare/{a}-vs-{b}. */
export function registerPageRoutes(app: Hono, pub: Publication): void {
  const cache = new PageCache();
  const site = pub.site.name;
  const guard = async (c: Context, fn: () => Promise<Response>): Promise<Response> => {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof UnavailableError) {
        return htmlError(
          c,
          503,
          'Temporarily unavailable',
          'Benchmarks are temporarily unavailable; retry shortly.',
          site,
        );
      }
      throw e;
    }
  };

  app.get('/', (c) =>
    guard(c, async () => {
      const idx = await pub.citable();
      const page = cache.get(`home:${idx.etag}`, () => homePage(idx.value, site));
      return sendBytes(c, { ...page, contentType: HTML, cacheControl: CACHE.live });
    }),
  );

  app.get('/benchmarks/:slug', (c) =>
    guard(c, async () => {
      const slug = c.req.param('slug');
      if (!SLUG_RE.test(slug) || !pub.spec(slug)) {
        return htmlError(c, 404, 'Unknown benchmark', `There is no benchmark "${slug.slice(0, 100)}".`, site);
      }
      const q = c.req.query();
      if (q.date !== undefined) {
        // A page pinned to a frozen day (every link inside a day snapshot points here).
        const r = await pub.frozenStat(slug, q.date);
        if (r.kind === 'bad_date') return htmlError(c, 400, 'Bad date', r.message, site);
        if (r.kind !== 'ok') {
          return htmlError(
            c,
            404,
            'Not frozen',
            r.kind === 'today' ? `${q.date} is today; it is frozen after it closes.` : r.message,
            site,
          );
        }
        const stat = JSON.parse(new TextDecoder().decode(r.served.body)) as Stat;
        const page = cache.get(`bench:${r.served.etag}`, () => benchmarkPage(stat, site));
        return sendBytes(c, { ...page, contentType: HTML, cacheControl: CACHE.immutable });
      }
      const f = pub.resolveFilters(slug, { chain: q.chain, region: q.region, kind: q.kind, venue: q.venue });
      if (!f.ok) return htmlError(c, f.status, 'Unknown filter', f.message, site);
      const stat = await pub.stat(slug, f.filters);
      const page = cache.get(`bench:${stat.etag}`, () => benchmarkPage(stat.value, site));
      return sendBytes(c, { ...page, contentType: HTML, cacheControl: CACHE.live });
    }),
  );

  const methodology = cache.get('methodology', () =>
    methodologyPage(pub.specs, { name: site, url: pub.site.baseUrl }, FREEZE_GRACE_MS / 60_000),
  );
  app.get('/methodology', (c) =>
    sendBytes(c, { ...methodology, contentType: HTML, cacheControl: CACHE.doc }),
  );

  app.get('/compare/:pair', (c) =>
    guard(c, async () => {
      const pair = c.req.param('pair');
      const at = pair.indexOf('-vs-');
      if (at <= 0) {
        return htmlError(c, 400, 'Bad comparison', 'Compare pages look like /compare/mobula-vs-codex.', site);
      }
      const r = await pub.compare(pair.slice(0, at), pair.slice(at + 4));
      if (!r.ok) return htmlError(c, r.status, 'Cannot compare', r.message, site);
      const page = cache.get(`compare:${r.served.etag}`, () => comparePage(r.served.value, site));
      return sendBytes(c, { ...page, contentType: HTML, cacheControl: CACHE.live });
    }),
  );
}
