import type { Filters, Series, Stat } from '../core/api-schemas.ts';
import { etagOf } from '../core/hash.ts';
import { type ChartRange, type HistoryChartInput, renderHistorySvg } from '../core/history-svg.ts';
import type { HotSource } from '../http/hot-path.ts';
import { CACHE } from '../http/respond.ts';
import type { Publication } from '../publication/publication.ts';
import type { Served } from '../publication/types.ts';
import { type StoredImage, SVG_HEADERS, SVG_TYPE } from './image-service.ts';

/**
 * The chart's input: the series' providers that have a rank in the Stat of the same filters, in
 * rank order (the legend reads like the leaderboard). A row without a rank (unresponsive, too few
 * samples, no comparison) is not drawn: its line would read as a competitor the Stat did not rank.
 */
export function chartInput(stat: Stat, series: Series, range: ChartRange): HistoryChartInput {
  const bySlug = new Map(series.providers.map((p) => [p.slug, p]));
  const providers = stat.rankings.flatMap((r) => {
    const p = r.rank === null ? undefined : bySlug.get(r.slug);
    return p ? [p] : [];
  });
  return { ...series, range, providers };
}

/** A chart and the two views it was drawn from (a page built around it is current while they are). */
export interface Chart {
  readonly image: StoredImage;
  /** The image's bytes as text, for a page that embeds it. */
  readonly svg: string;
  readonly stat: Served<Stat>;
  readonly series: Served<Series>;
}

/**
 * History charts of live views: drawn once per (Stat, series) version, the two ETags being the key
 * (the series' JSON names its slug, range and filters). Every provider's series is read, the same
 * cached view as /api/series without `providers`, and narrowed here: narrowing never changes a
 * value (comparability is judged over the whole selection, src/core/series.ts).
 */
export class HistoryCharts {
  /** Variants are few (3 ranges × the declared filter values) but bounded all the same. */
  private readonly images = new Map<string, { image: StoredImage; svg: string }>();

  constructor(private readonly pub: Publication) {}

  private draw(stat: Served<Stat>, series: Served<Series>, range: ChartRange): Chart {
    const key = `${stat.etag}:${series.etag}`;
    let drawn = this.images.get(key);
    if (!drawn) {
      const svg = renderHistorySvg(chartInput(stat.value, series.value, range));
      const image: StoredImage = {
        body: svg,
        etag: etagOf(svg),
        contentType: SVG_TYPE,
        cacheControl: CACHE.image,
        headers: SVG_HEADERS,
      };
      drawn = { image, svg };
      if (this.images.size >= 300) this.images.clear();
      this.images.set(key, drawn);
    }
    return { ...drawn, stat, series };
  }

  /** The chart when both views are cached, without any async work; else undefined. */
  peek(slug: string, filters: Filters | null, range: ChartRange): Chart | undefined {
    const stat = this.pub.peekStat(slug, filters);
    const series = stat && this.pub.peekSeries(slug, filters, range, null);
    return stat && series ? this.draw(stat, series, range) : undefined;
  }

  /** Throws the publication's UnknownBenchmarkError / UnavailableError. */
  async get(slug: string, filters: Filters | null, range: ChartRange): Promise<Chart> {
    const hit = this.peek(slug, filters, range);
    if (hit) return hit;
    const [stat, series] = await Promise.all([
      this.pub.stat(slug, filters),
      this.pub.series(slug, filters, range, null),
    ]);
    return this.draw(stat, series, range);
  }

  /** Replayable by the hot path while both views it was drawn from are current. */
  source(chart: Chart, group: string): HotSource {
    return { valid: () => this.pub.isCurrent(chart.stat) && this.pub.isCurrent(chart.series), group };
  }
}
