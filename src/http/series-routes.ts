import type { Hono } from 'hono';
import type { Publication } from '../publication/publication.ts';
import { resolveSeriesRequest, type SeriesResolution } from '../publication/series-request.ts';
import { JSON_TYPE } from './answers.ts';
import { seriesRoute } from './data-declarations.ts';
import { viewSource } from './hot-source.ts';
import { CACHE, sendBytes, sendError } from './respond.ts';
import { defaultInvalid, dimensionsFrom, openRoute } from './route-kit.ts';

/** GET /api/series/{slug}?range=&chain=&region=&kind=&venue=&providers=a,b. */
export function registerSeriesRoutes(app: Hono, pub: Publication): void {
  // Specs are fixed for the process: a (slug, query string) always resolves the same way.
  const resolved = new Map<string, SeriesResolution>();
  openRoute(
    app,
    seriesRoute,
    (c, { params, raw }): Response | Promise<Response> => {
      const slug = params.slug;
      const url = c.req.url;
      const qs = url.indexOf('?');
      const key = `${slug}${qs === -1 ? '' : url.slice(qs)}`;
      let r = resolved.get(key);
      if (!r) {
        r = resolveSeriesRequest(pub, slug, raw);
        if (resolved.size >= 2000) resolved.clear();
        resolved.set(key, r);
      }
      if (!r.ok) return sendError(c, r.status, r.error, r.message);
      const send = (s: { body: Uint8Array<ArrayBuffer>; etag: string }) =>
        sendBytes(
          c,
          { body: s.body, etag: s.etag, contentType: JSON_TYPE, cacheControl: CACHE.live },
          viewSource(pub, s, slug),
        );
      const hit = pub.peekSeries(slug, r.filters, r.range, r.providers);
      if (hit) return send(hit);
      return pub.series(slug, r.filters, r.range, r.providers).then(send);
    },
    {
      dimensionsOf: dimensionsFrom((slug) => pub.spec(slug)),
      onInvalid: (c, v, p) => {
        if (v.kind === 'path') {
          return sendError(c, 400, 'bad_slug', `"${v.value.slice(0, 100)}" is not a valid slug.`);
        }
        // providers is read on its own rules: a repeat is a bad query like an over-long list.
        if (v.kind === 'repeated' && v.name === 'providers') {
          return sendError(c, 400, 'bad_query', `"providers" is given ${v.count} times; give it once.`);
        }
        // A range outside the list: the shared series rules say why (unknown slug first).
        if (v.kind === 'value' && p.slug !== undefined) {
          const r = resolveSeriesRequest(pub, p.slug, v.raw);
          if (!r.ok) return sendError(c, r.status, r.error, r.message);
        }
        return defaultInvalid(c, v, p);
      },
    },
  );
}
