import { describe, expect, it } from 'vitest';
import { laneOf } from '../../src/http/lane-table.ts';
import { startServer } from '../helpers/server.ts';

/**
 * Issue 26 item 1 (admission): which requests wait in a class's lane and which are served at once.
 * How the lanes share the loop is test/timing/fair-lanes.test.ts.
 */
describe('lane table', () => {
  it.each([
    ['POST', '/api/mcp/mcp', 'mcp'],
    ['GET', '/api/og/lat?chain=eth', 'og'],
    ['GET', '/api/sparkline/lat?w=10', 'svg'],
    ['HEAD', '/api/series/lat?range=90d', 'series'],
    ['GET', '/api/dataset/2026-11-26.csv', 'dataset'],
    ['GET', '/api/citable/2026-11-26', 'frozen'],
    ['GET', '/api/stat/lat?date=2026-11-26', 'frozen'],
    ['GET', '/api/audit/lat/alchemy', 'audit'],
    ['GET', '/compare/a-vs-b', 'compare'],
    ['GET', '/', 'page'],
    ['GET', '/benchmarks/lat', 'page'],
    ['GET', '/metrics', 'metrics'],
  ])('%s %s waits in %s', (method, url, lane) => {
    expect(laneOf(method, url)).toBe(lane);
  });

  it.each([
    ['GET', '/api/stat/lat'],
    ['GET', '/api/stat/lat?chain=eth'],
    ['GET', '/api/citable'],
    ['GET', '/api/freshness'],
    ['GET', '/healthz'],
    ['GET', '/api/llm-context'],
    ['GET', '/assets/site.css'],
    ['GET', '/api/mcp/mcp'],
    ['POST', '/api/og/lat'],
  ])('%s %s is served at once', (method, url) => {
    expect(laneOf(method, url)).toBeNull();
  });
});

describe('the lane gate in the service', () => {
  it('the service puts its expensive routes in lanes (counted in /metrics)', async () => {
    const srv = await startServer({ samples: [] });
    try {
      expect((await srv.get('/')).status).toBe(200);
      const text = await (await srv.get('/metrics')).text();
      expect(text).toMatch(/^http_lane_started_total\{lane="page"\} [1-9]/m);
    } finally {
      await srv.close();
    }
  });
});
