import type { Context, Hono } from 'hono';
import { BusyError, WorkLimit } from '../concurrency/work-limit.ts';
import type { Filters } from '../core/api-schemas.ts';
import { parseSparklineParams } from '../core/sparkline-svg.ts';
import { badDate } from '../http/answers.ts';
import { ogRoute, sparklineRoute } from '../http/data-declarations.ts';
import type { AppDeps } from '../http/deps.ts';
import { FOREVER, type HotSource } from '../http/hot-path.ts';
import { publicationErrorResponse, sendBytes, sendError } from '../http/respond.ts';
import {
  defaultInvalid,
  dimensionsFrom,
  type InvalidHook,
  openRoute,
  type RawQuery,
} from '../http/route-kit.ts';
import { loadShedder } from '../load-shed.ts';
import { UnknownBenchmarkError } from '../publication/types.ts';
import { ServiceWorkers } from '../workers/service-workers.ts';
import { ImageService, RenderBusyError, type StoredImage } from './image-service.ts';

export { ImageService } from './image-service.ts';

/**
 * The production ImageService: OG renders on the service's worker threads (their closing is the
 * service's), or on a worker of its own (closed with it); OG re-rendered on publication changes.
 */
export function createImageService(deps: AppDeps): ImageService {
  const shared = deps.workers;
  return new ImageService({
    publication: deps.publication,
    siteName: deps.config.siteName,
    renderer: shared ? { render: (m) => shared.render(m), close: async () => {} } : new ServiceWorkers(1),
    metrics: deps.metrics,
  });
}

function renderBusy(c: Context): Response {
  return sendError(c, 503, 'render_busy', 'Too many images are being rendered; retry in a second.', {
    'retry-after': '1',
  });
}

async function serve(
  c: Context,
  deps: AppDeps,
  load: () => Promise<StoredImage>,
  hot?: (img: StoredImage) => HotSource,
): Promise<Response> {
  try {
    const img = await load();
    return sendBytes(c, img, hot?.(img));
  } catch (err) {
    const mapped = publicationErrorResponse(
      c,
      err,
      deps.publication.specs.map((s) => s.slug),
    );
    if (mapped) return mapped;
    if (err instanceof RenderBusyError || err instanceof BusyError) return renderBusy(c);
    // Anything else reaches app.onError (logged, 500 JSON).
    throw err;
  }
}

const FILTERS = ['chain', 'region', 'kind', 'venue'] as const;
const DATED_WITH_FILTERS = 'A dated image is the unfiltered one frozen with the day; drop the filters.';

type FilterRead =
  | { ok: true; filters: Filters | null; date: string | undefined }
  | { ok: false; response: Response };

/**
 * `?date=` and the dimension filters (read and bounded by the route's validator), judged like
 * /api/stat judges them: the same 400 and 404 rules, and a dated image is the unfiltered one.
 */
function readFilters(c: Context, deps: AppDeps, slug: string, v: RawQuery): FilterRead {
  const any = FILTERS.some((d) => v[d] !== undefined);
  if (!any) return { ok: true, filters: null, date: v.date };
  if (v.date !== undefined)
    return { ok: false, response: sendError(c, 400, 'bad_request', DATED_WITH_FILTERS) };
  // An unknown slug answers like the unfiltered route (404 unknown_benchmark) from serve().
  if (!deps.publication.spec(slug)) return { ok: true, filters: null, date: undefined };
  const f = deps.publication.resolveFilters(slug, {
    chain: v.chain,
    region: v.region,
    kind: v.kind,
    venue: v.venue,
  });
  if (!f.ok) return { ok: false, response: sendError(c, f.status, f.error, f.message) };
  return { ok: true, filters: f.filters, date: undefined };
}

/** New SVG variants: one drawn at a time, 32 waiting; beyond that 503 render_busy with Retry-After. */
export const SVG_LIMIT = { running: 1, queued: 32 } as const;

/** GET /api/og/{slug} (PNG) and GET /api/sparkline/{slug}?w&h&theme (SVG), both with the Stat's filters. */

export function registerImageRoutes(app: Hono, deps: AppDeps, images: ImageService): void {
  // Not refused on utilization: a queued render holds no loop time while it waits.
  const svgQueue = new WorkLimit(SVG_LIMIT.running, SVG_LIMIT.queued, null);
  /** `?date=`: the image of a frozen day, as every link inside a day snapshot points to. */
  const dated = async (
    c: Context,
    slug: string,
    day: string,
    kind: Parameters<ImageService['getDated']>[2],
  ) => {
    if (!deps.publication.spec(slug))
      return serve(c, deps, () => Promise.reject(new UnknownBenchmarkError(slug)));
    const img = await images.getDated(slug, day, kind);
    if (img) return sendBytes(c, img, FOREVER);
    const r = await deps.publication.frozenStat?.(slug, day);
    if (r?.kind === 'bad_date') return sendError(c, 400, 'bad_date', r.message ?? 'bad date');
    // Closed past its grace, its freeze being retried: 503 with Retry-After, as /api/stat?date= says.
    if (r?.kind === 'not_frozen' && r.retryAfter !== undefined) {
      return sendError(c, 503, 'not_frozen', r.message ?? `${day.slice(0, 20)} is not frozen yet.`, {
        'retry-after': String(r.retryAfter),
      });
    }
    return sendError(c, 404, 'not_frozen', `${day.slice(0, 20)} has no frozen snapshot.`);
  };

  /**
   * A value the schema refused, answered in today's order: size and theme (the sparkline's own
   * words), then a date with filters, an unknown benchmark, a malformed date.
   */
  const dimensionsOf = dimensionsFrom((slug) => deps.publication.spec(slug));
  const onInvalid: InvalidHook = (c, v, p) => {
    if (v.kind !== 'value' || p.slug === undefined) return defaultInvalid(c, v, p);
    if (v.name !== 'date') {
      const params = parseSparklineParams(v.raw);
      return sendError(c, 400, 'bad_request', params.ok ? 'Bad sparkline parameters.' : params.message);
    }
    const slug = p.slug;
    if (FILTERS.some((d) => v.raw[d] !== undefined))
      return sendError(c, 400, 'bad_request', DATED_WITH_FILTERS);
    if (!deps.publication.spec(slug))
      return serve(c, deps, () => Promise.reject(new UnknownBenchmarkError(slug)));
    return badDate(c, v.raw.date ?? '');
  };

  openRoute(
    app,
    ogRoute,
    (c, { params, raw }) => {
      const slug = params.slug;
      const f = readFilters(c, deps, slug, raw);
      if (!f.ok) return f.response;
      if (f.date !== undefined) return dated(c, slug, f.date, 'og');
      // Replayable while it is the image the service holds for the current Stat.
      const source = (img: StoredImage): HotSource => ({
        valid: () => images.peekOg(slug, f.filters) === img,
        group: slug,
      });
      const hit = images.peekOg(slug, f.filters);
      if (hit) return sendBytes(c, hit, source(hit));
      return serve(c, deps, () => images.getOg(slug, f.filters), source);
    },
    { onInvalid, dimensionsOf },
  );

  openRoute(
    app,
    sparklineRoute,
    (c, { params: path, raw }) => {
      const slug = path.slug;
      // An unknown benchmark is a 404 before anything can be refused as busy: the shedder below
      // is for Stats that cost something, and a missing one costs nothing to say.
      if (!deps.publication.spec(slug))
        return serve(c, deps, () => Promise.reject(new UnknownBenchmarkError(slug)));
      // Validated already: this only gives the defaults and the floored, clamped sizes their types.
      const params = parseSparklineParams(raw);
      if (!params.ok) return sendError(c, 400, 'bad_request', params.message);
      const f = readFilters(c, deps, slug, raw);
      if (!f.ok) return f.response;
      if (f.date !== undefined) return dated(c, slug, f.date, params);
      const source = (img: StoredImage): HotSource => ({
        valid: () => images.peekSvg(slug, params, f.filters) === img,
        group: slug,
      });
      const hit = images.peekSvg(slug, params, f.filters);
      if (hit) return sendBytes(c, hit, source(hit));
      // w and h are the client's, so every request can be a miss. Drawing is synchronous and
      // microseconds long; what can cost is the Stat. A variant already served is re-rendered for
      // new data even under load. A new variant of a Stat already computed (the prewarm computes
      // them after each cycle) waits in the SVG queue: only a full queue answers 503. A new variant
      // whose Stat must be computed under overload is refused: the shedder is the last resort.
      if (!images.knowsSvg(slug, params, f.filters)) {
        const cached = deps.publication.peekStat?.(slug, f.filters) !== undefined;
        if (!cached && loadShedder.overloaded()) return renderBusy(c);
        return serve(c, deps, () => svgQueue.run(() => images.getSvg(slug, params, f.filters)), source);
      }
      return serve(c, deps, () => images.getSvg(slug, params, f.filters), source);
    },
    { onInvalid, dimensionsOf },
  );
}
