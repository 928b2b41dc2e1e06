import { Hono } from 'hono';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { testConfig } from '../../src/config.ts';
import type { Filters, Stat } from '../../src/core/api-schemas.ts';
import { etagOf } from '../../src/core/hash.ts';
import type { BenchmarkSpec } from '../../src/core/spec-schema.ts';
import { createMemoryStore } from '../../src/harness/memory-store.ts';
import type { AppDeps } from '../../src/http/deps.ts';
import { CACHE } from '../../src/http/respond.ts';
import { loadShedder } from '../../src/load-shed.ts';
import { type PublicationApi, type Served, UnknownBenchmarkError } from '../../src/publication/types.ts';
import { ImageService, type OgRenderer } from '../../src/render/image-service.ts';
import type { OgRenderResult } from '../../src/render/og-render.ts';
import { createImageService, registerImageRoutes, SVG_LIMIT } from '../../src/render/routes.ts';
import { ServiceWorkers } from '../../src/workers/service-workers.ts';
import { sampleStats } from '../fixtures/sample-stats.ts';
import { until } from '../helpers/until.ts';

/** Quiet, a background render starts within ~0.5 s (its quiet period); the bound is against a hang only. */
const RENDERED_MS = 30_000;

/** A small stand-in for the real publication: fixed Stat records, swappable, with onChange. */
function testPublication(stats: readonly Stat[], opts: { peek?: boolean; gate?: Promise<void> } = {}) {
  let statCalls = 0;
  const serve = (s: Stat): Served<Stat> => {
    const body = new TextEncoder().encode(JSON.stringify(s));
    return { value: s, body, etag: etagOf(body) };
  };
  const bySlug = new Map(stats.map((s) => [s.slug, serve(s)]));
  const listeners = new Set<(slugs: ReadonlySet<string>) => void>();
  const api: PublicationApi = {
    specs: [],
    // Only known-or-not matters to the image routes; the rest of a spec is the publication's.
    spec: (slug: string) => (bySlug.has(slug) ? ({ slug } as BenchmarkSpec) : undefined),
    resolveFilters: () => ({ ok: true, filters: null }),
    stat: async (slug: string, _f: Filters | null) => {
      statCalls += 1;
      await opts.gate;
      const s = bySlug.get(slug);
      if (!s) throw new UnknownBenchmarkError(slug);
      return s;
    },
    citable: () => Promise.reject(new Error('unused')),
    compare: () => Promise.reject(new Error('unused')),
    onChange: (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
  };
  const update = (s: Stat) => {
    bySlug.set(s.slug, serve(s));
    for (const l of listeners) l(new Set([s.slug]));
  };
  // The real Publication's optional synchronous fast path.
  const peekable = opts.peek ? Object.assign(api, { peekStat: (slug: string) => bySlug.get(slug) }) : api;
  return { api: peekable, update, statCalls: () => statCalls };
}

const stats = sampleStats('http://bench.test');
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function setup(opts: { svgCacheSize?: number; peek?: boolean; gate?: Promise<void> } = {}) {
  const pub = testPublication(stats, { peek: opts.peek ?? false, ...(opts.gate ? { gate: opts.gate } : {}) });
  const deps: AppDeps = {
    config: testConfig({ siteName: 'Citebench' }),
    publication: pub.api,
    store: createMemoryStore(),
    metrics: new Registry(),
    clock: () => 0,
  };
  const images =
    opts.svgCacheSize === undefined && !opts.peek
      ? createImageService(deps)
      : new ImageService({
          publication: pub.api,
          siteName: 'Citebench',
          renderer: new ServiceWorkers(1),
          svgCacheSize: opts.svgCacheSize ?? 500,
        });
  const app = new Hono();
  registerImageRoutes(app, deps, images);
  return { app, images, pub, deps };
}

async function json(res: Response): Promise<{ error: string; message: string }> {
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return (await res.json()) as { error: string; message: string };
}

describe('image routes', () => {
  const t = setup();
  afterAll(() => t.images.close());

  it('GET /api/og/{slug}: a cacheable 1200×630 PNG with CORS and a strong ETag', async () => {
    const res = await t.app.request('/api/og/network-coverage');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('cache-control')).toBe(CACHE.image);
    const etag = res.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"[^"]+"$/);
    const png = new Uint8Array(await res.arrayBuffer());
    expect([...png.subarray(0, 8)]).toEqual(PNG_SIGNATURE);
    const v = new DataView(png.buffer);
    expect([v.getUint32(16), v.getUint32(20)]).toEqual([1200, 630]);
    expect(etag).toBe(etagOf(png));
  });

  it('answers 304 to a matching If-None-Match, without rendering again', async () => {
    const first = await t.app.request('/api/og/token-trade-coverage');
    const etag = first.headers.get('etag') ?? '';
    const renders = t.images.ogRenders;
    const res = await t.app.request('/api/og/token-trade-coverage', { headers: { 'if-none-match': etag } });
    expect(res.status).toBe(304);
    expect(await res.text()).toBe('');
    expect(res.headers.get('etag')).toBe(etag);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(t.images.ogRenders).toBe(renders);
    const stale = await t.app.request('/api/og/token-trade-coverage', {
      headers: { 'if-none-match': '"nope"' },
    });
    expect(stale.status).toBe(200);
  });

  it('renders drafts', async () => {
    const res = await t.app.request('/api/og/bridge-quote-latency');
    expect(res.status).toBe(200);
    const svg = await t.app.request('/api/sparkline/bridge-quote-latency');
    expect(await svg.text()).toContain('stroke-dasharray');
  });

  it('404 unknown_benchmark for an unknown slug, 400 bad_slug for a malformed one', async () => {
    for (const path of ['/api/og/no-such-bench', '/api/sparkline/no-such-bench']) {
      const res = await t.app.request(path);
      expect(res.status).toBe(404);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      const body = await json(res);
      expect(body.error).toBe('unknown_benchmark');
      expect(body.message).toContain('no-such-bench');
    }
    for (const slug of ['Network-Coverage', '-lead', 'a_b', 'x'.repeat(81), '%20']) {
      for (const route of ['og', 'sparkline']) {
        const res = await t.app.request(`/api/${route}/${slug}`);
        expect(res.status, `${route}/${slug}`).toBe(400);
        expect((await json(res)).error).toBe('bad_slug');
      }
    }
  });

  it('GET /api/sparkline/{slug}: SVG with defaults, clamping, flooring and themes', async () => {
    const res = await t.app.request('/api/sparkline/network-coverage');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('cache-control')).toBe(CACHE.image);
    const svg = await res.text();
    expect(svg).toContain('width="240" height="60"');
    expect(svg).toContain(
      // The scale is part of the accessible name (issue 15).
      'aria-label="Network coverage of DEX data providers 24h sparkline (GeckoTerminal) (',
    );
    expect(res.headers.get('etag')).toBe(etagOf(svg));

    const cases: Array<[string, string]> = [
      ['w=5&h=1', 'width="40" height="20"'],
      ['w=5000&h=9999', 'width="1200" height="400"'],
      ['w=300.7&h=80.2', 'width="300" height="80"'],
    ];
    for (const [q, expected] of cases) {
      const r = await t.app.request(`/api/sparkline/network-coverage?${q}`);
      expect(r.status).toBe(200);
      expect(await r.text()).toContain(expected);
    }
    const dark = await (await t.app.request('/api/sparkline/network-coverage?theme=dark')).text();
    expect(dark).not.toBe(svg);
    expect(dark).toContain('fill="#10141b"');
  });

  it('400 JSON for non-numeric sizes and unknown themes', async () => {
    for (const q of ['w=abc', 'w=', 'h=12px', 'theme=neon', 'theme=']) {
      const res = await t.app.request(`/api/sparkline/network-coverage?${q}`);
      expect(res.status, q).toBe(400);
      const body = await json(res);
      expect(body.error).toBe('bad_request');
      expect(body.message.length).toBeGreaterThan(0);
    }
  });

  it('SVG ETag answers 304', async () => {
    const first = await t.app.request('/api/sparkline/dex-head-lag?w=100');
    const etag = first.headers.get('etag') ?? '';
    const res = await t.app.request('/api/sparkline/dex-head-lag?w=100', {
      headers: { 'if-none-match': etag },
    });
    expect(res.status).toBe(304);
  });

  it('counts renders in the metrics registry', async () => {
    const text = await t.deps.metrics.metrics();
    expect(text).toMatch(/citebench_image_renders_total\{kind="og"\} [1-9]/);
    expect(text).toMatch(/citebench_image_renders_total\{kind="svg"\} [1-9]/);
  });
});

describe('single-flight and invalidation', () => {
  const t = setup();
  afterAll(() => t.images.close());

  it('a burst of 20 concurrent requests for a not-yet-rendered OG image renders once', async () => {
    const before = t.images.ogRenders;
    const res = await Promise.all(Array.from({ length: 20 }, () => t.app.request('/api/og/dex-head-lag')));
    expect(t.images.ogRenders - before).toBe(1);
    const etags = new Set(res.map((r) => r.headers.get('etag')));
    expect(res.every((r) => r.status === 200)).toBe(true);
    expect(etags.size).toBe(1);
    // Served from storage afterwards.
    await t.app.request('/api/og/dex-head-lag');
    expect(t.images.ogRenders - before).toBe(1);
  });

  it('a burst of 20 concurrent SVG requests for one variant renders once', async () => {
    const before = t.images.svgRenders;
    await Promise.all(Array.from({ length: 20 }, () => t.app.request('/api/sparkline/dex-head-lag?w=321')));
    expect(t.images.svgRenders - before).toBe(1);
  });

  it('re-renders in the background when the data behind the image changes', async () => {
    const first = await t.app.request('/api/og/network-coverage');
    const oldEtag = first.headers.get('etag');
    const svgOld = await (await t.app.request('/api/sparkline/network-coverage')).text();
    const before = t.images.ogRenders;
    const s = stats[0]!;
    t.pub.update({
      ...s,
      value: 270,
      leader: { ...s.leader!, value: 270 },
      sparkline: [...s.sparkline, 270],
    });
    // onChange starts the render without any request (after a short quiet period that coalesces
    // bursts of writes); a request then joins it instead of rendering again.
    await until(() => t.images.ogRenders > before, RENDERED_MS, 'the background render');
    expect(t.images.ogRenders - before).toBe(1);
    const res = await t.app.request('/api/og/network-coverage');
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).not.toBe(oldEtag);
    expect(t.images.ogRenders - before).toBe(1);
    const svgNew = await (await t.app.request('/api/sparkline/network-coverage')).text();
    expect(svgNew).not.toBe(svgOld);
  });

  it('coalesces a burst of changes into one background render', async () => {
    await t.app.request('/api/og/network-coverage');
    const before = t.images.ogRenders;
    const s = stats[0]!;
    // The quiet period (500 ms after the last change) runs on a fake clock: five changes 10 ms
    // apart, then twice the quiet period, whatever the machine's speed; every refresh planned has
    // started (a render is counted as it starts) by the end.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      for (let i = 0; i < 5; i++) {
        t.pub.update({ ...s, value: 300 + i, leader: { ...s.leader!, value: 300 + i } });
        await vi.advanceTimersByTimeAsync(10);
      }
      await vi.advanceTimersByTimeAsync(1_000);
    } finally {
      vi.useRealTimers();
    }
    await until(() => t.images.ogRenders > before, RENDERED_MS, 'the background render');
    expect(t.images.ogRenders - before).toBe(1);
  });
});

describe('SVG cache bound', () => {
  let t: ReturnType<typeof setup>;
  beforeAll(() => {
    t = setup({ svgCacheSize: 3 });
  });
  afterAll(() => t.images.close());

  it('under load, a known SVG variant is re-rendered for new data, and a new size of a computed Stat is drawn (issue 26: it waits in the SVG queue)', async () => {
    const u = setup({ peek: true });
    const overloaded = vi.spyOn(loadShedder, 'overloaded').mockReturnValue(true);
    try {
      const first = stats[0] as Stat;
      // Rendered before the load: a known variant.
      overloaded.mockReturnValue(false);
      const before = await u.app.request(`/api/sparkline/${first.slug}?w=300&h=60`);
      expect(before.status).toBe(200);
      overloaded.mockReturnValue(true);
      u.pub.update({ ...first, headline: `${first.headline} (updated)` });
      const after = await u.app.request(`/api/sparkline/${first.slug}?w=300&h=60`);
      expect(after.status).toBe(200);
      // Before issue 26 a new size under load was refused (503) although its Stat was computed.
      const fresh = await u.app.request(`/api/sparkline/${first.slug}?w=301&h=60`);
      expect(fresh.status).toBe(200);
      expect(await fresh.text()).toMatch(/<svg[^>]* width="301"/);
    } finally {
      overloaded.mockRestore();
      await u.images.close();
    }
  });

  it('under load, a new variant whose Stat must be computed first is refused: 503 render_busy with Retry-After (the shedder, last resort)', async () => {
    const u = setup({ svgCacheSize: 10 });
    const overloaded = vi.spyOn(loadShedder, 'overloaded').mockReturnValue(true);
    try {
      const res = await u.app.request(`/api/sparkline/${(stats[0] as Stat).slug}?w=302&h=60`);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect((await json(res)).error).toBe('render_busy');
    } finally {
      overloaded.mockRestore();
      await u.images.close();
    }
  });

  it('under load, an unknown benchmark is a 404 unknown_benchmark, never a 503: nothing is computed to refuse', async () => {
    const u = setup({ svgCacheSize: 10 });
    const overloaded = vi.spyOn(loadShedder, 'overloaded').mockReturnValue(true);
    try {
      for (const path of ['/api/sparkline/geckoterminal', '/api/sparkline/2026-02-09?venue=x']) {
        const res = await u.app.request(path);
        expect(res.status, path).toBe(404);
        expect((await json(res)).error).toBe('unknown_benchmark');
      }
    } finally {
      overloaded.mockRestore();
      await u.images.close();
    }
  });

  it(`new variants wait in one queue (${SVG_LIMIT.running} drawn, ${SVG_LIMIT.queued} waiting); only a full queue answers 503 with Retry-After, and the waiting ones are drawn`, async () => {
    let open: () => void = () => undefined;
    const gate = new Promise<void>((r) => {
      open = r;
    });
    const u = setup({ peek: true, gate });
    try {
      const slug = (stats[0] as Stat).slug;
      const n = SVG_LIMIT.running + SVG_LIMIT.queued + 3;
      let settled = 0;
      const pending = Array.from({ length: n }, (_, i) =>
        Promise.resolve(u.app.request(`/api/sparkline/${slug}?w=${200 + i}&h=60`)).finally(() => settled++),
      );
      // The requests beyond the queue are answered at once, while the others wait on the Stat: the
      // gate opens once three have been answered (so the queue was full), however slow the machine.
      await until(() => settled >= 3, RENDERED_MS, 'three answers');
      expect(settled).toBe(3);
      open();
      const answers = await Promise.all(pending);
      const statuses = answers.map((r) => r.status);
      expect(statuses.filter((s) => s === 200).length).toBe(SVG_LIMIT.running + SVG_LIMIT.queued);
      expect(statuses.filter((s) => s === 503).length).toBe(3);
      for (const r of answers.filter((a) => a.status === 503)) expect(r.headers.get('retry-after')).toBe('1');
    } finally {
      await u.images.close();
    }
  });

  it('keeps at most svgCacheSize variants (LRU)', async () => {
    // The cache is the subject, not the shedder: on a busy machine the real one may refuse a new variant.
    const quiet = vi.spyOn(loadShedder, 'overloaded').mockReturnValue(false);
    try {
      for (const w of [100, 101, 102, 103, 104]) {
        expect((await t.app.request(`/api/sparkline/network-coverage?w=${w}`)).status).toBe(200);
      }
      expect(t.images.svgCacheSize).toBe(3);
      const before = t.images.svgRenders;
      await t.app.request('/api/sparkline/network-coverage?w=104');
      expect(t.images.svgRenders).toBe(before);
      await t.app.request('/api/sparkline/network-coverage?w=100');
      expect(t.images.svgRenders).toBe(before + 1);
    } finally {
      quiet.mockRestore();
    }
  });
});

describe('synchronous fast path (publication with peekStat)', () => {
  const t = setup({ peek: true });
  afterAll(() => t.images.close());

  it('serves current stored images without calling stat(), and notices changes', async () => {
    const first = await t.app.request('/api/og/token-trade-coverage');
    const svg1 = await (await t.app.request('/api/sparkline/token-trade-coverage?h=90')).text();
    const calls = t.pub.statCalls();
    const renders = [t.images.ogRenders, t.images.svgRenders];
    const again = await t.app.request('/api/og/token-trade-coverage');
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(await (await t.app.request('/api/sparkline/token-trade-coverage?h=90')).text()).toBe(svg1);
    expect(t.pub.statCalls()).toBe(calls);
    expect([t.images.ogRenders, t.images.svgRenders]).toEqual(renders);

    const s = stats[1]!;
    t.pub.update({ ...s, value: 12.5, sparkline: [1, 2, 3] });
    const changed = await t.app.request('/api/og/token-trade-coverage');
    expect(changed.headers.get('etag')).not.toBe(first.headers.get('etag'));
    expect(await (await t.app.request('/api/sparkline/token-trade-coverage?h=90')).text()).not.toBe(svg1);
    expect(t.images.ogRenders).toBe(renders[0]! + 1);
  });
});

describe('ImageService ordering', () => {
  it('a slow render of older data does not replace a newer image', async () => {
    const pub = testPublication(stats, { peek: true });
    const waiting: Array<{ value: string; resolve: (r: OgRenderResult) => void }> = [];
    const renderer: OgRenderer = {
      render: (model) => new Promise((resolve) => waiting.push({ value: model.valueText, resolve })),
      close: async () => undefined,
    };
    const images = new ImageService({ publication: pub.api, siteName: 'C', renderer, refreshDelayMs: 0 });
    const png = (n: number) => ({ png: new Uint8Array([n]), satoriMs: 0, resvgMs: 0 });
    const old = images.getOg('network-coverage');
    await new Promise((r) => setImmediate(r));
    const s = stats[0]!;
    pub.update({ ...s, value: 300 }); // onChange starts the second render
    await new Promise((r) => setImmediate(r));
    expect(waiting.map((w) => w.value)).toEqual(['263', '300']);
    waiting[1]!.resolve(png(2));
    await new Promise((r) => setImmediate(r));
    waiting[0]!.resolve(png(1));
    expect([...((await old).body as Uint8Array)]).toEqual([1]);
    expect([...((images.peekOg('network-coverage')?.body as Uint8Array) ?? [])]).toEqual([2]);
    await images.close();
  });
});

describe('images of simulated data (issue 28 items 13 and 14)', () => {
  const simulated = stats.map((s) => ({ ...s, simulated: true as const }));
  const images = new ImageService({
    publication: testPublication(simulated).api,
    siteName: 'Citebench',
    renderer: new ServiceWorkers(1),
  });
  afterAll(() => images.close());

  it('the SVG says Simulated in its title and visibly; the PNG carries its attribution', async () => {
    const svg = String((await images.getSvg('token-trade-coverage', { w: 240, h: 60, theme: 'light' })).body);
    expect(svg).toMatch(/<title>Simulated data: /);
    expect(svg).toContain('>Simulated</text>');
    const png = (await images.getOg('token-trade-coverage')).body as Uint8Array;
    const latin1 = new TextDecoder('latin1').decode(png);
    expect(latin1).toContain('tEXtSource\0http://bench.test/benchmarks/token-trade-coverage');
    expect(latin1).toContain('tEXtCopyright\0CC-BY-4.0, Citebench');
    expect(latin1).toContain('tEXtDisclaimer\0Simulated demo data, not a measurement.');
  });
});
