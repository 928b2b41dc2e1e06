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
  chartRoute,
  datasetFileRoute,
  datasetManifestRoute,
  datasetRoute,
  ogRoute,
  seriesRoute,
  sparklineRoute,
} from './data-declarations.ts';
import { providerRoute, providersRoute } from './provider-declarations.ts';
import { routingPath } from './route-kit.ts';
import {
  assetRoute,
  benchmarkDaysPageRoute,
  benchmarkPageRoute,
  comparePageRoute,
  dayArchivePageRoute,
  faviconRoute,
  healthzRoute,
  homePageRoute,
  llmsFullTxtRoute,
  llmsTxtRoute,
  mcpPageRoute,
  methodologyPageRoute,
  metricsRoute,
  openApiRoute,
  providerPageRoute,
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
  providersRoute,
  providerRoute,
  seriesRoute,
  datasetRoute,
  datasetManifestRoute,
  datasetFileRoute,
  ogRoute,
  sparklineRoute,
  chartRoute,
  mcpPageRoute,
  homePageRoute,
  benchmarkPageRoute,
  benchmarkDaysPageRoute,
  dayArchivePageRoute,
  comparePageRoute,
  providerPageRoute,
  methodologyPageRoute,
  faviconRoute,
  assetRoute,
  llmsTxtRoute,
  llmsFullTxtRoute,
] as const;

/** Router paths of every GET route: each answers HEAD (Hono does this), OPTIONS and 405 for other methods. */
export const GET_PATHS: readonly string[] = GET_ROUTES.map((r) => routingPath(r.path));
