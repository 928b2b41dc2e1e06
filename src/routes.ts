import { registerMcpRoutes } from './mcp/routes.ts';
import { registerArchiveRoutes } from './pages/archive-routes.ts';
import { registerPageRoutes } from './pages/routes.ts';
import { registerBadgeRoutes } from './render/badge-routes.ts';
import { registerChartRoutes } from './render/chart-routes.ts';
import { createImageService, registerImageRoutes } from './render/routes.ts';
import type { RouteRegistrar } from './service.ts';

/**
 * Route modules beyond the JSON API (images, MCP, HTML pages), wired in one place. The pages
 * module returns the site's HTML error page, which the HTTP layer uses for browsers' 404s.
 */
export const defaultRoutes: readonly RouteRegistrar[] = [
  (app, core) => {
    const images = createImageService(core);
    core.onClose(() => images.close());
    registerImageRoutes(app, core, images);
    registerChartRoutes(app, core.publication);
    registerBadgeRoutes(app, core.publication);
  },
  (app, core) => registerMcpRoutes(app, core),
  (app, core) => registerPageRoutes(app, core.publication, core.clock, core.metrics),
  (app, core) => registerArchiveRoutes(app, core.publication),
];
