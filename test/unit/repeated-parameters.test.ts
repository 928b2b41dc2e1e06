import type { RouteConfig } from '@hono/zod-openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { GET_ROUTES } from '../../src/http/route-table.ts';
import { type Running, startServer } from '../helpers/server.ts';

/**
 * Every query goes through the one strict reader (src/http/route-kit.ts): a repeated parameter is
 * a 400 `repeated_parameter` on every route that reads it, the images and pages included, never
 * the first value taken silently (issue 28, item 5). Pages answer it in the site's HTML layout.
 */

/** A path parameter's value that reaches the route's query reading. */
const PATH_VALUES: Readonly<Record<string, string>> = {
  slug: 'token-trade-coverage',
  a: 'mobula',
  b: 'codex',
  provider: 'mobula',
  format: 'bib',
  file: '2026-11-19.csv',
  date: '2026-11-19',
  pair: 'mobula-vs-codex',
};

/** Each declared query parameter of each GET route, with a URL that gives it twice. */
function repeatedUrls(): { url: string; name: string; page: boolean }[] {
  const out: { url: string; name: string; page: boolean }[] = [];
  for (const route of GET_ROUTES as readonly RouteConfig[]) {
    const query = route.request?.query as z.ZodObject<z.ZodRawShape> | undefined;
    if (!query) continue;
    const path = route.path.replaceAll(/\{([^}]+)\}/g, (_, p: string) => {
      const v = PATH_VALUES[p];
      if (v === undefined) throw new Error(`no test value for {${p}} of ${route.path}`);
      return v;
    });
    for (const name of Object.keys(query.shape))
      out.push({ url: `${path}?${name}=1&${name}=2`, name, page: !path.startsWith('/api/') });
  }
  return out;
}

describe('a repeated query parameter is a 400 on every route', () => {
  let srv: Running;
  beforeAll(async () => {
    srv = await startServer();
  }, 60_000);
  afterAll(() => srv.close());

  it('the sparkline’s w, h and theme, and the pages’ filters and date', async () => {
    for (const path of [
      '/api/sparkline/network-coverage?w=100&w=200',
      '/api/sparkline/network-coverage?h=40&h=60',
      '/api/sparkline/network-coverage?theme=dark&theme=light',
      '/api/og/network-coverage?date=2026-11-19&date=2026-11-18',
    ]) {
      const r = await srv.get(path);
      expect(r.status, path).toBe(400);
      expect(((await r.json()) as { error: string }).error, path).toBe('repeated_parameter');
    }
    for (const path of [
      '/benchmarks/token-trade-coverage?chain=solana&chain=base',
      '/benchmarks/network-coverage?date=2026-11-19&date=2026-11-18',
    ]) {
      const r = await srv.get(path, { headers: { accept: 'text/html' } });
      expect(r.status, path).toBe(400);
      expect(r.headers.get('content-type'), path).toMatch(/^text\/html/);
      expect(await r.text(), path).toMatch(/Error 400[\s\S]*is given 2 times; give it once\./);
    }
  });

  it('every declared query parameter of every GET route', async () => {
    const urls = repeatedUrls();
    // The walk reaches the routes the issue named (and every other one that reads a query).
    for (const [route, name] of [
      ['/api/sparkline/', 'w'],
      ['/api/sparkline/', 'theme'],
      ['/benchmarks/', 'chain'],
      ['/benchmarks/', 'date'],
    ] as const)
      expect(
        urls.some((u) => u.url.startsWith(route) && u.name === name),
        `${route} ${name}`,
      ).toBe(true);
    for (const { url, name, page } of urls) {
      const r = await srv.get(url, { headers: { accept: page ? 'text/html' : 'application/json' } });
      const body = await r.text();
      expect(r.status, url).toBe(400);
      if (page) expect(body, url).toContain(`&quot;${name}&quot; is given 2 times`);
      else {
        const e = JSON.parse(body) as { error: string; message: string };
        expect(e.message, url).toBe(`"${name}" is given 2 times; give it once.`);
        // The series' provider list keeps its own code, as an over-long list (src/http/series-routes.ts).
        const code =
          url.startsWith('/api/series/') && name === 'providers' ? 'bad_query' : 'repeated_parameter';
        expect(e.error, url).toBe(code);
      }
    }
  }, 60_000);
});
