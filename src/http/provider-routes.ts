import type { Hono } from 'hono';
import { PROVIDERS } from '../core/providers.ts';
import { unknownProviderMessage } from '../publication/provider-profiles.ts';
import type { Publication } from '../publication/publication.ts';
import { badDate, JSON_TYPE, sendServed } from './answers.ts';
import { ANY_BENCHMARK, FOREVER } from './hot-path.ts';
import { viewSource } from './hot-source.ts';
import { sendNotFrozen } from './not-frozen.ts';
import { providerRoute, providersRoute } from './provider-declarations.ts';
import { CACHE, sendBytes, sendError } from './respond.ts';
import { defaultInvalid, openRoute } from './route-kit.ts';

/** GET /api/providers and /api/providers/{slug}[?date=]. */
export function registerProviderRoutes(app: Hono, pub: Publication): void {
  // Catalogue and specs are read at start-up: the listing is one set of bytes for the process.
  openRoute(app, providersRoute, (c) => sendServed(c, pub.providers(), FOREVER, CACHE.doc));

  openRoute(
    app,
    providerRoute,
    (c, { params, query }): Response | Promise<Response> => {
      const slug = params.slug;
      if (query.date === undefined) {
        const hit = pub.peekProviderProfile(slug);
        if (hit) return sendServed(c, hit, viewSource(pub, hit, ANY_BENCHMARK));
      }
      return pub.providerProfile(slug, query.date ?? null).then((r) => {
        if (r.kind === 'unknown_provider') return sendError(c, 404, 'unknown_provider', r.message);
        if (r.kind === 'bad_date') return sendError(c, 400, 'bad_date', r.message);
        if (r.kind === 'today') return sendError(c, 404, 'not_frozen', r.message);
        if (r.kind === 'not_frozen') return sendNotFrozen(c, r);
        if (r.day === null) return sendServed(c, r.served, viewSource(pub, r.served, ANY_BENCHMARK));
        // Built from frozen bytes only: immutable, as the dated Stats it is read from.
        return sendBytes(
          c,
          {
            body: r.served.body,
            etag: r.served.etag,
            contentType: JSON_TYPE,
            cacheControl: CACHE.immutable,
            headers: { 'x-snapshot-date': r.day },
          },
          FOREVER,
        );
      });
    },
    {
      // As a dated Stat: an unknown provider first, then the malformed date.
      onInvalid: (c, v, p) => {
        if (v.kind !== 'value' || p.slug === undefined) return defaultInvalid(c, v, p);
        if (!PROVIDERS.has(p.slug))
          return sendError(c, 404, 'unknown_provider', unknownProviderMessage(p.slug));
        return badDate(c, v.raw.date ?? '');
      },
    },
  );
}
