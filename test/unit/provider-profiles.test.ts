import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ProviderListing,
  type ProviderProfile,
  providerListingSchema,
  providerProfileSchema,
  type Stat,
} from '../../src/core/api-schemas.ts';
import { DAY_MS, dayEnd, dayStart } from '../../src/core/dates.ts';
import { buildProviderProfile } from '../../src/core/provider-profile.ts';
import { PROVIDERS } from '../../src/core/providers.ts';
import { round6 } from '../../src/core/stats.ts';
import { buildDataset } from '../../src/demo/dataset.ts';
import { providerPage } from '../../src/pages/provider-page.ts';
import { fixture, NOW } from '../helpers/fixture.ts';
import { type Running, startServer } from '../helpers/server.ts';

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const TODAY = day(NOW);
/** Ten days of samples: today − 7 and some closed day's − 7 are frozen days. */
const FIRST = day(dayStart(NOW) - 9 * DAY_MS);
const WEEK_AGO = day(dayStart(NOW) - 7 * DAY_MS);
const CLOSED = day(dayStart(NOW) - DAY_MS);

let srv: Running;
let short: Running;
beforeAll(async () => {
  srv = await startServer({ samples: buildDataset({ seed: 7, days: 10, end: NOW }) });
  // The default three days: today − 7 is before the first frozen day.
  short = await startServer();
});
afterAll(async () => {
  await srv?.close();
  await short?.close();
});

const json = async <T>(r: Running, path: string): Promise<T> => {
  const res = await r.get(path);
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
};

const specsListing = (slug: string) =>
  srv.service.publication.specs.filter((s) => s.providers.some((p) => p.slug === slug));

describe('GET /api/providers', () => {
  it('lists every catalogue provider with how many specs list it, and links to its profile', async () => {
    const body = await json<ProviderListing>(srv, '/api/providers');
    expect(body.providers.map((p) => p.slug)).toEqual([...PROVIDERS.keys()]);
    for (const p of body.providers) {
      const info = PROVIDERS.get(p.slug);
      expect(p).toEqual({
        slug: p.slug,
        name: info?.name,
        website: info?.website,
        benchmarks: specsListing(p.slug).length,
        page: `http://bench.test/providers/${p.slug}`,
        api: `http://bench.test/api/providers/${p.slug}`,
      });
    }
    expect(body.providers.some((p) => p.benchmarks > 1)).toBe(true);
  });

  it('answers 304 to its ETag', async () => {
    const first = await srv.get('/api/providers');
    const etag = first.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"/);
    const again = await srv.get('/api/providers', { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
  });
});

describe('GET /api/providers/{slug}', () => {
  it('has one entry per spec listing the provider, read from its unfiltered Stat', async () => {
    for (const slug of ['mobula', 'codex', 'alchemy']) {
      const p = await json<ProviderProfile>(srv, `/api/providers/${slug}`);
      const specs = specsListing(slug);
      expect(p.provider).toEqual({
        slug,
        name: PROVIDERS.get(slug)?.name,
        website: PROVIDERS.get(slug)?.website,
      });
      expect(p.license).toBe('CC-BY-4.0');
      expect(p.benchmarks.map((b) => b.slug)).toEqual(specs.map((s) => s.slug));
      for (const b of p.benchmarks) {
        const stat = await json<Stat>(srv, `/api/stat/${b.slug}`);
        const row = stat.rankings.find((r) => r.slug === slug);
        expect(b.title).toBe(stat.title);
        expect(b.unit).toBe(stat.unit);
        expect(b.higherIsBetter).toBe(stat.higherIsBetter);
        expect(b.rank).toBe(row?.rank ?? null);
        expect(b.value).toBe(row?.ms.p50 ?? null);
        expect(b.ci95).toEqual(row?.ci95?.p50 ?? null);
        expect(b.successRate).toBe(row?.successRate ?? null);
        expect(b.sampleSize).toBe(row?.sampleSize ?? 0);
        expect(b.tiedWithLeader).toBe(row?.tiedWithLeader === true);
        const expected =
          row === undefined
            ? 'noData'
            : row.rank !== null
              ? null
              : row.unresponsive
                ? 'unresponsive'
                : row.noComparison
                  ? 'noComparison'
                  : 'insufficientData';
        expect(b.unranked).toBe(expected);
        expect(b.links.page).toBe(stat.pageUrl);
        expect(b.links.api).toBe(stat.api);
        if (row) expect(b.links.audit).toBe(row.audit);
        const leader = stat.leader?.slug;
        expect(b.links.compare).toBe(
          leader === undefined || leader === slug ? null : `http://bench.test/compare/${slug}-vs-${leader}`,
        );
      }
      const times = (await Promise.all(p.benchmarks.map((b) => json<Stat>(srv, `/api/stat/${b.slug}`))))
        .map((s) => s.asOf)
        .filter((t): t is string => t !== null)
        .sort();
      expect(p.asOf).toBe(times.at(-1) ?? null);
    }
  });

  it("a leader's entry names the providers statistically tied with it; its page says so", async () => {
    for (const spec of srv.service.specs) {
      const stat = await json<Stat>(srv, `/api/stat/${spec.slug}`);
      const tied = stat.rankings.filter((r) => r.tiedWithLeader === true).map((r) => r.slug);
      for (const row of stat.rankings) {
        const p = await json<ProviderProfile>(srv, `/api/providers/${row.slug}`);
        const b = p.benchmarks.find((x) => x.slug === spec.slug);
        const leads = stat.leader?.slug === row.slug;
        expect(b?.tiedAtTop, `${row.slug} on ${spec.slug}`).toEqual(leads ? tied : []);
        if (leads && tied.length > 0) {
          const html = await (await srv.get(`/providers/${row.slug}`)).text();
          const card = html
            .split('data-testid="profile-benchmark"')
            .find((c) => c.includes(`data-slug="${spec.slug}"`));
          expect(card).toContain(`Statistically tied at the top with ${PROVIDERS.get(tied[0] ?? '')?.name}`);
        }
      }
    }
    // The fixture's tops happen to be separable , so the tie itself is exercised
    // on a copy of a real Stat whose second and third rows are tied with the leader.
    const stat = await json<Stat>(srv, '/api/stat/token-trade-coverage');
    const [top, second, third] = stat.rankings;
    if (!top || !second || !third) throw new Error('the fixture ranks three providers');
    const tiedStat: Stat = {
      ...stat,
      rankings: stat.rankings.map((r) => (r === second || r === third ? { ...r, tiedWithLeader: true } : r)),
    };
    const info = PROVIDERS.get(top.slug);
    if (!info) throw new Error('catalogue provider');
    const profile = buildProviderProfile({
      provider: info,
      stats: [tiedStat],
      weekAgo: { date: '2026-11-13', stats: new Map() },
      site: { name: 'Bench', baseUrl: 'http://bench.test' },
      day: null,
      simulated: false,
    });
    expect(profile.benchmarks[0]?.tiedAtTop).toEqual([second.slug, third.slug]);
    const html = providerPage(profile, {
      siteName: 'Bench',
      url: 'http://bench.test/providers/x',
      day: null,
    });
    expect(html).toContain(
      `Statistically tied at the top with ${PROVIDERS.get(second.slug)?.name} and ${PROVIDERS.get(third.slug)?.name}`,
    );
  });

  it('names a leader with a null compare link and a follower with one to the leader', async () => {
    const stat = await json<Stat>(srv, '/api/stat/network-coverage');
    const leader = stat.leader?.slug as string;
    const other = stat.rankings.find((r) => r.rank !== null && r.slug !== leader)?.slug as string;
    const lead = await json<ProviderProfile>(srv, `/api/providers/${leader}`);
    expect(lead.benchmarks.find((b) => b.slug === 'network-coverage')?.links.compare).toBeNull();
    const follow = await json<ProviderProfile>(srv, `/api/providers/${other}`);
    expect(follow.benchmarks.find((b) => b.slug === 'network-coverage')?.links.compare).toBe(
      `http://bench.test/compare/${other}-vs-${leader}`,
    );
  });

  it('weekAgo is the row of the Stat frozen for today − 7 (the bytes of /api/stat?date=), change = value − it', async () => {
    const p = await json<ProviderProfile>(srv, '/api/providers/mobula');
    let withRow = 0;
    for (const b of p.benchmarks) {
      const frozen = await json<Stat>(srv, `/api/stat/${b.slug}?date=${WEEK_AGO}`);
      const then = frozen.rankings.find((r) => r.slug === 'mobula');
      if (!then) {
        expect(b.weekAgo).toBeNull();
        continue;
      }
      withRow++;
      expect(b.weekAgo).toEqual({ date: WEEK_AGO, value: then.ms.p50, rank: then.rank });
      expect(b.change).toBe(b.value === null ? null : round6(b.value - then.ms.p50));
    }
    expect(withRow).toBeGreaterThan(0);
  });

  it('weekAgo is never recomputed: a late write into that day changes a recomputation, not the profile', async () => {
    const pub = srv.service.publication;
    const slug = 'network-coverage';
    const before = await json<Stat>(srv, `/api/stat/${slug}?date=${WEEK_AGO}`);
    const row = before.rankings.find((r) => r.slug === 'mobula');
    expect(row).toBeDefined();
    // Mobula's listing read again at 23:00 that day, with an absurd count.
    const at = dayStart(NOW) - 7 * DAY_MS + 23 * 3_600_000;
    const labels = { provider: 'mobula', region: 'eu-west' };
    await srv.service.store.append([{ metric: 'networks_supported', labels, t: at, v: 9999 }]);
    const recomputed = await pub.statAt(slug, null, dayEnd(dayStart(at)));
    expect(recomputed.rankings.find((r) => r.slug === 'mobula')?.ms.p50).toBe(9999);
    const p = await json<ProviderProfile>(srv, '/api/providers/mobula');
    const b = p.benchmarks.find((x) => x.slug === slug);
    expect(b?.weekAgo).toEqual({ date: WEEK_AGO, value: row?.ms.p50, rank: row?.rank });
    expect(b?.weekAgo?.value).not.toBe(9999);
  });

  it('weekAgo and change are null when today − 7 is before the first frozen day', async () => {
    const p = await json<ProviderProfile>(short, '/api/providers/mobula');
    expect(p.benchmarks.length).toBeGreaterThan(0);
    expect((await short.get(`/api/stat/network-coverage?date=${WEEK_AGO}`)).status).toBe(400);
    for (const b of p.benchmarks) {
      expect(b.weekAgo).toBeNull();
      expect(b.change).toBeNull();
    }
    // As for a dated profile whose D − 7 is before the first day.
    const first = await json<ProviderProfile>(srv, `/api/providers/mobula?date=${FIRST}`);
    for (const b of first.benchmarks) expect(b.weekAgo).toBeNull();
  });

  it('?date= is built from that day’s frozen Stats and D − 7’s, immutable and byte-stable', async () => {
    const path = `/api/providers/codex?date=${CLOSED}`;
    const res = await srv.get(path);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toContain('immutable');
    expect(res.headers.get('x-snapshot-date')).toBe(CLOSED);
    const text = await res.text();
    const p = JSON.parse(text) as ProviderProfile;
    const back = day(dayStart(Date.parse(CLOSED)) - 7 * DAY_MS);
    for (const b of p.benchmarks) {
      const frozen = await json<Stat>(srv, `/api/stat/${b.slug}?date=${CLOSED}`);
      const row = frozen.rankings.find((r) => r.slug === 'codex');
      expect(b.value).toBe(row?.ms.p50 ?? null);
      expect(b.rank).toBe(row?.rank ?? null);
      expect(b.links.page).toBe(frozen.pageUrl);
      expect(b.links.page).toContain(`date=${CLOSED}`);
      const then = (await json<Stat>(srv, `/api/stat/${b.slug}?date=${back}`)).rankings.find(
        (r) => r.slug === 'codex',
      );
      expect(b.weekAgo).toEqual(then ? { date: back, value: then.ms.p50, rank: then.rank } : null);
    }
    // An append drops every live view; a dated profile, built from frozen bytes, stays byte-identical.
    await srv.service.store.append([
      {
        metric: 'networks_supported',
        labels: { provider: 'codex', region: 'eu-west' },
        t: NOW - 1000,
        v: 4242,
      },
    ]);
    expect(await (await srv.get(path)).text()).toBe(text);
    const again = await srv.get(path, { headers: { 'if-none-match': res.headers.get('etag') ?? '' } });
    expect(again.status).toBe(304);
  });

  it('the live profile is cached (304) and recomputed when a benchmark gets samples', async () => {
    const first = await srv.get('/api/providers/geckoterminal');
    const etag = first.headers.get('etag') ?? '';
    const body = (await first.json()) as ProviderProfile;
    expect(
      (await srv.get('/api/providers/geckoterminal', { headers: { 'if-none-match': etag } })).status,
    ).toBe(304);
    const before = body.benchmarks.find((b) => b.slug === 'network-coverage')?.value;
    // A listing read after the dataset's last one (at NOW), half a minute later.
    srv.clock.now = NOW + 60_000;
    try {
      await srv.service.store.append([
        {
          metric: 'networks_supported',
          labels: { provider: 'geckoterminal', region: 'eu-west' },
          t: NOW + 30_000,
          v: (before ?? 0) + 77,
        },
      ]);
      const after = await json<ProviderProfile>(srv, '/api/providers/geckoterminal');
      expect(after.benchmarks.find((b) => b.slug === 'network-coverage')?.value).toBe((before ?? 0) + 77);
    } finally {
      srv.clock.now = NOW;
    }
  });
});

describe('provider profile errors', () => {
  const cases: ReadonlyArray<[path: string, status: number, error: string, message?: RegExp]> = [
    ['/api/providers/nobody', 404, 'unknown_provider', /Valid slugs: .*mobula/],
    ['/api/providers/nobody?date=2026-13-01', 404, 'unknown_provider'],
    ['/api/providers/Bad_Slug', 400, 'bad_slug'],
    [`/api/providers/mobula?date=${TODAY}`, 404, 'not_frozen', /is today.*\/api\/providers\/mobula/],
    ['/api/providers/mobula?date=2026-13-01', 400, 'bad_date', /not a calendar date/],
    ['/api/providers/mobula?date=yesterday', 400, 'bad_date', /YYYY-MM-DD/],
    ['/api/providers/mobula?date=2027-01-01', 400, 'bad_date', /future/],
    ['/api/providers/mobula?date=2020-01-01', 400, 'bad_date', /before the first snapshot/],
    [`/api/providers/mobula?date=${CLOSED}&date=${CLOSED}`, 400, 'repeated_parameter'],
  ];
  it.each(cases)('%s → %i %s', async (path, status, error, message) => {
    const res = await srv.get(path);
    expect(res.status).toBe(status);
    const body = (await res.json()) as { error: string; message: string };
    expect(body.error).toBe(error);
    if (message) expect(body.message).toMatch(message);
  });

  it('the dated answers use /api/stat?date= messages', async () => {
    for (const date of ['2026-13-01', '2027-01-01', '2020-01-01']) {
      const stat = (await (await srv.get(`/api/stat/network-coverage?date=${date}`)).json()) as {
        message: string;
      };
      const prof = (await (await srv.get(`/api/providers/mobula?date=${date}`)).json()) as {
        message: string;
      };
      expect(prof.message).toBe(stat.message);
    }
  });
});

describe('the OpenAPI document', () => {
  it('documents both routes with their schemas', async () => {
    const doc = (await (await srv.get('/api/openapi.json')).json()) as {
      paths: Record<string, { get?: { operationId?: string; responses: Record<string, unknown> } }>;
      components: { schemas: Record<string, unknown> };
    };
    expect(doc.paths['/api/providers']?.get?.operationId).toBe('list_providers');
    expect(doc.paths['/api/providers/{slug}']?.get?.operationId).toBe('get_provider');
    expect(Object.keys(doc.paths['/api/providers/{slug}']?.get?.responses ?? {})).toEqual(
      expect.arrayContaining(['200', '400', '404']),
    );
    expect(doc.components.schemas.ProviderProfile).toBeDefined();
    expect(doc.components.schemas.ProviderListing).toBeDefined();
  });

  it('every answer validates against its schema (live, dated, simulated-free listing)', async () => {
    providerListingSchema.parse(await json(srv, '/api/providers'));
    for (const path of [
      '/api/providers/mobula',
      '/api/providers/alchemy',
      `/api/providers/codex?date=${CLOSED}`,
    ])
      providerProfileSchema.parse(await json(srv, path));
  });
});

describe('MCP get_provider', () => {
  let client: Client;
  beforeAll(async () => {
    client = new Client({ name: 'profile-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${srv.url}/api/mcp/mcp`)));
  });
  afterAll(() => client?.close());

  const call = (args: Record<string, unknown>) =>
    client.callTool({ name: 'get_provider', arguments: args }) as Promise<{
      structuredContent?: unknown;
      content: { type: string; text: string }[];
      isError?: boolean;
    }>;

  it('returns exactly the HTTP JSON, live and dated', async () => {
    for (const [args, path] of [
      [{ slug: 'mobula' }, '/api/providers/mobula'],
      [{ slug: 'codex', date: CLOSED }, `/api/providers/codex?date=${CLOSED}`],
    ] as const) {
      const r = await call(args);
      const http = await (await srv.get(path)).text();
      expect(r.isError, path).toBeFalsy();
      expect(r.content[0]?.text).toBe(http);
      expect(r.structuredContent).toEqual(JSON.parse(http));
    }
  });

  it('errors as HTTP does: unknown provider, malformed slug, bad date, today', async () => {
    for (const [args, path] of [
      [{ slug: 'nobody' }, '/api/providers/nobody'],
      [{ slug: 'Bad_Slug' }, '/api/providers/Bad_Slug'],
      [{ slug: 'mobula', date: '2026-13-01' }, '/api/providers/mobula?date=2026-13-01'],
      [{ slug: 'mobula', date: 'yesterday' }, '/api/providers/mobula?date=yesterday'],
      [{ slug: 'mobula', date: TODAY }, `/api/providers/mobula?date=${TODAY}`],
    ] as const) {
      const r = await call(args);
      const http = (await (await srv.get(path)).json()) as { error: string; message: string };
      expect(r.isError, path).toBe(true);
      expect(r.content[0]?.text).toBe(`${http.error}: ${http.message}`);
    }
  });
});

describe('the /providers/{slug} page', () => {
  it('shows each benchmark with rank or reason, value and interval, success rate, samples, 7 days ago and links', async () => {
    const p = await json<ProviderProfile>(srv, '/api/providers/mobula');
    const res = await srv.get('/providers/mobula');
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('<h1>Mobula</h1>');
    expect(html).toContain(`href="${PROVIDERS.get('mobula')?.website}"`);
    const cards = html.split('data-testid="profile-benchmark"').slice(1);
    expect(cards).toHaveLength(p.benchmarks.length);
    p.benchmarks.forEach((b, i) => {
      const card = cards[i] ?? '';
      expect(card).toContain(`data-slug="${b.slug}"`);
      expect(card).toContain(b.rank !== null ? `Rank ${b.rank}` : 'unranked');
      expect(card).toContain(`Samples: ${b.sampleSize.toLocaleString('en-US')}`);
      expect(card).toContain(new URL(b.links.audit).pathname);
      if (b.ci95) expect(card).toContain('95% CI');
      if (b.weekAgo)
        expect(card).toContain(
          `7 days ago (<a href="/api/stat/${b.slug}?date=${b.weekAgo.date}">${b.weekAgo.date}</a>)`,
        );
      if (b.links.compare) expect(card).toContain(new URL(b.links.compare).pathname);
      if (b.tiedWithLeader) expect(card).toContain('tied-note');
    });
    expect(html).toContain('href="/api/providers/mobula"');
  });

  it('says "simulated" on simulated data', async () => {
    const sim = await startServer({ simulated: true });
    try {
      const html = await (await sim.get('/providers/codex')).text();
      expect(html).toContain('data-testid="simulated-banner"');
      expect(html).toContain('simulated data');
      expect(((await (await sim.get('/api/providers/codex')).json()) as ProviderProfile).simulated).toBe(
        true,
      );
    } finally {
      await sim.close();
    }
  });

  it('is linked from the leaderboard, the rankings and the compare page', async () => {
    const home = await (await srv.get('/')).text();
    const board = await json<Stat>(srv, '/api/stat/token-trade-coverage');
    const top = board.rankings.find((r) => r.rank === 1);
    expect(home).toContain(`<a href="/providers/${top?.slug}">${top?.name}</a>`);
    const page = await (await srv.get('/benchmarks/token-trade-coverage')).text();
    for (const r of board.rankings) expect(page).toContain(`<a href="/providers/${r.slug}">${r.name}</a>`);
    const cmp = await (await srv.get('/compare/mobula-vs-codex')).text();
    expect(cmp).toContain('<a href="/providers/mobula">Mobula</a> vs <a href="/providers/codex">Codex</a>');
  });

  it('a dated page is pinned to the frozen profile; errors are HTML pages', async () => {
    const res = await srv.get(`/providers/codex?date=${CLOSED}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toContain('immutable');
    expect(await res.text()).toContain(`frozen ${CLOSED}`);
    for (const [path, status] of [
      ['/providers/nobody', 404],
      [`/providers/mobula?date=${TODAY}`, 404],
      ['/providers/mobula?date=2027-01-01', 400],
    ] as const) {
      const r = await srv.get(path);
      expect(r.status, path).toBe(status);
      expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    }
  });
});

describe('a dated profile whose D − 7 is closed but not frozen yet', () => {
  it('waits (not_frozen with Retry-After) instead of freezing a null, then reads the frozen row', async () => {
    const f = await fixture({ days: 10 });
    try {
      const back = day(dayStart(Date.parse(CLOSED)) - 7 * DAY_MS);
      await f.publication.freezeDay(CLOSED);
      const pending = await f.publication.providerProfile('codex', CLOSED);
      expect(pending.kind).toBe('not_frozen');
      expect(pending.kind === 'not_frozen' && pending.retryAfter).toBeGreaterThan(0);
      // The live profile is not immutable: today − 7 not frozen yet reads as no snapshot.
      const live = await f.publication.providerProfile('codex', null);
      expect(live.kind === 'ok' && live.served.value.benchmarks.every((b) => b.weekAgo === null)).toBe(true);
      await f.publication.freezeDay(back);
      const ready = await f.publication.providerProfile('codex', CLOSED);
      expect(ready.kind).toBe('ok');
      const frozen = await f.publication.frozenStat('network-coverage', back);
      const stat = JSON.parse(
        new TextDecoder().decode(frozen.kind === 'ok' ? frozen.served.body : new Uint8Array()),
      ) as Stat;
      const row = stat.rankings.find((r) => r.slug === 'codex');
      const b =
        ready.kind === 'ok'
          ? ready.served.value.benchmarks.find((x) => x.slug === 'network-coverage')
          : undefined;
      expect(b?.weekAgo).toEqual({ date: back, value: row?.ms.p50, rank: row?.rank });
    } finally {
      await f.close();
    }
  }, 60_000);
});
