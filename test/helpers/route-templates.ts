import { declaredPath } from '../../src/http/route-kit.ts';
import { GET_PATHS } from '../../src/http/route-table.ts';

/** Every GET route as a template with `{}` for each path parameter (from the route declarations). */
export const ROUTE_TEMPLATES: readonly string[] = [
  ...GET_PATHS.map((p) => declaredPath(p).replace(/\{[a-z]+\}/gi, '{}')),
  '/api/mcp/mcp',
  '/{}',
  '/api/{}/{}',
];
