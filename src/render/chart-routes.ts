import type { Hono } from 'hono';
import { chartRoute } from '../http/data-declarations.ts';
import { publicationErrorResponse, sendBytes, sendError } from '../http/respond.ts';
import { defaultInvalid, dimensionsFrom, openRoute } from '../http/route-kit.ts';
import { resolveChartRequest } from '../publication/chart-request.ts';
import type { Publication } from '../publication/publication.ts';
import { type Chart, HistoryCharts } from './history-charts.ts';

/**
 * GET /api/chart/{slug}?range=&chain=&region=&kind=&venue=: the benchmark page's history chart as a
 * standalone SVG, cached like the sparkline (ETag of the bytes, 304, Cache-Control image, replayed
 * by the hot path while its views are current), with /api/series's 400 and 404.
 */
export function registerChartRoutes(app: Hono, pub: Publication): void {
  const charts = new HistoryCharts(pub);
  const slugs = () => pub.specs.map((s) => s.slug);
  openRoute(
    app,
    chartRoute,
    async (c, { params, raw }) => {
      const slug = params.slug;
      const r = resolveChartRequest(pub, slug, raw);
      if (!r.ok) return sendError(c, r.status, r.error, r.message);
      const send = (chart: Chart) => sendBytes(c, chart.image, charts.source(chart, slug));
      const hit = charts.peek(slug, r.filters, r.range);
      if (hit) return send(hit);
      try {
        return send(await charts.get(slug, r.filters, r.range));
      } catch (err) {
        const mapped = publicationErrorResponse(c, err, slugs());
        if (mapped) return mapped;
        throw err;
      }
    },
    {
      dimensionsOf: dimensionsFrom((slug) => pub.spec(slug)),
      onInvalid: (c, v, p) => {
        // A range outside the list: the shared chart rules say why (unknown slug first).
        if (v.kind === 'value' && p.slug !== undefined) {
          const r = resolveChartRequest(pub, p.slug, v.raw);
          if (!r.ok) return sendError(c, r.status, r.error, r.message);
        }
        return defaultInvalid(c, v, p);
      },
    },
  );
}
