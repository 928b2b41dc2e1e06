/**
 * Regression tests for the publication-integrity rules (issue 10), each on crafted samples or
 * requests that showed the defect.
 */
import { describe, expect, it, vi } from 'vitest';
import type { Stat } from '../../src/core/api-schemas.ts';
import { buildCompare, compareRow } from '../../src/core/compare.ts';
import { buildFeatured } from '../../src/core/featured.ts';
import type { Sample } from '../../src/core/samples.ts';
import { buildDataset } from '../../src/demo/dataset.ts';
import { METRICS } from '../../src/harness/families/metric-names.ts';
import { createPublication } from '../../src/publication/publication.ts';
import { fixture, H, NOW } from '../helpers/fixture.ts';
import { serverWithApi } from '../helpers/openapi.ts';
import { startServer } from '../helpers/server.ts';

const decode = (b: Uint8Array) => new TextDecoder().decode(b);
const TRADE = 'token-trade-coverage';
const RECALL = 'token-trade-recall';
const base = {
  slug: 's',
  title: 'T',
  metric: 'm',
  unit: 'ms',
  pageUrl: 'http://x/benchmarks/s',
  asOf: null,
};
const side = (slug: string, value: number | null, extra: { unresponsive?: boolean; kind?: string } = {}) => ({
  slug,
  value,
  unresponsive: extra.unresponsive ?? false,
  ...(extra.kind ? { kind: extra.kind } : {}),
});

function capture(provider: string, chain: string, token: string, t: number, v: number, probe = 1): Sample[] {
  const labels = { provider, chain, token };
  return [
    { metric: METRICS.tokenTradeCapturePct, labels, t, v },
    { metric: METRICS.tokenTradeProbeOk, labels, t, v: probe },
  ];
}

describe('rule 1: compare never declares a winner it cannot support', () => {
  it('direction comes from higherIsBetter only (fails for a compare that prefers the larger value)', () => {
    const lower = compareRow({ ...base, higherIsBetter: false, a: side('a', 10), b: side('b', 20) });
    expect(lower).toMatchObject({ winner: 'a', delta: -10, comparable: true, reason: null });
    const higher = compareRow({ ...base, higherIsBetter: true, a: side('a', 10), b: side('b', 20) });
    expect(higher.winner).toBe('b');
  });

  it('a null side is not a win for the other; an unresponsive side never wins', () => {
    const noData = compareRow({ ...base, higherIsBetter: true, a: side('a', 90), b: side('b', null) });
    expect(noData).toMatchObject({ winner: 'tie', delta: null, comparable: false, reason: 'no-data:b' });
    const dead = compareRow({
      ...base,
      higherIsBetter: true,
      a: side('a', 100, { unresponsive: true }),
      b: side('b', 50),
    });
    expect(dead).toMatchObject({ winner: 'tie', delta: null, comparable: false, reason: 'unresponsive:a' });
    const c = buildCompare({ slug: 'a', name: 'A' }, { slug: 'b', name: 'B' }, [noData, dead], {
      name: 'S',
      baseUrl: 'http://x',
    });
    expect(c.totalWins).toEqual({ a: 0, b: 0, tie: 2 });
    expect(c.notComparable).toBe(2);
  });

  it('through the publication: an unresponsive provider with the higher value does not win', async () => {
    const t = NOW - H;
    const cycles = [t - 2 * H, t - H, t].map((ct) => ({
      metric: METRICS.providerCycle5xx,
      labels: { benchmark: TRADE, provider: 'bitquery' },
      t: ct,
      v: 1,
    }));
    const f = await fixture({
      samples: [
        ...capture('bitquery', 'solana', 'BONK', t, 100),
        ...capture('codex', 'solana', 'BONK', t, 50),
        ...cycles,
      ],
    });
    const r = await f.publication.compare('bitquery', 'codex');
    if (!r.ok) throw new Error(r.message);
    expect(r.served.value.shared[0]).toMatchObject({
      winner: 'tie',
      comparable: false,
      reason: 'unresponsive:bitquery',
      delta: null,
    });
    // Both also appear in token-trade-recall (a shared spec), where neither has a sample: that row
    // is a tie with no data, so the unresponsive provider still wins nowhere.
    expect(r.served.value.shared.map((s) => s.slug)).toEqual([TRADE, RECALL]);
    expect(r.served.value.shared[1]).toMatchObject({
      winner: 'tie',
      comparable: false,
      reason: 'no-data:bitquery',
      delta: null,
    });
    expect(r.served.value.totalWins).toEqual({ a: 0, b: 0, tie: 2 });
    await f.close();
  });
});

describe('rule 2: like with like', () => {
  it('network-coverage: providers of different kinds are not comparable', async () => {
    const f = await fixture();
    const r = await f.publication.compare('coingecko', 'geckoterminal');
    if (!r.ok) throw new Error(r.message);
    expect(r.served.value.shared[0]).toMatchObject({
      comparable: false,
      reason: 'different-kinds',
      winner: 'tie',
    });
    const same = await f.publication.compare('coingecko', 'coinpaprika');
    if (!same.ok) throw new Error(same.message);
    expect(same.served.value.shared[0]?.comparable).toBe(true);
    await f.close();
  });

  it('token-trade: only (cell, cycle) pairs both providers measured', async () => {
    const t1 = NOW - 2 * H;
    const t2 = NOW - H;
    const f = await fixture({
      samples: [
        // Shared: BONK at t1 (mobula 90, codex 80).
        ...capture('mobula', 'solana', 'BONK', t1, 90),
        ...capture('codex', 'solana', 'BONK', t1, 80),
        // Only mobula and bitquery at t2 (a pooled compare would give mobula a 100 here).
        ...capture('mobula', 'solana', 'BONK', t2, 100),
        ...capture('bitquery', 'solana', 'BONK', t2, 95),
        // Only codex and bitquery on PEPE (a pooled compare would give codex a 100 here).
        ...capture('codex', 'ethereum', 'PEPE', t1, 100),
        ...capture('bitquery', 'ethereum', 'PEPE', t1, 70),
      ],
      // One shared pair: the pair rule is under test, not the minimum sample count.
      minSamples: 1,
    });
    const r = await f.publication.compare('mobula', 'codex');
    if (!r.ok) throw new Error(r.message);
    const row = r.served.value.shared.find((x) => x.slug === TRADE);
    // One paired cycle cannot be significant (sign test p = 1): a statistical tie that keeps its delta.
    expect(row).toMatchObject({ aValue: 90, bValue: 80, winner: 'tie', delta: 10, comparable: true });
    expect(row?.reason).toBe('not-significant');
    expect(row?.significance).toEqual({ test: 'sign-test', pairs: 1, pValue: 1, margin: 0.5 });
    expect(row?.asOf).toBe(new Date(t1).toISOString());
    await f.close();
  });

  it('token-trade: with no shared pair the row is not comparable', async () => {
    const f = await fixture({
      samples: [
        ...capture('mobula', 'solana', 'BONK', NOW - H, 100),
        ...capture('bitquery', 'solana', 'BONK', NOW - H, 90),
        ...capture('codex', 'ethereum', 'PEPE', NOW - 2 * H, 100),
        ...capture('bitquery', 'ethereum', 'PEPE', NOW - 2 * H, 90),
      ],
    });
    const r = await f.publication.compare('mobula', 'codex');
    if (!r.ok) throw new Error(r.message);
    const row = r.served.value.shared.find((x) => x.slug === TRADE);
    // Each side shows its own ranking row's value (issue 20, rule 5), and no verdict.
    expect(row).toMatchObject({ comparable: false, winner: 'tie', delta: null, aValue: 100, bValue: 100 });
    expect(row?.reason).toBe('no-shared-pairs');
    await f.close();
  });
});

describe('rule 3: freshness and age are honest', () => {
  it('a stale benchmark stays in the freshness map, is "stale" everywhere, and a draft is "draft"', async () => {
    // Only network counts from 30 h ago: stale (twice the 6 h cadence passed); no trade sample at all.
    const t = NOW - 30 * H;
    const f = await fixture({
      samples: [{ metric: METRICS.networksSupported, labels: { provider: 'codex' }, t, v: 133 }],
    });
    const fr = await f.publication.freshness();
    expect(fr.now).toBe(NOW);
    expect(fr.freshness).toEqual({ 'network-coverage': t });
    expect(fr.status['network-coverage']).toEqual({
      lastSampleAt: new Date(t).toISOString(),
      ageSeconds: 30 * 3600,
      stale: true,
      draft: false,
    });
    expect(fr.status[TRADE]).toEqual({ lastSampleAt: null, ageSeconds: null, stale: false, draft: true });
    expect(fr.status[RECALL]).toEqual({ lastSampleAt: null, ageSeconds: null, stale: false, draft: true });
    const idx = (await f.publication.citable()).value;
    expect(idx.benchmarks.map((b) => [b.slug, b.status])).toEqual([
      ['network-coverage', 'stale'],
      ['rpc-latency', 'draft'],
      ['rpc-head-lag', 'draft'],
      [TRADE, 'draft'],
      [RECALL, 'draft'],
    ]);
    expect(await f.publication.llmContext().then((s) => decode(s.body))).toContain('- Status: stale');
    // Ages are per request.
    f.clock.now = NOW + 60_000;
    expect((await f.publication.freshness()).status['network-coverage']?.ageSeconds).toBe(30 * 3600 + 60);
    await f.close();
  });
});

describe('rule 4: a carried-forward value is dated by its sample', () => {
  it('the network-coverage headline says "as of <UTC time>", not "(24h)"', async () => {
    const f = await fixture({
      samples: [{ metric: METRICS.networksSupported, labels: { provider: 'codex' }, t: NOW - 5 * H, v: 133 }],
    });
    const { value } = await f.publication.stat('network-coverage', null);
    expect(value.headline).toContain('Codex leads with 133 networks supported (as of 2026-11-20 07:00 UTC)');
    expect(value.headline).not.toContain('24h');
    expect(value.quote).toContain('as of 2026-11-20 07:00 UTC');
    await f.close();
  });
});

describe('rules 5–7: snapshots that never change, pinned links, real date errors', () => {
  it('late samples, a spec edit and a BASE_URL change after the freeze leave the day byte-identical', async () => {
    const f = await fixture({ days: 3 });
    await f.publication.freezeClosedDays();
    const day = '2026-11-19';
    const first = await f.publication.snapshot(day);
    const stat = await f.publication.frozenStat('network-coverage', day);
    if (first.kind !== 'frozen' || stat.kind !== 'ok') throw new Error('expected frozen');
    // A late sample for that day, then a restart with edited specs and another BASE_URL.
    await f.store.append([
      {
        metric: METRICS.networksSupported,
        labels: { provider: 'codex' },
        t: Date.UTC(2026, 10, 19, 23),
        v: 9999,
      },
    ]);
    const edited = f.specs.map((s) => ({ ...s, title: `${s.title} (edited)`, methodology: ['changed'] }));
    const again = createPublication({
      specs: edited,
      store: f.store,
      site: { name: 'Renamed', baseUrl: 'https://elsewhere.example' },
      clock: () => NOW,
    });
    await again.freezeClosedDays();
    const later = await again.snapshot(day);
    const laterStat = await again.frozenStat('network-coverage', day);
    if (later.kind !== 'frozen' || laterStat.kind !== 'ok') throw new Error('expected frozen');
    expect(decode(later.served.body)).toBe(decode(first.served.body));
    expect(decode(laterStat.served.body)).toBe(decode(stat.served.body));
    expect(f.publication.lateWrites).toBe(1);
    // The spec text the day was computed with is stored beside it.
    expect(decode((await f.store.getSnapshot(`specs:${day}`))?.body ?? new Uint8Array())).toContain(
      'Onchain data API with most networks supported',
    );
    again.close();
    await f.close();
  });

  it("every link inside a snapshot is pinned to its day, and the frozen Stat carries that day's citation", async () => {
    const f = await fixture({ days: 3 });
    await f.publication.freezeClosedDays();
    const snap = await f.publication.snapshot('2026-11-18');
    if (snap.kind !== 'frozen') throw new Error('expected frozen');
    const row = JSON.parse(decode(snap.served.body)).benchmarks[0];
    expect(row.api).toBe('http://bench.test/api/stat/network-coverage?date=2026-11-18');
    expect(row.url).toBe('http://bench.test/benchmarks/network-coverage?date=2026-11-18');
    expect(row.ogImage).toBe('http://bench.test/api/og/network-coverage?date=2026-11-18');
    const st = await f.publication.frozenStat('network-coverage', '2026-11-18');
    if (st.kind !== 'ok') throw new Error('expected frozen stat');
    const stat = JSON.parse(decode(st.served.body)) as Stat;
    expect(stat.rankings.every((r) => r.audit.endsWith('?date=2026-11-18'))).toBe(true);
    expect(stat.cite.plain).toContain('Frozen snapshot of 2026-11-18');
    expect(stat.cite.plain).not.toContain('Retrieved');
    expect(stat.cite.plain).toContain('?date=2026-11-18');
    // Only the day's own samples: no value carried in from the day before.
    expect(Date.parse(stat.asOf ?? '')).toBeGreaterThanOrEqual(Date.UTC(2026, 10, 18));
    await f.close();
  });

  it('date errors name the real reason', async () => {
    const f = await fixture({ days: 3 });
    expect(await f.publication.snapshot('0000-01-01')).toMatchObject({
      kind: 'bad_date',
      message: expect.stringMatching(/before the first snapshot/),
    });
    expect(await f.publication.snapshot('2026-13-01')).toMatchObject({
      kind: 'bad_date',
      message: /not a calendar date/,
    });
    await f.close();
  });
});

describe('rules 6, 8, 9, 11 over HTTP', () => {
  const t = serverWithApi();
  const get = async (template: string, path: string, init?: RequestInit) => {
    const res = await t.srv.get(path, init);
    const body = await res.text();
    if (init?.method !== 'HEAD') t.api.check(template, 'get', res, body);
    return { res, body };
  };

  it('GET /api/stat/{slug}?date= serves the frozen Stat byte-identical; 400 bad date, 404 unfrozen day', async () => {
    const a = await get('/api/stat/{slug}', '/api/stat/network-coverage?date=2026-11-19');
    expect(a.res.status).toBe(200);
    expect(a.res.headers.get('cache-control')).toContain('immutable');
    expect(JSON.parse(a.body).api).toBe('http://bench.test/api/stat/network-coverage?date=2026-11-19');
    const b = await get('/api/stat/{slug}', '/api/stat/network-coverage?date=2026-11-19');
    expect(b.body).toBe(a.body);
    expect((await get('/api/stat/{slug}', '/api/stat/network-coverage?date=2026-19-19')).res.status).toBe(
      400,
    );
    expect((await get('/api/stat/{slug}', '/api/stat/network-coverage?date=0000-01-01')).res.status).toBe(
      400,
    );
    expect((await get('/api/stat/{slug}', '/api/stat/network-coverage?date=2026-11-20')).res.status).toBe(
      404,
    );
    const page = await t.srv.get('/benchmarks/network-coverage?date=2026-11-19');
    expect(page.status).toBe(200);
  });

  it('dated citations in every format; the live one cannot be cached past 00:00 UTC', async () => {
    for (const fmt of ['bib', 'ris', 'apa', 'txt']) {
      const r = await get(
        '/api/cite/{slug}/{format}',
        `/api/cite/token-trade-coverage/${fmt}?date=2026-11-18`,
      );
      expect(r.res.status, fmt).toBe(200);
      expect(r.body, fmt).toContain('2026');
      expect(r.body, fmt).toContain('date=2026-11-18');
      expect(r.res.headers.get('cache-control')).toContain('immutable');
    }
    const live = await get('/api/cite/{slug}/{format}', '/api/cite/token-trade-coverage/txt');
    expect(live.body).toContain('Retrieved 2026-11-20');
    // NOW is 12:00 UTC: 12 h left in the day, so the hour cap applies; at 23:59:30 only 30 s remain.
    expect(live.res.headers.get('cache-control')).toBe('public, max-age=3600');
    t.srv.clock.now = Date.UTC(2026, 10, 20, 23, 59, 30);
    const late = await get('/api/cite/{slug}/{format}', '/api/cite/token-trade-coverage/txt');
    expect(late.res.headers.get('cache-control')).toBe('public, max-age=30');
    t.srv.clock.now = NOW;
  });

  it('a repeated query parameter is 400, not the first value silently; long values are refused', async () => {
    const rep = await get('/api/stat/{slug}', '/api/stat/token-trade-coverage?chain=solana&chain=base');
    expect(rep.res.status).toBe(400);
    expect(JSON.parse(rep.body).error).toBe('repeated_parameter');
    const long = await get('/api/stat/{slug}', `/api/stat/token-trade-coverage?chain=${'x'.repeat(500)}`);
    expect(long.res.status).toBe(400);
    expect(long.body.length).toBeLessThan(300);
  });

  it('/api/llm-context keeps its ETag while the data does not change, across a recompute', async () => {
    const pub = t.srv.service.publication;
    const a = await t.srv.get('/api/llm-context');
    await a.text();
    const before = await pub.llmContext();
    // Past the view's age and its stale-while-recompute allowance (60 + 60 s): b is recomputed.
    t.srv.clock.now = NOW + 200_000;
    expect(pub.isCurrent(before)).toBe(false);
    const b = await t.srv.get('/api/llm-context');
    await b.text();
    // The recompute b started runs over several turns of the loop (a Stat yields between its
    // steps); the expired view is answered meanwhile. Once it is done, the new view has the ETag.
    // Quiet, within a few ms; the bound (vi.waitFor's default is 1 s) is against a hang only.
    await vi.waitFor(async () => expect(await pub.llmContext()).not.toBe(before), { timeout: 30_000 });
    const c = await t.srv.get('/api/llm-context');
    await c.text();
    t.srv.clock.now = NOW;
    expect(b.headers.get('etag')).toBe(a.headers.get('etag'));
    expect(c.headers.get('etag')).toBe(a.headers.get('etag'));
  });

  it('HEAD carries Content-Length, CORS exposes ETag, a trailing slash redirects 308', async () => {
    const get1 = await t.srv.get('/api/citable');
    const len = (await get1.arrayBuffer()).byteLength;
    const head = await t.srv.get('/api/citable', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(len));
    expect(get1.headers.get('access-control-expose-headers')).toMatch(/ETag/);
    expect(get1.headers.get('access-control-expose-headers')).toMatch(/Retry-After/);
    const slash = await t.srv.get('/api/stat/network-coverage/?kind=dex-index', { redirect: 'manual' });
    expect(slash.status).toBe(308);
    expect(slash.headers.get('location')).toBe('/api/stat/network-coverage?kind=dex-index');
  });

  it('the OpenAPI document lists 304, 405 and 503 for every GET route, and a 304 validates', async () => {
    const doc = await (await t.srv.get('/api/openapi.json')).json();
    for (const [path, item] of Object.entries(doc.paths as Record<string, { get?: { responses: object } }>)) {
      if (!item.get) continue;
      for (const code of ['304', '405', '503'])
        expect(Object.keys(item.get.responses), `${path} ${code}`).toContain(code);
    }
    const first = await t.srv.get('/api/citable');
    await first.text();
    const cond = await get('/api/citable', '/api/citable', {
      headers: { 'if-none-match': first.headers.get('etag') ?? '' },
    });
    expect(cond.res.status).toBe(304);
    const post = await t.srv.get('/api/citable', { method: 'POST' });
    t.api.check('/api/citable', 'get', post, await post.text());
    expect(post.status).toBe(405);
  });
});

describe('rule 10: trending never lists a 0% mover', () => {
  const stat = (slug: string, value: number): Stat =>
    ({
      slug,
      title: slug,
      category: 'c',
      metric: 'm',
      unit: 'count',
      value,
      status: 'live',
      leader: { name: 'L', slug: 'l', value },
      pageUrl: `http://x/${slug}`,
      asOf: null,
    }) as unknown as Stat;

  it('lists a real mover (fails for an implementation that hard-codes trending: [])', () => {
    const f = buildFeatured([stat('a', 110)], new Map([['a', stat('a', 100)]]));
    expect(f.trending.map((c) => c.slug)).toEqual(['a']);
  });

  it('never lists a benchmark whose value did not move', () => {
    const f = buildFeatured(
      [stat('a', 100), stat('b', 50)],
      new Map([
        ['a', stat('a', 100)],
        ['b', stat('b', 40)],
      ]),
    );
    expect(f.trending.map((c) => c.slug)).toEqual(['b']);
  });

  it('the demo dataset gives a payload without zero movers', async () => {
    const f = await fixture({ samples: buildDataset({ seed: 7, days: 3, end: NOW }) });
    const { value } = await f.publication.featured();
    for (const c of value.trending) expect(c.change24h?.from).not.toBe(c.change24h?.to);
    await f.close();
  });
});

describe('the methodology page states the rules', () => {
  it('GET /methodology lists aggregation, compare, staleness, snapshots and citations, and each spec', async () => {
    const srv = await startServer();
    try {
      const res = await srv.get('/methodology');
      expect(res.status).toBe(200);
      const html = await res.text();
      for (const phrase of [
        'at least two providers were measured',
        'not comparable',
        'twice its cadence',
        '10 minutes after it closes',
        '?date=',
        'Retrieved &lt;today&gt;',
        'Fair aggregation',
      ]) {
        expect(html, phrase).toContain(phrase);
      }
    } finally {
      await srv.close();
    }
  });
});
