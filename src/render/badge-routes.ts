import type { Hono } from 'hono';
import { badgeSvg } from '../core/badge-svg.ts';
import { providerName } from '../core/providers.ts';
import { badgeRoute } from '../http/data-declarations.ts';
import { CACHE, publicationErrorResponse, sendBytes, sendError } from '../http/respond.ts';
import { openRoute } from '../http/route-kit.ts';
import { TextCache } from '../http/text-cache.ts';
import type { Publication } from '../publication/publication.ts';

/**
 * GET /api/badge/{slug}/{provider}: the provider's row of the benchmark's unfiltered Stat as a
 * badge, drawn once per version of that Stat and replayed while it is current.
 */
export function registerBadgeRoutes(app: Hono, pub: Publication): void {
  const badges = new TextCache(1000);
  const slugs = () => pub.specs.map((s) => s.slug);
  openRoute(app, badgeRoute, async (c, { params }) => {
    const { slug, provider } = params;
    const spec = pub.spec(slug);
    if (!spec) {
      return sendError(
        c,
        404,
        'unknown_benchmark',
        `Unknown benchmark "${slug}". Valid slugs: ${slugs().join(', ')}.`,
      );
    }
    if (!spec.providers.some((p) => p.slug === provider)) {
      const listed = spec.providers.map((p) => p.slug).join(', ');
      return sendError(
        c,
        404,
        'unknown_provider',
        `"${slug}" does not list "${provider}". It lists: ${listed}.`,
      );
    }
    try {
      const served = pub.peekStat(slug, null) ?? (await pub.stat(slug, null));
      const stat = served.value;
      const row = stat.rankings.find((r) => r.slug === provider);
      const image = badges.get(`${slug}/${provider}/${served.etag}`, () =>
        badgeSvg({
          label: stat.metric,
          provider: row?.name ?? providerName(provider),
          // A row with no comparison has nothing to score it against: no value, as on the page.
          value: row && !row.noComparison ? row.ms.p50 : null,
          unit: stat.unit,
          rank: row?.rank ?? null,
          simulated: stat.simulated === true,
        }),
      );
      return sendBytes(
        c,
        { ...image, contentType: 'image/svg+xml; charset=utf-8', cacheControl: CACHE.image },
        { valid: () => pub.isCurrent(served), group: slug },
      );
    } catch (err) {
      const mapped = publicationErrorResponse(c, err, slugs());
      if (mapped) return mapped;
      throw err;
    }
  });
}
