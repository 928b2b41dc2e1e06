import type { Hono } from 'hono';
import type { Stat } from '../core/api-schemas.ts';
import { CITE_CONTENT_TYPES, CITE_EXTENSIONS, CITE_FORMATS, citeAs } from '../core/citations.ts';
import { DAY_MS, dayEnd } from '../core/dates.ts';
import { siteOfFrozenStat } from '../publication/day-records.ts';
import type { Publication } from '../publication/publication.ts';
import { badDate, parseDayStart, unknownSlug } from './answers.ts';
import { citeRoute } from './api-declarations.ts';
import { FOREVER } from './hot-path.ts';
import { sendNotFrozen } from './not-frozen.ts';
import { CACHE, citeCacheControl, citeMaxAgeIsConstant, sendBytes, sendError } from './respond.ts';
import { defaultInvalid, dimensionsFrom, openRoute } from './route-kit.ts';
import { TextCache } from './text-cache.ts';

const DATED_WITH_FILTERS =
  'A dated citation is of the unfiltered Stat frozen with the day; drop the filters.';

/** GET /api/cite/{slug}/{format}[?date=]: a citation file, live (retrieved today) or of a frozen day. */
export function registerCiteRoutes(app: Hono, pub: Publication, clock: () => number): void {
  const citations = new TextCache(2000);
  openRoute(
    app,
    citeRoute,
    async (c, { params, query }) => {
      const { slug, format: fmt } = params;
      if (!pub.spec(slug)) return unknownSlug(c, pub, slug);
      const date = query.date;
      const dims = { chain: query.chain, region: query.region, kind: query.kind, venue: query.venue };
      const filtered = Object.values(dims).some((v) => v !== undefined);
      if (date !== undefined && filtered) return sendError(c, 400, 'bad_request', DATED_WITH_FILTERS);
      const fileName = (siteName: string) =>
        `${siteName.toLowerCase().replace(/[^a-z0-9]+/g, '') || 'citation'}-${slug}${date ? `-${date}` : ''}.${CITE_EXTENSIONS[fmt]}`;
      if (date !== undefined) {
        // The citation of a frozen day: built only from what was frozen with it (its Stat and the
        // site it was published under), never from the running SITE_NAME or BASE_URL.
        const r = await pub.frozenStat(slug, date);
        if (r.kind === 'bad_date') return sendError(c, 400, 'bad_date', r.message);
        if (r.kind === 'today') {
          return sendError(c, 404, 'not_frozen', `${date} is today; it is frozen after it closes.`);
        }
        if (r.kind !== 'ok') return sendNotFrozen(c, r);
        const frozen = JSON.parse(new TextDecoder().decode(r.served.body)) as Stat;
        // A day frozen before its site was has it in its own Stat's citation.
        const site = (await pub.frozenSite(date)) ?? siteOfFrozenStat(frozen);
        // Built from the frozen Stat, with no retrieval date (its content cannot change): a day
        // frozen before that rule has "Retrieved" in its stored bundle, which is not served.
        const bytes = citations.get(`${slug}/${fmt}/${date}`, () =>
          citeAs(fmt, {
            siteName: site.name,
            slug,
            title: frozen.title,
            url: frozen.pageUrl,
            retrieved: dayEnd(parseDayStart(date)),
            simulated: frozen.simulated === true,
            frozen: true,
          }),
        );
        const headers = { 'content-disposition': `attachment; filename="${fileName(site.name)}"` };
        return sendBytes(
          c,
          { ...bytes, contentType: CITE_CONTENT_TYPES[fmt], cacheControl: CACHE.immutable, headers },
          FOREVER,
        );
      }
      const headers = { 'content-disposition': `attachment; filename="${fileName(pub.site.name)}"` };
      // The filtered Stat's citation: its pageUrl carries the filters, as its own `cite` does.
      const f = filtered ? pub.resolveFilters(slug, dims) : { ok: true as const, filters: null };
      if (!f.ok) return sendError(c, f.status, f.error, f.message);
      const served = await pub.stat(slug, f.filters);
      const stat = served.value;
      const now = clock();
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
        { valid: () => pub.isCurrent(served) && citeMaxAgeIsConstant(clock()), group: slug },
      );
    },
    {
      // Today's order: slug shape, format, known benchmark, then the query and its date.
      dimensionsOf: dimensionsFrom((slug) => pub.spec(slug)),
      onInvalid: (c, v, p) => {
        if (v.kind === 'path' && v.name === 'format') {
          return sendError(
            c,
            400,
            'bad_format',
            `Unknown format "${v.value.slice(0, 20)}". Allowed: ${CITE_FORMATS.join(', ')}.`,
          );
        }
        if (v.kind === 'path' || p.slug === undefined) return defaultInvalid(c, v, p);
        if (!pub.spec(p.slug)) return unknownSlug(c, pub, p.slug);
        return v.kind === 'value' ? badDate(c, v.raw.date ?? '') : defaultInvalid(c, v, p);
      },
    },
  );
}
