import type { Context, Hono } from 'hono';
import { parseSparklineParams } from '../core/sparkline-svg.ts';
import { SLUG_RE } from '../core/spec-schema.ts';
import type { AppDeps } from '../http/deps.ts';
import { publicationErrorResponse, sendBytes, sendError } from '../http/respond.ts';
import { ImageService, type StoredImage } from './image-service.ts';
import { OgWorkerClient } from './og-worker-client.ts';

export { ImageService } from './image-service.ts';

/** The production ImageService: one render worker, OG re-rendered on publication changes. */
export function createImageService(deps: AppDeps): ImageService {
  return new ImageService({
    publication: deps.publication,
    siteName: deps.config.siteName,
    renderer: new OgWorkerClient(),
    metrics: deps.metrics,
  });
}

async function serve(c: Context, deps: AppDeps, load: () => Promise<StoredImage>): Promise<Response> {
  try {
    return sendBytes(c, await load());
  } catch (err) {
    const mapped = publicationErrorResponse(
      c,
      err,
      deps.publication.specs.map((s) => s.slug),
    );
    if (mapped) return mapped;
    // Anything else reaches app.onError (logged, 500 JSON).
    throw err;
  }
}

function badSlug(c: Context, slug: string): Response {
  return sendError(
    c,
    400,
    'bad_slug',
    `"${slug.slice(0, 100)}" is not a valid slug (^[a-z0-9][a-z0-9-]{0,79}$).`,
  );
}

/** GET /api/og/{slug} (PNG) and GET /api/sparkline/{slug}?w&h&theme (SVG). */
export function registerImageRoutes(app: Hono, deps: AppDeps, images: ImageService): void {
  app.get('/api/og/:slug', (c) => {
    const slug = c.req.param('slug');
    if (!SLUG_RE.test(slug)) return badSlug(c, slug);
    const hit = images.peekOg(slug);
    if (hit) return sendBytes(c, hit);
    return serve(c, deps, () => images.getOg(slug));
  });

  app.get('/api/sparkline/:slug', (c) => {
    const slug = c.req.param('slug');
    if (!SLUG_RE.test(slug)) return badSlug(c, slug);
    const params = parseSparklineParams(c.req.query());
    if (!params.ok) return sendError(c, 400, 'bad_request', params.message);
    const hit = images.peekSvg(slug, params);
    if (hit) return sendBytes(c, hit);
    return serve(c, deps, () => images.getSvg(slug, params));
  });
}
