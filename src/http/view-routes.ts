import type { Context, Hono } from 'hono';
import type { Filters, Freshness } from '../core/api-schemas.ts';
import { etagOf } from '../core/hash.ts';
import type { Publication } from '../publication/publication.ts';
import type { FilterResolution } from '../publication/types.ts';
import { badDate, JSON_TYPE, sendServed, unknownSlug } from './answers.ts';
import {
  citableDayRoute,
  citableRoute,
  featuredRoute,
  freshnessRoute,
  llmContextRoute,
  statRoute,
} from './api-declarations.ts';
import { ANY_BENCHMARK, FOREVER } from './hot-path.ts';
import { viewSource } from './hot-source.ts';
import { sendFrozenDay, sendNotFrozen } from './not-frozen.ts';
import { CACHE, sendBytes, sendError } from './respond.ts';
import { defaultInvalid, dimensionsFrom, openRoute, type RawQuery } from './route-kit.ts';

const DATED_WITH_FILTERS = 'A dated Stat is the unfiltered one frozen with the day; drop the filters.';

const hasFilter = (q: RawQuery) =>
  q.chain !== undefined || q.region !== undefined || q.kind !== undefined || q.venue !== undefined;

/** The publication's views: the index (live and per day), one Stat, freshness, featured, llm-context. */
export function registerViewRoutes(app: Hono, pub: Publication, clock: () => number): void {
  // Cached views are answered synchronously: no promise, no JSON work, just the stored bytes.
  openRoute(app, citableRoute, (c): Response | Promise<Response> => {
    const hit = pub.peekCitable();
    if (hit) return sendServed(c, hit, viewSource(pub, hit, ANY_BENCHMARK));
    return pub.citable().then((s) => sendServed(c, s, viewSource(pub, s, ANY_BENCHMARK)));
  });

  openRoute(
    app,
    citableDayRoute,
    async (c, { params }) => {
      const r = await pub.snapshot(params.date);
      if (r.kind === 'bad_date') return sendError(c, 400, 'bad_date', r.message);
      if (r.kind === 'not_frozen') return sendNotFrozen(c, r);
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
    },
    { onInvalid: (c, v) => (v.kind === 'path' ? badDate(c, v.value) : defaultInvalid(c, v, {})) },
  );

  /** GET /api/stat/{slug}?date=YYYY-MM-DD: the unfiltered Stat frozen with that day's snapshot. */
  async function frozenStat(c: Context, slug: string, date: string, q: RawQuery): Promise<Response> {
    if (!pub.spec(slug)) return unknownSlug(c, pub, slug);
    if (hasFilter(q)) return sendError(c, 400, 'bad_request', DATED_WITH_FILTERS);
    const r = await pub.frozenStat(slug, date);
    if (r.kind === 'bad_date') return sendError(c, 400, 'bad_date', r.message);
    return sendFrozenDay(c, date, r, `Its live values are at /api/stat/${slug}.`);
  }

  // Specs are fixed for the process, so a (slug, query string) always resolves the same way.
  const resolved = new Map<string, FilterResolution>();
  openRoute(
    app,
    statRoute,
    (c, { params, query, raw }): Response | Promise<Response> => {
      const slug = params.slug;
      if (query.date !== undefined) return frozenStat(c, slug, query.date, raw);
      let filters: Filters | null = null;
      const url = c.req.url;
      const qs = url.indexOf('?');
      if (qs !== -1) {
        // The validator bounded the query (1 KiB) before it becomes a cache key.
        const key = `${slug}${url.slice(qs)}`;
        let f = resolved.get(key);
        if (!f) {
          f = pub.resolveFilters(slug, {
            chain: query.chain,
            region: query.region,
            kind: query.kind,
            venue: query.venue,
          });
          if (resolved.size >= 2000) resolved.clear();
          // Region values come from the data, so a region's answer can change when a harness writes.
          if (query.region === undefined) resolved.set(key, f);
        }
        if (!f.ok) return sendError(c, f.status, f.error, f.message);
        filters = f.filters;
      }
      const hit = pub.peekStat(slug, filters);
      if (hit) return sendServed(c, hit, viewSource(pub, hit, slug));
      return pub.stat(slug, filters).then((s) => sendServed(c, s, viewSource(pub, s, slug)));
    },
    {
      // A malformed date answers as a dated Stat did: unknown slug, then filters, then the date.
      dimensionsOf: dimensionsFrom((slug) => pub.spec(slug)),
      onInvalid: (c, v, p) => {
        if (v.kind !== 'value' || p.slug === undefined) return defaultInvalid(c, v, p);
        if (!pub.spec(p.slug)) return unknownSlug(c, pub, p.slug);
        if (hasFilter(v.raw)) return sendError(c, 400, 'bad_request', DATED_WITH_FILTERS);
        return badDate(c, v.raw.date ?? '');
      },
    },
  );

  openRoute(app, llmContextRoute, async (c) => {
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
      { valid: () => clock() === f.now && pub.freshnessVersion === version, group: ANY_BENCHMARK },
    );
  };
  openRoute(app, freshnessRoute, (c): Response | Promise<Response> => {
    const known = pub.peekFreshness();
    if (known) return sendFreshness(c, known);
    return pub.freshness().then((f) => sendFreshness(c, f));
  });

  openRoute(app, featuredRoute, async (c) => {
    const s = await pub.featured();
    return sendServed(c, s, viewSource(pub, s, ANY_BENCHMARK));
  });
}
