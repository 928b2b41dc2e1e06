/**
 * GET /api/chart/{slug} (issue 25 part 2): the history chart as a standalone SVG. Its lines are the
 * /api/series points of the same query, for exactly the providers ranked in /api/stat of the same
 * filters; it is cached like the sparkline and answers /api/series's 400 and 404.
 */
import { describe, expect, it } from 'vitest';
import { measuredRuns } from '../../src/core/history-svg.ts';
import { NOW } from '../helpers/fixture.ts';
import { serverWithApi } from '../helpers/openapi.ts';

interface SeriesJson {
  timestamps: number[];
  providers: { slug: string; color: string; values: (number | null)[] }[];
}
interface StatJson {
  rankings: { slug: string; rank: number | null }[];
}

/** Each provider group's vertices, run by run: polylines and lone dots, in document order. */
function drawn(svg: string, slug: string): [number, number][][] {
  const g = new RegExp(`<g data-provider="${slug}" stroke="[^"]*"[^>]*>(.*?)</g>`).exec(svg)?.[1] ?? '';
  return [...g.matchAll(/<polyline points="([^"]*)"\/>|<circle cx="([^"]*)" cy="([^"]*)"/g)].map((m) =>
    m[1] !== undefined
      ? m[1].split(' ').map((p) => p.split(',').map(Number) as [number, number])
      : [[Number(m[2]), Number(m[3])]],
  );
}

const legendOf = (svg: string) =>
  [...svg.matchAll(/<g class="legend" data-provider="([^"]+)">/g)].map((m) => m[1]);

describe('GET /api/chart/{slug}', () => {
  const t = serverWithApi();
  const call = async (path: string, init?: RequestInit) => {
    const res = await t.srv.get(path, init);
    const body = await res.text();
    t.api.check('/api/chart/{slug}', 'get', res, body);
    return { res, body };
  };

  it('answers an SVG cached like the sparkline: ETag, 304, Cache-Control, CSP, the default range 7d', async () => {
    const { res, body } = await call('/api/chart/token-trade-coverage');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    const spark = await t.srv.get('/api/sparkline/token-trade-coverage');
    await spark.arrayBuffer();
    for (const h of [
      'cache-control',
      'content-security-policy',
      'x-content-type-options',
      'access-control-allow-origin',
    ])
      expect(res.headers.get(h), h).toBe(spark.headers.get(h));
    const etag = res.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"/);
    expect(body).toMatch(/^<\?xml[^>]*>\n<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(body).not.toMatch(/<script|href=/i);
    const again = await call('/api/chart/token-trade-coverage', { headers: { 'if-none-match': etag } });
    expect(again.res.status).toBe(304);
    expect(again.body).toBe('');
    const week = await call('/api/chart/token-trade-coverage?range=7d');
    expect(week.body).toBe(body);
    expect(week.res.headers.get('etag')).toBe(etag);
    // The hot path replays it while its views are current.
    const hot = t.srv.service.hotPath;
    const before = hot.hits;
    await call('/api/chart/token-trade-coverage');
    expect(hot.hits).toBe(before + 1);
  });

  it('draws exactly the /api/series points of the same query, for the providers ranked in /api/stat', async () => {
    for (const [q, n] of [
      ['token-trade-coverage', 85],
      ['token-trade-coverage?range=30d&chain=base', 121],
      ['network-coverage?range=90d&kind=dex-index', 91],
      ['token-trade-recall?range=7d', 85],
    ] as const) {
      const slug = q.split('?')[0] ?? '';
      const query = q.includes('?') ? q.slice(q.indexOf('?')) : '';
      const { body: svg } = await call(`/api/chart/${q}`);
      // The chart's default range is 7d (the series' is 24h): the same query names it.
      const sq = new URLSearchParams(query);
      if (!sq.has('range')) sq.set('range', '7d');
      const series = (await (await t.srv.get(`/api/series/${slug}?${sq}`)).json()) as SeriesJson;
      const filters = new URLSearchParams(query);
      filters.delete('range');
      const fq = filters.toString();
      const stat = (await (await t.srv.get(`/api/stat/${slug}${fq ? `?${fq}` : ''}`)).json()) as StatJson;
      const ranked = stat.rankings.filter((r) => r.rank !== null).map((r) => r.slug);
      expect(ranked.length, q).toBeGreaterThan(0);
      expect(series.timestamps, q).toHaveLength(n);
      expect(svg, q).toContain(`(${n} points)`);
      // The grid ends at the evaluation time (the server's clock).
      expect(series.timestamps.at(-1), q).toBe(NOW);
      expect(svg, q).toContain(`to ${new Date(NOW).toISOString().slice(0, 16)} UTC`);
      expect(legendOf(svg), q).toEqual(ranked);
      for (const slugOf of ranked) {
        const p = series.providers.find((s) => s.slug === slugOf);
        if (!p) throw new Error(`${q}: ${slugOf} missing from the series`);
        expect(svg, q).toContain(`<g data-provider="${slugOf}" stroke="${p.color}"`);
        const runs = measuredRuns(p.values);
        const parts = drawn(svg, slugOf);
        // One drawn part per measured run, as long as the run: gaps stay gaps.
        expect(
          parts.map((r) => r.length),
          `${q} ${slugOf}`,
        ).toEqual(runs.map((r) => r.length));
        runs.forEach((run, k) => {
          const part = parts[k] ?? [];
          run.forEach((i, j) => {
            const y = part[j]?.[1] ?? Number.NaN;
            if (j === 0) return;
            // Up is bigger: each step moves the way the value moves.
            const dv = (p.values[i] as number) - (p.values[run[j - 1] ?? 0] as number);
            const dy = (part[j - 1]?.[1] ?? 0) - y;
            if (Math.abs(dv) > 1e-9) expect(Math.sign(dy), `${q} ${slugOf} #${i}`).toBe(Math.sign(dv));
          });
        });
      }
      // Every vertex sits at its timestamp's place on one linear time axis (x = a + b·t).
      const all = ranked.flatMap((s) => drawn(svg, s).flat());
      const ts = ranked.flatMap((s) => {
        const p = series.providers.find((x) => x.slug === s);
        return measuredRuns(p?.values ?? [])
          .flat()
          .map((i) => series.timestamps[i] ?? 0);
      });
      const [xa, xb] = [all[0]?.[0] ?? 0, all.at(-1)?.[0] ?? 0];
      const [ta, tb] = [ts[0] ?? 0, ts.at(-1) ?? 0];
      expect(all.length, q).toBe(ts.length);
      expect(tb, q).toBeGreaterThan(ta);
      for (const [k, [x]] of all.entries())
        expect(x, `${q} vertex ${k}`).toBeCloseTo(xa + ((xb - xa) * ((ts[k] ?? 0) - ta)) / (tb - ta), 0);
    }
  });

  it('a provider without a rank is not drawn (the Stat of ?chain=stellar ranks no one)', async () => {
    const stat = (await (await t.srv.get('/api/stat/token-trade-coverage?chain=stellar')).json()) as StatJson;
    expect(stat.rankings.length).toBeGreaterThan(0);
    expect(stat.rankings.every((r) => r.rank === null)).toBe(true);
    const { res, body } = await call('/api/chart/token-trade-coverage?chain=stellar');
    expect(res.status).toBe(200);
    expect(legendOf(body)).toEqual([]);
    expect(body).toContain('>No ranked provider in this view</text>');
  });

  it("400 and 404 as /api/series: bad range (24h is the sparkline's), repeated, bad slug; unknown slug or value", async () => {
    const cases: [string, number, string][] = [
      ['token-trade-coverage?range=24h', 400, 'bad_range'],
      ['token-trade-coverage?range=1y', 400, 'bad_range'],
      ['token-trade-coverage?range=7d&range=30d', 400, 'repeated_parameter'],
      ['token-trade-coverage?chain=base&chain=solana', 400, 'repeated_parameter'],
      ['Bad_Slug', 400, 'bad_slug'],
      ['nope', 404, 'unknown_benchmark'],
      ['nope?range=1y', 404, 'unknown_benchmark'],
      ['token-trade-coverage?chain=dogechain', 404, 'unknown_dimension_value'],
      ['token-trade-recall?chain=solana', 404, 'unknown_dimension_value'],
    ];
    for (const [q, status, error] of cases) {
      const { res, body } = await call(`/api/chart/${q}`);
      expect(res.status, q).toBe(status);
      const e = JSON.parse(body) as { error: string; message: string };
      expect(e.error, q).toBe(error);
      expect(e.message.length, q).toBeGreaterThan(10);
      // The same answer /api/series gives, where the series reads the query the same way.
      if (!q.includes('range=24h') && !q.startsWith('Bad_')) {
        const s = await t.srv.get(`/api/series/${q}`);
        expect(s.status, q).toBe(status);
        expect(((await s.json()) as { error: string }).error, q).toBe(error);
      }
    }
    const r = JSON.parse((await call('/api/chart/token-trade-coverage?range=24h')).body) as {
      message: string;
    };
    expect(r.message).toContain('Allowed: 7d, 30d, 90d.');
  });

  it('is documented from its declaration: ranges, filters, SVG, 400 and 404', async () => {
    const doc = (await (await t.srv.get('/api/openapi.json')).json()) as {
      paths: Record<
        string,
        {
          get: {
            parameters: { name: string; schema: { enum?: string[]; default?: string } }[];
            responses: Record<string, { content?: Record<string, unknown> }>;
          };
        }
      >;
    };
    const op = doc.paths['/api/chart/{slug}']?.get;
    expect(op).toBeDefined();
    const range = op?.parameters.find((p) => p.name === 'range');
    expect(range?.schema.enum).toEqual(['7d', '30d', '90d']);
    expect(range?.schema.default).toBe('7d');
    expect(op?.parameters.map((p) => p.name).sort()).toEqual([
      'chain',
      'kind',
      'range',
      'region',
      'slug',
      'venue',
    ]);
    expect(Object.keys(op?.responses['200']?.content ?? {})).toEqual(['image/svg+xml']);
    expect(op?.responses['400']).toBeDefined();
    expect(op?.responses['404']).toBeDefined();
  });
});
