/**
 * GET /api/series and the sparkline as its view (issue: history and open data). Crafted samples
 * check the grid and the null rules; the demo dataset checks that every point is what the Stat
 * publishes at that instant.
 */
import { describe, expect, it } from 'vitest';
import { PROVIDERS } from '../../src/core/providers.ts';
import type { Sample } from '../../src/core/samples.ts';
import { carryForward, evaluateSeries, seriesGrid, sparklineSegments } from '../../src/core/series.ts';
import { METRICS } from '../../src/harness/families/metric-names.ts';
import { fixture, H, NOW } from '../helpers/fixture.ts';
import { toolCallInit } from '../helpers/mcp-call.ts';
import { serverWithApi } from '../helpers/openapi.ts';

const MIN = 60_000;
const DAY = 24 * H;
const count = (provider: string, t: number, v: number): Sample => ({
  metric: METRICS.networksSupported,
  labels: { provider },
  t,
  v,
});
const capture = (provider: string, chain: string, token: string, t: number, v: number): Sample => ({
  metric: METRICS.tokenTradeCapturePct,
  labels: { provider, chain, token },
  t,
  v,
});

describe('series grid', () => {
  it('24h: 73 points 20 minutes apart ending at the evaluation time; longer ranges documented steps', () => {
    const g = seriesGrid('24h', NOW);
    expect(g).toHaveLength(73);
    expect(g[0]).toBe(NOW - DAY);
    expect(g.at(-1)).toBe(NOW);
    expect(g[1]! - g[0]!).toBe(20 * MIN);
    expect(seriesGrid('7d', NOW)).toHaveLength(85);
    expect(seriesGrid('30d', NOW)).toHaveLength(121);
    const g90 = seriesGrid('90d', NOW);
    expect(g90).toHaveLength(91);
    expect(g90[0]).toBe(NOW - 90 * DAY);
  });
});

describe('evaluateSeries: null rules on crafted samples', () => {
  const providers = [{ slug: 'geckoterminal' }, { slug: 'codex' }, { slug: 'mobula' }].map((p) => ({
    ...p,
    endpoint: 'x',
  }));
  const grid = seriesGrid('24h', NOW);

  it('latest mode: newest sample within 24 h; a provider appearing mid-range is null before; a count expires', () => {
    const samples = [
      count('geckoterminal', NOW - 30 * H, 10),
      count('geckoterminal', NOW - 10 * H, 20),
      count('codex', NOW - 5 * H, 5),
      // Seen once 47 h ago: it stands until it is 24 h old, then the Stat has no value for it.
      count('mobula', NOW - 47 * H, 7),
    ];
    const out = evaluateSeries(providers, { mode: 'latest', samples }, grid, DAY);
    const g = out.get('geckoterminal')!;
    const at = (t: number) => grid.indexOf(t);
    expect(g[0]).toBe(10);
    expect(g[at(NOW - 10 * H) - 1]).toBe(10);
    expect(g[at(NOW - 10 * H)]).toBe(20);
    expect(g.at(-1)).toBe(20);
    const c = out.get('codex')!;
    expect(c.slice(0, at(NOW - 5 * H)).every((v) => v === null)).toBe(true);
    expect(c.slice(at(NOW - 5 * H)).every((v) => v === 5)).toBe(true);
    const m = out.get('mobula')!;
    // In the window until NOW−23h (the sample is exactly 24 h old there, outside a left-open window).
    expect(m.slice(0, at(NOW - 23 * H))).toEqual(Array(at(NOW - 23 * H)).fill(7));
    expect(m.slice(at(NOW - 23 * H)).every((v) => v === null)).toBe(true);
  });

  it('latest mode: a gap longer than the window shows as nulls, never a carried value', () => {
    const samples = [count('geckoterminal', NOW - 50 * H, 3), count('geckoterminal', NOW - 2 * H, 4)];
    const g = evaluateSeries(providers, { mode: 'latest', samples }, grid, DAY).get('geckoterminal')!;
    const i = grid.indexOf(NOW - 2 * H);
    expect(g.slice(0, i).every((v) => v === null)).toBe(true);
    expect(g.slice(i).every((v) => v === 4)).toBe(true);
  });

  it('window mode: p50 over comparable (cell, cycle) pairs only, as windowRows computes it', () => {
    const samples: Sample[] = [];
    for (let t = NOW - 40 * H; t <= NOW; t += H) {
      samples.push(capture('codex', 'solana', 'BONK', t, 90), capture('mobula', 'solana', 'BONK', t, 100));
      // Alone on this cell: never enters codex's aggregate while another pair exists.
      samples.push(capture('codex', 'stellar', 'yXLM', t, 100));
    }
    // mobula appears on a second cell mid-range, at 60.
    for (let t = NOW - 6 * H; t <= NOW; t += H) {
      samples.push(capture('codex', 'base', 'BRETT', t, 100), capture('mobula', 'base', 'BRETT', t, 60));
    }
    const out = evaluateSeries(
      providers,
      { mode: 'window', cellLabels: ['chain', 'token'], values: samples },
      grid,
      DAY,
    );
    expect(out.get('codex')!.every((v) => v === 90 || v === 95 || v === 100)).toBe(true);
    expect(out.get('codex')![0]).toBe(90);
    expect(out.get('mobula')![0]).toBe(100);
    // At NOW: mobula has 24 samples at 100 and 7 at 60: the median is still 100.
    expect(out.get('mobula')!.at(-1)).toBe(100);
    expect(out.get('geckoterminal')!.every((v) => v === null)).toBe(true);
  });
});

describe('carryForward and segments', () => {
  it('carries nulls forward (leading ones take the first value) and lists them as gaps', () => {
    expect(carryForward([null, 2, null, null, 3])).toEqual({ points: [2, 2, 2, 2, 3], gaps: [0, 2, 3] });
    expect(carryForward([null, null])).toEqual({ points: [], gaps: [] });
    expect(sparklineSegments(5, [2, 3])).toEqual([
      { from: 0, to: 1, carried: false },
      { from: 1, to: 4, carried: true },
    ]);
  });
});

describe('series = the Stat at every instant (demo data)', () => {
  it('each sampled point equals the row value of the Stat evaluated then, with and without filters', async () => {
    const f = await fixture({ days: 3 });
    const cases = [
      { slug: 'network-coverage', filters: null },
      { slug: 'network-coverage', filters: { kind: 'dex-index' } },
      { slug: 'token-trade-coverage', filters: null },
      { slug: 'token-trade-coverage', filters: { chain: 'solana' } },
    ];
    for (const { slug, filters } of cases) {
      const s = (await f.publication.series(slug, filters, '24h', null)).value;
      for (const k of [0, 5, 36, 50, 72]) {
        const t = s.timestamps[k]!;
        const stat = await f.publication.statAt(slug, filters, t);
        for (const p of s.providers) {
          const row = stat.rankings.find((r) => r.slug === p.slug);
          expect(p.values[k], `${slug} ${JSON.stringify(filters)} ${p.slug} @${k}`).toBe(
            row ? row.ms.p50 : null,
          );
        }
      }
      const stat = (await f.publication.stat(slug, filters)).value;
      // The sparkline is the leader's 24 h series: same points, nulls carried and listed.
      const leader = s.providers.find((p) => p.slug === stat.leader?.slug);
      expect(leader).toBeDefined();
      const { points, gaps } = carryForward(leader!.values);
      expect(stat.sparkline).toEqual(points);
      expect(stat.sparklineGaps).toEqual(gaps);
      expect(stat.sparkline).toHaveLength(73);
      expect(stat.sparkline.at(-1)).toBe(stat.value);
      expect(stat.sparklineStartMs).toBe(s.timestamps[0]);
      expect(stat.sparklineStepMs).toBe(s.stepMs);
    }
    // 90 days over 3 days of data: nulls before the data, the current value last.
    const long = (await f.publication.series('token-trade-coverage', null, '90d', null)).value;
    const stat = (await f.publication.stat('token-trade-coverage', null)).value;
    for (const p of long.providers) {
      expect(p.values.slice(0, 80).every((v) => v === null)).toBe(true);
      expect(p.values.at(-1)).toBe(stat.rankings.find((r) => r.slug === p.slug)?.ms.p50 ?? null);
    }
    await f.close();
  });

  it('narrowing providers does not change their values (comparability uses every provider)', async () => {
    const f = await fixture({ days: 2 });
    const all = (await f.publication.series('token-trade-coverage', null, '24h', null)).value;
    const one = (await f.publication.series('token-trade-coverage', null, '24h', ['codex'])).value;
    expect(one.providers.map((p) => p.slug)).toEqual(['codex']);
    expect(one.providers[0]?.values).toEqual(all.providers.find((p) => p.slug === 'codex')?.values);
    await f.close();
  });
});

describe('bestPerChain / worstPerChain', () => {
  it("each chain's best is the leader of ?chain=<chain>; a chain measured by one provider has neither", async () => {
    const samples: Sample[] = [];
    for (const t of [NOW - 3 * H, NOW - 2 * H, NOW - H]) {
      samples.push(capture('bitquery', 'solana', 'BONK', t, 100), capture('mobula', 'solana', 'BONK', t, 80));
      samples.push(capture('codex', 'solana', 'BONK', t, 90));
      samples.push(
        capture('bitquery', 'ethereum', 'PEPE', t, 70),
        capture('mobula', 'ethereum', 'PEPE', t, 95),
      );
      samples.push(capture('mobula', 'stellar', 'yXLM', t, 100));
    }
    // Three cycles: the per-chain bests, not the minimum sample count, are under test.
    const f = await fixture({ samples, minSamples: 1 });
    const stat = (await f.publication.stat('token-trade-coverage', null)).value;
    expect(stat.bestPerChain).toEqual({
      solana: { slug: 'bitquery', name: 'Bitquery', value: 100 },
      ethereum: { slug: 'mobula', name: 'Mobula', value: 95 },
    });
    expect(stat.worstPerChain).toEqual({
      solana: { slug: 'mobula', name: 'Mobula', value: 80 },
      ethereum: { slug: 'bitquery', name: 'Bitquery', value: 70 },
    });
    for (const chain of ['solana', 'ethereum']) {
      const filtered = (await f.publication.stat('token-trade-coverage', { chain })).value;
      expect(filtered.leader?.slug).toBe(stat.bestPerChain?.[chain]?.slug);
    }
    const net = (await f.publication.stat('network-coverage', null)).value;
    expect(net.bestPerChain).toBeUndefined();
    await f.close();
  });
});

describe('HTTP and MCP', () => {
  const t = serverWithApi();
  const call = async (path: string) => {
    const res = await t.srv.get(path);
    const body = await res.text();
    t.api.check('/api/series/{slug}', 'get', res, body);
    return { res, body };
  };

  it("GET /api/series/{slug}: the reference client's fields, a stable color per provider, cached", async () => {
    const { res, body } = await call('/api/series/network-coverage');
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toMatch(/^"/);
    const s = JSON.parse(body);
    // What the reference Python client's get_series reads.
    for (const k of ['slug', 'title', 'metric', 'unit', 'range', 'timestamps', 'providers'])
      expect(s).toHaveProperty(k);
    expect(s.range).toBe('24h');
    expect(s.stepMs).toBe(20 * MIN);
    expect(s.timestamps).toHaveLength(73);
    expect(s.simulated).toBe(false);
    for (const p of s.providers) {
      expect(Object.keys(p).sort()).toEqual(['color', 'name', 'slug', 'values']);
      expect(p.color).toBe(PROVIDERS.get(p.slug)?.color);
      expect(p.values).toHaveLength(73);
    }
    const again = await t.srv.get('/api/series/network-coverage', {
      headers: { 'if-none-match': res.headers.get('etag') ?? '' },
    });
    expect(again.status).toBe(304);
  });

  it('filters, providers and ranges; 400 for a bad range, 404 for unknown slug, value or provider', async () => {
    const sol = JSON.parse((await call('/api/series/token-trade-coverage?chain=solana&range=7d')).body);
    expect(sol.filters).toEqual({ chain: 'solana' });
    expect(sol.timestamps).toHaveLength(85);
    const two = JSON.parse((await call('/api/series/token-trade-coverage?providers=codex,mobula')).body);
    expect(two.providers.map((p: { slug: string }) => p.slug)).toEqual(['mobula', 'codex']);
    expect((await call('/api/series/network-coverage?range=1y')).res.status).toBe(400);
    expect((await call('/api/series/network-coverage?range=24h&range=7d')).res.status).toBe(400);
    expect((await call('/api/series/network-coverage?providers=')).res.status).toBe(400);
    expect((await call('/api/series/nope')).res.status).toBe(404);
    expect((await call('/api/series/token-trade-coverage?chain=dogechain')).res.status).toBe(404);
    expect((await call('/api/series/token-trade-coverage?providers=coingecko')).res.status).toBe(404);
  });

  it('the MCP tool get_series returns the same JSON', async () => {
    const res = await t.srv.get(
      '/api/mcp/mcp',
      toolCallInit('get_series', { slug: 'token-trade-coverage', range: '30d', chain: 'base' }),
    );
    const rpc = await res.json();
    const http = await (await t.srv.get('/api/series/token-trade-coverage?range=30d&chain=base')).json();
    expect(rpc.result.structuredContent).toEqual(http);
    expect(JSON.parse(rpc.result.content[0].text)).toEqual(http);
  });
});
