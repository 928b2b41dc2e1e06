import { GET_PATHS } from '../../src/http/app.ts';

/** Every GET route as a template with `{}` for each path parameter (from the app's own list). */
export const ROUTE_TEMPLATES: readonly string[] = [
  ...GET_PATHS.map((p) => p.replace(/:[a-z]+/gi, '{}')),
  '/api/mcp/mcp',
  '/{}',
  '/api/{}/{}',
];
