import { Counter, Histogram, type Registry } from 'prom-client';
import type { Filters, Stat } from '../core/api-schemas.ts';
import { etagOf } from '../core/hash.ts';
import { renderSparklineSvg, type SparklineParams } from '../core/sparkline-svg.ts';
import { type BytesResponse, CACHE } from '../http/respond.ts';
import type { PublicationApi, Served } from '../publication/types.ts';
import { Lru } from './lru.ts';
import { type OgModel, ogModelFromStat } from './og-model.ts';
import type { OgRenderResult } from './og-render.ts';

/** Rendered bytes with every response header prebuilt, handed to sendBytes() as-is. */
export type StoredImage = BytesResponse;

/** Refused at once when the render queue is full (the route answers 503 with Retry-After). */
export class RenderBusyError extends Error {
  constructor(queued: number) {
    super(`${queued} OG renders are already queued`);
    this.name = 'RenderBusyError';
  }
}

export interface OgRenderer {
  render(model: OgModel): Promise<OgRenderResult>;
  close(): Promise<void>;
}

interface CacheEntry {
  /** ETag of the stat the image was rendered from; a different one means stale. */
  readonly statEtag: string;
  readonly image: StoredImage;
}

/**
 * The real Publication also offers a synchronous `peekStat` (the stored view, or undefined when it
 * must be recomputed). When present, cache hits are answered without a single await.
 */
export type ImagePublication = PublicationApi & {
  peekStat?(slug: string, filters: Filters | null): Served<Stat> | undefined;
};

export interface ImageServiceOptions {
  readonly publication: ImagePublication;
  readonly siteName: string;
  readonly renderer: OgRenderer;
  readonly metrics?: Registry;
  /** Bound on cached SVG variants: w/h/theme are user-controlled. */
  readonly svgCacheSize?: number;
  /** Background re-render failures (the request path reports its own errors). */
  readonly onBackgroundError?: (slug: string, err: unknown) => void;
  /** Quiet time after the last change before OG images re-render (default 500 ms). */
  readonly refreshDelayMs?: number;
}

export const PNG_TYPE = 'image/png';
export const SVG_TYPE = 'image/svg+xml; charset=utf-8';
const PNG_HEADERS = { 'x-content-type-options': 'nosniff' };
// SVG is active content when opened directly: forbid scripts and any fetch from it.
export const SVG_HEADERS = {
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
  'x-content-type-options': 'nosniff',
};

function renderCounter(reg: Registry): Counter<'kind'> {
  const name = 'citebench_image_renders_total';
  const existing = reg.getSingleMetric(name);
  if (existing instanceof Counter) return existing as Counter<'kind'>;
  return new Counter({
    name,
    help: 'Images rendered (cache misses).',
    labelNames: ['kind'],
    registers: [reg],
  });
}

function renderHistogram(reg: Registry): Histogram {
  const name = 'citebench_og_render_seconds';
  const existing = reg.getSingleMetric(name);
  if (existing instanceof Histogram) return existing as Histogram;
  return new Histogram({
    name,
    help: 'OG image render time in the worker (satori + resvg).',
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [reg],
  });
}

/** `chain=solana&kind=…`: a filtered view's images are cached apart from the unfiltered ones. */
export function filterKey(filters: Filters | null): string {
  if (!filters) return '';
  return Object.entries(filters)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
}

function svgKey(slug: string, p: SparklineParams, filters: Filters | null = null): string {
  return `${slug}|${p.w}|${p.h}|${p.theme}|${filterKey(filters)}`;
}

function ogKey(slug: string, filters: Filters | null): string {
  return `${slug}?${filterKey(filters)}`;
}

/** The SVG of a Stat: its leader's series, in its unit, with the scale labelled. */
function svgOf(stat: Stat, p: SparklineParams): string {
  return renderSparklineSvg({
    points: stat.sparkline,
    width: p.w,
    height: p.h,
    theme: p.theme,
    higherIsBetter: stat.higherIsBetter,
    title: stat.title,
    leaderName: stat.leader?.name ?? null,
    unit: stat.unit,
    gaps: stat.sparklineGaps,
    simulated: stat.simulated === true,
  });
}

/**
 * Serves images from stored bytes. Rendering happens only when the stat behind an image changed
 * (its ETag differs) or on first request, once per key however many requests arrive meanwhile.
 */
export class ImageService {
  /** OG renders started (cache misses that reached the worker). */
  ogRenders = 0;
  /** SVG renders (cache misses). */
  svgRenders = 0;
  backgroundErrors = 0;

  private readonly og = new Map<string, CacheEntry>();
  private readonly ogInflight = new Map<string, Promise<StoredImage>>();
  /** Stat ETag most recently seen per slug: a slower render of older data must not win. */
  private readonly ogLatest = new Map<string, string>();
  private readonly svg: Lru<string, CacheEntry>;
  private readonly counter: Counter<'kind'> | undefined;
  private readonly histogram: Histogram | undefined;
  private readonly unsubscribe: () => void;

  constructor(private readonly opts: ImageServiceOptions) {
    this.svg = new Lru(opts.svgCacheSize ?? 500);
    this.counter = opts.metrics ? renderCounter(opts.metrics) : undefined;
    this.histogram = opts.metrics ? renderHistogram(opts.metrics) : undefined;
    this.unsubscribe = opts.publication.onChange((slugs) => this.scheduleRefresh(slugs));
  }

  private pending = new Set<string>();
  private refreshTimer: NodeJS.Timeout | undefined;

  /**
   * Coalesces bursts of changes (a backfill writes hundreds of cycles in seconds) into one render per
   * benchmark once writes pause; a request in between still renders on demand.
   */
  private scheduleRefresh(slugs: ReadonlySet<string>): void {
    const delay = this.opts.refreshDelayMs ?? 500;
    if (delay === 0) {
      void this.refresh(slugs);
      return;
    }
    for (const s of slugs) this.pending.add(s);
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(() => {
      const due = this.pending;
      this.pending = new Set();
      this.refreshTimer = undefined;
      void this.refresh(due);
    }, delay);
    this.refreshTimer.unref();
  }

  /** Number of cached SVG variants (bounded by svgCacheSize). */
  get svgCacheSize(): number {
    return this.svg.size;
  }

  /** The stored OG PNG when it is known to be current, without any async work; else undefined. */
  peekOg(slug: string, filters: Filters | null = null): StoredImage | undefined {
    const stat = this.opts.publication.peekStat?.(slug, filters);
    const hit = stat && this.og.get(ogKey(slug, filters));
    return hit && hit.statEtag === stat.etag ? hit.image : undefined;
  }

  /** The stored SVG when it is known to be current, without any async work; else undefined. */
  peekSvg(slug: string, p: SparklineParams, filters: Filters | null = null): StoredImage | undefined {
    const stat = this.opts.publication.peekStat?.(slug, filters);
    const hit = stat && this.svg.get(svgKey(slug, p, filters));
    return hit && hit.statEtag === stat.etag ? hit.image : undefined;
  }

  /** The OG PNG of `slug`; throws UnknownBenchmarkError / UnavailableError from the publication. */
  async getOg(slug: string, filters: Filters | null = null): Promise<StoredImage> {
    const stat = await this.opts.publication.stat(slug, filters);
    const cacheKey = ogKey(slug, filters);
    this.ogLatest.set(cacheKey, stat.etag);
    const hit = this.og.get(cacheKey);
    if (hit && hit.statEtag === stat.etag) return hit.image;
    const key = `${cacheKey}\n${stat.etag}`;
    const running = this.ogInflight.get(key);
    if (running) return running;
    this.ogRenders += 1;
    this.counter?.inc({ kind: 'og' });
    const model = ogModelFromStat(stat.value, this.opts.siteName);
    const job = this.opts.renderer
      .render(model)
      .then((r) => {
        this.histogram?.observe((r.satoriMs + r.resvgMs) / 1000);
        const image: StoredImage = {
          body: r.png,
          etag: etagOf(r.png),
          contentType: PNG_TYPE,
          cacheControl: CACHE.image,
          headers: PNG_HEADERS,
        };
        if (this.ogLatest.get(cacheKey) === stat.etag || !this.og.has(cacheKey)) {
          // Filtered variants are few (one per declared dimension value) but bounded all the same.
          if (this.og.size >= 200) this.og.clear();
          this.og.set(cacheKey, { statEtag: stat.etag, image });
        }
        return image;
      })
      .catch((err: unknown) => {
        // Under a render backlog an image of the previous data beats an error: it is what a
        // cache would have served a moment ago, and the next change re-renders it.
        if (err instanceof RenderBusyError && hit) return hit.image;
        throw err;
      })
      .finally(() => this.ogInflight.delete(key));
    this.ogInflight.set(key, job);
    return job;
  }

  private readonly dated = new Lru<string, StoredImage>(200);
  private readonly datedInflight = new Map<string, Promise<StoredImage>>();

  /**
   * The image of a frozen day (the links inside a day snapshot): rendered once from the Stat frozen
   * with that day, immutable. Null when the day has no frozen snapshot.
   */
  async getDated(slug: string, day: string, kind: 'og' | SparklineParams): Promise<StoredImage | null> {
    const key = `${slug}|${day}|${kind === 'og' ? 'og' : svgKey(slug, kind)}`;
    const hit = this.dated.get(key);
    if (hit) return hit;
    const running = this.datedInflight.get(key);
    if (running) return running;
    const r = await this.opts.publication.frozenStat?.(slug, day);
    if (r?.kind !== 'ok') return null;
    const stat = JSON.parse(new TextDecoder().decode(r.served.body)) as Stat;
    const job = (async (): Promise<StoredImage> => {
      if (kind === 'og') {
        const png = (await this.opts.renderer.render(ogModelFromStat(stat, this.opts.siteName))).png;
        return {
          body: png,
          etag: etagOf(png),
          contentType: PNG_TYPE,
          cacheControl: CACHE.immutable,
          headers: PNG_HEADERS,
        };
      }
      const body = svgOf(stat, kind);
      return {
        body,
        etag: etagOf(body),
        contentType: SVG_TYPE,
        cacheControl: CACHE.immutable,
        headers: SVG_HEADERS,
      };
    })()
      .then((image) => {
        this.dated.set(key, image);
        return image;
      })
      .finally(() => this.datedInflight.delete(key));
    this.datedInflight.set(key, job);
    return job;
  }

  /**
   * True when this SVG variant was rendered before (perhaps for older data): re-rendering it after
   * a change is bounded by the variants already admitted, unlike a new client-chosen size.
   */
  knowsSvg(slug: string, p: SparklineParams, filters: Filters | null = null): boolean {
    return this.svg.get(svgKey(slug, p, filters)) !== undefined;
  }

  /** The SVG sparkline of `slug` at the given (already validated) size and theme. */
  async getSvg(slug: string, p: SparklineParams, filters: Filters | null = null): Promise<StoredImage> {
    const stat = await this.opts.publication.stat(slug, filters);
    const key = svgKey(slug, p, filters);
    const hit = this.svg.get(key);
    if (hit && hit.statEtag === stat.etag) return hit.image;
    // Rendering is synchronous and microseconds long: nothing can interleave between the miss
    // and the set below, so concurrent requests for one key render once.
    this.svgRenders += 1;
    this.counter?.inc({ kind: 'svg' });
    const body = svgOf(stat.value, p);
    const image: StoredImage = {
      body,
      etag: etagOf(body),
      contentType: SVG_TYPE,
      cacheControl: CACHE.image,
      headers: SVG_HEADERS,
    };
    this.svg.set(key, { statEtag: stat.etag, image });
    return image;
  }

  /** Re-renders the OG images of changed benchmarks in the background, so requests find them ready. */
  refresh(slugs: ReadonlySet<string>): Promise<void> {
    // Only images someone asked for (rendered or rendering): at 1,000 benchmarks, re-rendering every changed one made
    // 2,997 renders in a bench loop and raised cached reads' p99 from 62 to 81 ms.
    const wanted = [...slugs].filter((slug) => this.ogLatest.has(ogKey(slug, null)));
    const jobs = wanted.map((slug) =>
      this.getOg(slug).then(
        () => undefined,
        (err: unknown) => {
          this.backgroundErrors += 1;
          this.opts.onBackgroundError?.(slug, err);
        },
      ),
    );
    return Promise.all(jobs).then(() => undefined);
  }

  async close(): Promise<void> {
    this.unsubscribe();
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    await this.opts.renderer.close();
  }
}
