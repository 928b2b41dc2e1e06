import {
  auditRoute,
  citableDayRoute,
  citableRoute,
  citeRoute,
  compareRoute,
  featuredRoute,
  freshnessRoute,
  llmContextRoute,
  statRoute,
} from './api-declarations.ts';
import {
  datasetFileRoute,
  datasetManifestRoute,
  datasetRoute,
  ogRoute,
  seriesRoute,
  sparklineRoute,
} from './data-declarations.ts';
import { routingPath } from './route-kit.ts';
import {
  assetRoute,
  benchmarkPageRoute,
  comparePageRoute,
  faviconRoute,
  healthzRoute,
  homePageRoute,
  mcpPageRoute,
  methodologyPageRoute,
  metricsRoute,
  openApiRoute,
} from './site-declarations.ts';

/** Every GET route the service answers, from the declarations (the MCP endpoint is POST). */
export const GET_ROUTES = [
  healthzRoute,
  metricsRoute,
  openApiRoute,
  citableRoute,
  citableDayRoute,
  statRoute,
  compareRoute,
  auditRoute,
  citeRoute,
  llmContextRoute,
  freshnessRoute,
  featuredRoute,
  seriesRoute,
  datasetRoute,
  datasetManifestRoute,
  datasetFileRoute,
  ogRoute,
  sparklineRoute,
  mcpPageRoute,
  homePageRoute,
  benchmarkPageRoute,
  comparePageRoute,
  methodologyPageRoute,
  faviconRoute,
  assetRoute,
] as const;

/** Router paths of every GET route: each answers HEAD (Hono does this), OPTIONS and 405 for other methods. */
export const GET_PATHS: readonly string[] = GET_ROUTES.map((r) => routingPath(r.path));
