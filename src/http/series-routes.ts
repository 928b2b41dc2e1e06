import type { Context, Hono } from 'hono';
import { SLUG_RE } from '../core/spec-schema.ts';
import type { Publication } from '../publication/publication.ts';
import { resolveSeriesRequest, type SeriesResolution } from '../publication/series-request.ts';
import { viewSource } from './hot-source.ts';
import { readQuery } from './query.ts';
import { CACHE, sendBytes, sendError } from './respond.ts';

const JSON_TYPE = 'application/json; charset=utf-8';
const QUERY = ['chain', 'region', 'kind', 'venue', 'range'] as const;
/** Every provider of a benchmark fits (eight slugs are ~80 characters, over readQuery's 64). */
const MAX_PROVIDERS_PARAM = 512;

/** `providers` read on its own: longer than other values, and still never given twice. */
function readProviders(c: Context): { ok: true; value: string | undefined } | { ok: false; message: string } {
  const url = c.req.url;
  const qs = url.indexOf('?');
  if (qs === -1) return { ok: true, value: undefined };
  const all = new URLSearchParams(url.slice(qs + 1)).getAll('providers');
  if (all.length > 1)
    return { ok: false, message: `"providers" is given ${all.length} times; give it once.` };
  const v = all[0];
  if (v !== undefined && v.length > MAX_PROVIDERS_PARAM) {
    return { ok: false, message: `"providers" is longer than ${MAX_PROVIDERS_PARAM} characters.` };
  }
  return { ok: true, value: v };
}

/** GET /api/series/{slug}?range=&chain=&region=&kind=&venue=&providers=a,b. */
export function registerSeriesRoutes(app: Hono, pub: Publication): void {
  // Specs are fixed for the process: a (slug, query string) always resolves the same way.
  const resolved = new Map<string, SeriesResolution>();
  app.get('/api/series/:slug', (c): Response | Promise<Response> => {
    const slug = c.req.param('slug');
    if (!SLUG_RE.test(slug)) {
      return sendError(c, 400, 'bad_slug', `"${slug.slice(0, 100)}" is not a valid slug.`);
    }
    const url = c.req.url;
    const qs = url.indexOf('?');
    const key = `${slug}${qs === -1 ? '' : url.slice(qs)}`;
    let r = resolved.get(key);
    if (!r) {
      const q = readQuery(c, QUERY);
      if (!q.ok) return sendError(c, 400, q.error, q.message);
      const p = readProviders(c);
      if (!p.ok) return sendError(c, 400, 'bad_query', p.message);
      r = resolveSeriesRequest(pub, slug, { ...q.values, providers: p.value });
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
  });
}
