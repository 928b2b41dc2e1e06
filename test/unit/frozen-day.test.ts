/**
 * A frozen day never changes (issue 28, items 1–4 and 21): its dated citation and audits are built
 * only from what was frozen with it, a failed freeze is retried with backoff and answered 503 until
 * then, late writes made while the service was stopped are counted, and the freezer's timer and
 * grace hold at their boundaries.
 */
import type { Hono } from 'hono';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { testConfig } from '../../src/config.ts';
import type { Stat } from '../../src/core/api-schemas.ts';
import { isStale } from '../../src/core/stat.ts';
import { METRICS } from '../../src/harness/families/metric-names.ts';
import { buildApp } from '../../src/http/app.ts';
import { registerPageRoutes } from '../../src/pages/routes.ts';
import { closedBefore } from '../../src/publication/day-freezer.ts';
import { retryDelayMs } from '../../src/publication/freeze-retry.ts';
import { createPublication, type Publication } from '../../src/publication/publication.ts';
import { createImageService, registerImageRoutes } from '../../src/render/routes.ts';
import { type Fixture, fixture, H, NOW } from '../helpers/fixture.ts';

const DAY = '2026-11-19';
const NET = 'network-coverage';
const TRADE = 'token-trade-coverage';

function appFor(
  f: Fixture,
  pub: Publication,
  site: { name: string; baseUrl: string },
  withPagesAndImages = false,
): Hono {
  const deps = {
    config: testConfig({ siteName: site.name, baseUrl: site.baseUrl }),
    publication: pub,
    store: f.store,
    metrics: new Registry(),
    clock: () => f.clock.now,
  };
  return buildApp({
    ...deps,
    ...(withPagesAndImages
      ? {
          extraRoutes: [
            (app: Hono) => {
              const images = createImageService(deps);
              registerImageRoutes(app, deps, images);
              closers.push(() => images.close());
            },
            (app: Hono) => registerPageRoutes(app, pub, deps.clock),
          ],
        }
      : {}),
  });
}
const closers: (() => Promise<void> | void)[] = [];

/** A restart on the same store with another SITE_NAME and BASE_URL. */
function restarted(f: Fixture): Publication {
  return createPublication({
    specs: f.specs,
    store: f.store,
    site: { name: 'Renamed', baseUrl: 'https://elsewhere.example' },
    clock: () => f.clock.now,
  });
}

/**
 * Polls without timers (some tests fake setTimeout): each turn lets I/O and the freezer run. Bounded
 * by wall time, not by turns: a loaded CI machine runs fewer turns per freeze. Quiet, each condition
 * holds within ~0.1 s; the bound is against a hang only.
 */
async function until(cond: () => boolean | Promise<boolean>, withinMs = 30_000): Promise<void> {
  for (const deadline = performance.now() + withinMs; performance.now() < deadline; ) {
    if (await cond()) return;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error('condition not reached');
}

async function answer(app: Hono, path: string) {
  const res = await app.request(path);
  return { res, body: await res.text() };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('item 1: a dated CSL is built from what was frozen with its day', () => {
  it('is byte-identical, file name included, after a restart with another SITE_NAME', async () => {
    const f = await fixture({ days: 3 });
    await f.publication.freezeClosedDays();
    const path = `/api/cite/${NET}/csl?date=${DAY}`;
    const a = await answer(
      appFor(f, f.publication, { name: 'Citebench', baseUrl: 'http://bench.test' }),
      path,
    );
    expect(a.res.status).toBe(200);
    expect(JSON.parse(a.body)[0].author).toEqual([{ literal: 'Citebench' }]);
    const again = restarted(f);
    const b = await answer(appFor(f, again, { name: 'Renamed', baseUrl: 'https://elsewhere.example' }), path);
    expect(b.body).toBe(a.body);
    expect(b.res.headers.get('content-disposition')).toBe(a.res.headers.get('content-disposition'));
    expect(b.res.headers.get('content-disposition')).toContain('citebench-network-coverage-2026-11-19');
    again.close();
    await f.close();
  });
});

describe('item 2: dated audits are frozen with the day', () => {
  it('are immutable, pinned to the day, and unchanged by late samples and a new BASE_URL', async () => {
    const f = await fixture({ days: 3 });
    await f.publication.freezeClosedDays();
    const app = appFor(f, f.publication, { name: 'Citebench', baseUrl: 'http://bench.test' });
    // The links a frozen Stat carries: a listing's audit, and a window row's 24 h audit.
    const stat = JSON.parse((await answer(app, `/api/stat/${TRADE}?date=${DAY}`)).body) as Stat;
    const windowLink = stat.rankings[0]?.audit.replace('http://bench.test', '') ?? '';
    expect(windowLink).toMatch(/\?window=24h&date=2026-11-19$/);
    const paths = [
      `/api/audit/${NET}/mobula?date=${DAY}`,
      windowLink,
      `/api/audit/${TRADE}/mobula?date=${DAY}`,
    ];
    const first = [];
    for (const p of paths) {
      const r = await answer(app, p);
      expect(r.res.status, p).toBe(200);
      expect(r.res.headers.get('cache-control'), p).toContain('immutable');
      expect(JSON.parse(r.body).pageUrl, p).toMatch(/\/benchmarks\/[a-z-]+\?date=2026-11-19$/);
      first.push(r.body);
    }
    await f.store.append([
      {
        metric: METRICS.networksSupported,
        labels: { provider: 'mobula' },
        t: Date.UTC(2026, 10, 19, 23),
        v: 1,
      },
    ]);
    const again = restarted(f);
    const other = appFor(f, again, { name: 'Renamed', baseUrl: 'https://elsewhere.example' });
    for (const [i, p] of paths.entries()) expect((await answer(other, p)).body, p).toBe(first[i]);
    // An unfrozen day answers as the dated Stat does.
    const today = await answer(app, `/api/audit/${NET}/mobula?date=2026-11-20`);
    expect(today.res.status).toBe(404);
    expect(JSON.parse(today.body).error).toBe('not_frozen');
    expect((await answer(app, `/api/audit/${NET}/nope?date=${DAY}`)).res.status).toBe(404);
    again.close();
    await f.close();
  });
});

describe('item 3: a failed freeze is retried with backoff', () => {
  it('backs off from 30 s, doubling, to at most every 15 min', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 9].map((n) => retryDelayMs(n) / 1000)).toEqual([
      30, 60, 120, 240, 480, 900, 900, 900,
    ]);
  });

  it('answers 503 with Retry-After until a retry freezes the day, counting each failure', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const f = await fixture({ days: 3 });
    const real = f.store.putSnapshots.bind(f.store);
    let broken = true;
    f.store.putSnapshots = (entries) => (broken ? Promise.reject(new Error('disk full')) : real(entries));
    const pub = f.publication;
    const app = appFor(f, pub, { name: 'Citebench', baseUrl: 'http://bench.test' }, true);
    const retryAfter = async (path: string) => {
      const r = await app.request(path);
      return r.status === 503 ? r.headers.get('retry-after') : String(r.status);
    };
    const statPath = `/api/stat/${NET}?date=${DAY}`;
    await pub.startFreezer();
    await until(async () => (await retryAfter(statPath)) === '30');
    const perPass = pub.freezeFailures;
    expect(perPass).toBeGreaterThan(0);
    expect(await retryAfter(`/api/citable/${DAY}`)).toBe('30');
    expect(await retryAfter(`/api/audit/${NET}/mobula?date=${DAY}`)).toBe('30');
    expect(await retryAfter(`/api/cite/${NET}/bib?date=${DAY}`)).toBe('30');
    // The page and the images of that day say the same, not 404.
    expect(await retryAfter(`/benchmarks/${NET}?date=${DAY}`)).toBe('30');
    expect(await retryAfter(`/api/og/${NET}?date=${DAY}`)).toBe('30');
    expect(await retryAfter(`/api/sparkline/${NET}?date=${DAY}`)).toBe('30');
    // The first retry fails too: the next waits twice as long.
    await vi.advanceTimersByTimeAsync(30_000);
    await until(async () => (await retryAfter(statPath)) === '60');
    expect(pub.freezeFailures).toBe(2 * perPass);
    expect(await (await app.request('/metrics')).text()).toContain(
      `snapshot_freeze_failures_total ${2 * perPass}`,
    );
    broken = false;
    await vi.advanceTimersByTimeAsync(60_000);
    await until(async () => (await app.request(statPath)).status === 200);
    expect(pub.freezeFailures).toBe(2 * perPass);
    for (const close of closers.splice(0)) await close();
    await f.close();
  });
});

describe('item 4: late writes made while the service was stopped are counted', () => {
  it("compares each frozen day's stored samples with its dataset rows at start-up", async () => {
    const f = await fixture({ days: 3 });
    await f.publication.startFreezer();
    await until(async () => (await f.store.getSnapshot(`dataset:${DAY}.json`)) !== null);
    expect(f.publication.lateWrites).toBe(0);
    f.publication.close();
    // Written while stopped (or by a separate harness): no publication sees the append.
    await f.store.append(
      [1, 2, 3].map((m) => ({
        metric: METRICS.networksSupported,
        labels: { provider: 'codex' },
        t: Date.UTC(2026, 10, 19, 23, m),
        v: 1,
      })),
    );
    const again = restarted(f);
    const app = appFor(f, again, { name: 'Renamed', baseUrl: 'https://elsewhere.example' });
    await again.startFreezer();
    await until(() => again.lateWrites === 3);
    expect(await (await app.request('/metrics')).text()).toContain('snapshot_late_writes_total 3');
    // An append this process sees is among the stored ones at the next check: never counted twice.
    await f.store.append([
      {
        metric: METRICS.networksSupported,
        labels: { provider: 'codex' },
        t: Date.UTC(2026, 10, 19, 23, 4),
        v: 1,
      },
    ]);
    expect(again.lateWrites).toBe(4);
    await again.findLateWrites(closedBefore(f.clock.now));
    expect(again.lateWrites).toBe(4);
    again.close();
    await f.store.close();
  });
});

describe('item 21: the stale rule, the grace and the day-close timer at their boundaries', () => {
  it('is stale only past twice the cadence (2× live, 2× + 1 s stale), on the Stat and /api/freshness', async () => {
    const cadence = 6 * H;
    const t = NOW - 12 * H;
    expect(isStale(t, t + 2 * cadence, cadence)).toBe(false);
    expect(isStale(t, t + 2 * cadence + 1000, cadence)).toBe(true);
    const f = await fixture({
      samples: [{ metric: METRICS.networksSupported, labels: { provider: 'codex' }, t, v: 133 }],
    });
    expect((await f.publication.statAt(NET, null, t + 2 * cadence)).status).toBe('live');
    expect((await f.publication.statAt(NET, null, t + 2 * cadence + 1000)).status).toBe('stale');
    f.clock.now = t + 2 * cadence;
    expect((await f.publication.freshness()).status[NET]?.stale).toBe(false);
    f.clock.now = t + 2 * cadence + 1000;
    expect((await f.publication.freshness()).status[NET]?.stale).toBe(true);
    await f.close();
  });

  it('a day is not frozen at 00:09, and the day-close timer freezes it by 00:11 without a request', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const f = await fixture({ days: 3 });
    const day = '2026-11-20';
    f.clock.now = Date.UTC(2026, 10, 21, 0, 9);
    await f.publication.startFreezer();
    // Inside the grace: not frozen yet, and no freeze failed (404, not 503).
    const early = await f.publication.snapshot(day);
    expect(early.kind).toBe('not_frozen');
    expect(early).not.toHaveProperty('retryAfter');
    f.clock.now = Date.UTC(2026, 10, 21, 0, 11);
    await vi.advanceTimersByTimeAsync(2 * 60_000);
    await until(async () => (await f.store.getSnapshot(`citable:${day}`)) !== null);
    expect((await f.publication.frozenStat(NET, day)).kind).toBe('ok');
    await f.close();
  });
});
