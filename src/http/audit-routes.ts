import type { Context, Hono } from 'hono';
import type { Filters } from '../core/api-schemas.ts';
import { DIMENSION_NAMES } from '../core/spec-schema.ts';
import type { Publication } from '../publication/publication.ts';
import type { FilterResolution } from '../publication/types.ts';
import { badDate, JSON_TYPE, sendServed, unknownSlug } from './answers.ts';
import { auditRoute, compareRoute } from './api-declarations.ts';
import { ANY_BENCHMARK, FOREVER } from './hot-path.ts';
import { viewSource } from './hot-source.ts';
import { sendFrozenDay } from './not-frozen.ts';
import { CACHE, sendBytes, sendError } from './respond.ts';
import { defaultInvalid, dimensionsFrom, openRoute, type RawQuery } from './route-kit.ts';

type AuditWindow =
  | { ok: true; window: { filters: Filters | null } | undefined }
  | Extract<FilterResolution, { ok: false }>;

/**
 * `?window=24h` on a window-mode benchmark: the audit covers the Stat's window, narrowed by the
 * Stat's own filters (`chain`, `region`, …), resolved as /api/stat resolves them. Filters without a
 * window, or a window other than the Stat's, are a clear 400.
 */
function auditWindow(pub: Publication, slug: string, v: RawQuery): AuditWindow {
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

function unknownProvider(c: Context, pub: Publication, slug: string, provider: string): Response {
  const valid = pub.spec(slug)?.providers.map((p) => p.slug) ?? [];
  return sendError(
    c,
    404,
    'unknown_provider',
    `"${provider}" is not measured by ${slug}. Valid: ${valid.join(', ')}.`,
  );
}

/**
 * A link from a frozen day: the audit frozen with it, byte-identical and immutable like the day's
 * Stat, never recomputed (late samples, a new BASE_URL or a restart change nothing). A day that is
 * not frozen answers as the dated Stat does; a dated audit is unfiltered, as the dated Stat is.
 */
async function datedAudit(
  c: Context,
  pub: Publication,
  slug: string,
  provider: string,
  date: string,
  window: { filters: Filters | null } | undefined,
): Promise<Response> {
  if (window?.filters) {
    return sendError(
      c,
      400,
      'bad_request',
      'A dated audit is the unfiltered one frozen with the day; drop the filters.',
    );
  }
  const r = await pub.frozenAudit(slug, provider, date, window !== undefined);
  if (r.kind === 'bad_date') return sendError(c, 400, 'bad_date', r.message);
  if (r.kind === 'unknown_provider') return unknownProvider(c, pub, slug, provider);
  return sendFrozenDay(c, date, r, `Its live audit is at /api/audit/${slug}/${provider}.`);
}

const DATED_COMPARE_WITH_FILTERS =
  'A dated compare is of the unfiltered Stats frozen with the day; drop the filters.';

/** GET /api/audit/{slug}/{provider} and GET /api/compare/{a}/{b}. */
export function registerAuditRoutes(app: Hono, pub: Publication): void {
  openRoute(
    app,
    auditRoute,
    async (c, { params, raw }) => {
      const { slug, provider } = params;
      if (!pub.spec(slug)) return unknownSlug(c, pub, slug);
      const w = auditWindow(pub, slug, raw);
      if (!w.ok) return sendError(c, w.status, w.error, w.message);
      if (raw.date !== undefined) return datedAudit(c, pub, slug, provider, raw.date, w.window);
      const a = await pub.audit(slug, provider, undefined, w.window);
      if (!a) return unknownProvider(c, pub, slug, provider);
      return sendServed(c, a, viewSource(pub, a, slug));
    },
    {
      // In today's order: the benchmark must exist before its query is read, the window is
      // explained (it names the Stat's window) before a malformed date.
      dimensionsOf: dimensionsFrom((slug) => pub.spec(slug)),
      onInvalid: (c, v, p) => {
        if (v.kind === 'path' || p.slug === undefined) return defaultInvalid(c, v, p);
        if (!pub.spec(p.slug)) return unknownSlug(c, pub, p.slug);
        if (v.kind !== 'value') return defaultInvalid(c, v, p);
        const w = auditWindow(pub, p.slug, v.raw);
        if (!w.ok) return sendError(c, w.status, w.error, w.message);
        return badDate(c, v.raw.date ?? '');
      },
    },
  );

  openRoute(
    app,
    compareRoute,
    async (c, { params, query }) => {
      const filters = { chain: query.chain, region: query.region, kind: query.kind, venue: query.venue };
      const filtered = Object.values(filters).some((v) => v !== undefined);
      const date = query.date;
      if (date !== undefined && filtered) return sendError(c, 400, 'bad_request', DATED_COMPARE_WITH_FILTERS);
      const q = date !== undefined ? { date } : filtered ? { filters } : {};
      const r = await pub.compare(params.a, params.b, q);
      if (!r.ok) {
        const retry = r.retryAfter === undefined ? undefined : { 'retry-after': String(r.retryAfter) };
        return sendError(c, r.status, r.error, r.message, retry);
      }
      if (date === undefined) return sendServed(c, r.served, viewSource(pub, r.served, ANY_BENCHMARK));
      const immutable = {
        contentType: JSON_TYPE,
        cacheControl: CACHE.immutable,
        headers: { 'x-snapshot-date': date },
      };
      return sendBytes(c, { ...r.served, ...immutable }, FOREVER);
    },
    {
      // The pair rules (slug shape, a ≠ b, known providers) and their messages are the publication's.
      onInvalid: async (c, v) => {
        if (v.kind === 'value' && v.name === 'date') return badDate(c, v.raw.date ?? '');
        if (v.kind !== 'path') return defaultInvalid(c, v, {});
        const r = await pub.compare(c.req.param('a') ?? '', c.req.param('b') ?? '');
        if (r.ok) return defaultInvalid(c, v, {});
        return sendError(c, r.status, r.error, r.message);
      },
    },
  );
}
