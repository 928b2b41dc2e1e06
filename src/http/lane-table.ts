import type { LaneBounds } from '../concurrency/fair-lanes.ts';
import { auditRoute, citableDayRoute, compareRoute } from './api-declarations.ts';
import {
  chartRoute,
  datasetFileRoute,
  datasetManifestRoute,
  datasetRoute,
  ogRoute,
  seriesRoute,
  sparklineRoute,
} from './data-declarations.ts';
import {
  benchmarkPageRoute,
  comparePageRoute,
  homePageRoute,
  mcpPageRoute,
  mcpRoute,
  methodologyPageRoute,
  metricsRoute,
  providerPageRoute,
} from './site-declarations.ts';

/**
 * The classes of expensive requests and their bounds (src/concurrency/fair-lanes.ts). `running`
 * bounds the work a class resumes after a store read or a worker's answer, which the lanes do not
 * meter; `queued` is what may wait before a 503 with Retry-After.
 */
export const LANES = {
  mcp: { running: 2, queued: 64 },
  og: { running: 2, queued: 32 },
  svg: { running: 2, queued: 32 },
  series: { running: 2, queued: 32 },
  dataset: { running: 2, queued: 32 },
  frozen: { running: 2, queued: 32 },
  audit: { running: 2, queued: 32 },
  compare: { running: 2, queued: 32 },
  page: { running: 2, queued: 32 },
  metrics: { running: 1, queued: 32 },
} as const satisfies Record<string, LaneBounds>;

export type LaneName = keyof typeof LANES;

/**
 * Each declared route that waits in a lane. Every other route (a live Stat, the index, freshness,
 * citations, llm-context, assets, the health probe) is served at once: those are the cached reads
 * the lanes protect. A request with a `date` (a frozen day) on any other route waits in `frozen`.
 */
const ROUTE_LANES: readonly (readonly [{ readonly method: string; readonly path: string }, LaneName])[] = [
  [mcpRoute, 'mcp'],
  [ogRoute, 'og'],
  [sparklineRoute, 'svg'],
  [chartRoute, 'svg'],
  [seriesRoute, 'series'],
  [datasetRoute, 'dataset'],
  [datasetManifestRoute, 'dataset'],
  [datasetFileRoute, 'dataset'],
  [citableDayRoute, 'frozen'],
  [auditRoute, 'audit'],
  [compareRoute, 'compare'],
  [comparePageRoute, 'compare'],
  [homePageRoute, 'page'],
  [benchmarkPageRoute, 'page'],
  [providerPageRoute, 'page'],
  [methodologyPageRoute, 'page'],
  [mcpPageRoute, 'page'],
  [metricsRoute, 'metrics'],
];

interface Matcher {
  readonly methods: ReadonlySet<string>;
  readonly pattern: RegExp;
  readonly lane: LaneName;
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `/api/dataset/{date}.json` → /^\/api\/dataset\/[^/]+\.json$/ */
function templateRegex(path: string): RegExp {
  const parts = path.split(/\{[^}]+\}/).map(escapeRegex);
  return new RegExp(`^${parts.join('[^/]+')}$`);
}

/**
 * The key a path is filed under: its first segment, and its second under /api/ (`api/series`,
 * `benchmarks`, `` for the home page). Every lane route's key is static, so a request is tested
 * only against the routes filed under its own key: a cached read (`api/stat`) against none.
 */
function keyOf(path: string): string {
  const first = path.indexOf('/', 1);
  const head = first === -1 ? path.slice(1) : path.slice(1, first);
  if (head !== 'api' || first === -1) return head;
  const second = path.indexOf('/', first + 1);
  return path.slice(1, second === -1 ? undefined : second);
}

const MATCHERS = new Map<string, Matcher[]>();
for (const [route, lane] of ROUTE_LANES) {
  const m = route.method.toUpperCase();
  const key = keyOf(route.path);
  if (key.includes('{')) throw new Error(`lane route ${route.path}: its first segments must be static`);
  // A GET route answers HEAD as its GET (src/http/head.ts), so a HEAD waits in the same lane.
  const matcher = {
    methods: new Set(m === 'GET' ? ['GET', 'HEAD'] : [m]),
    pattern: templateRegex(route.path),
    lane,
  };
  MATCHERS.set(key, [...(MATCHERS.get(key) ?? []), matcher]);
}

const DATE_PARAM = /(?:^|&)date=/;

/** The lane a request waits in, or null when it is served at once. */
export function laneOf(method: string | undefined, url: string | undefined): LaneName | null {
  const u = url ?? '/';
  const q = u.indexOf('?');
  const path = q === -1 ? u : u.slice(0, q);
  const m = method ?? 'GET';
  for (const matcher of MATCHERS.get(keyOf(path)) ?? []) {
    if (matcher.methods.has(m) && matcher.pattern.test(path)) return matcher.lane;
  }
  if (q !== -1 && (m === 'GET' || m === 'HEAD') && DATE_PARAM.test(u.slice(q + 1))) return 'frozen';
  return null;
}
