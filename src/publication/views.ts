import type { Audit, CitableIndex, Compare, Featured, Filters, Series, Stat } from '../core/api-schemas.ts';
import { buildCompare } from '../core/compare.ts';
import { DAY_MS } from '../core/dates.ts';
import { buildFeatured } from '../core/featured.ts';
import { llmsTxt } from '../core/llms-txt.ts';
import { llmContextMarkdown } from '../core/markdown.ts';
import type { Provenance } from '../core/provenance.ts';
import type { SeriesRange } from '../core/series.ts';
import { DIMENSION_NAMES } from '../core/spec-schema.ts';
import { buildAudit } from './audit.ts';
import { citableIndex } from './citable-index.ts';
import { checkComparePair } from './compare-pair.ts';
import { compareRowFor } from './compare-rows.ts';
import { compareOfDay, scopeCompare, sideOf } from './compare-scope.ts';
import { computeStat } from './compute.ts';
import { ALL_BENCHMARKS as ALL, type EvalPoints } from './eval-points.ts';
import { LastGoodStats } from './last-good.ts';
import { readProvenance } from './provenance-read.ts';
import { computeSeries } from './series-view.ts';
import { type ServedText, serve, serveText } from './served.ts';
import { guarded } from './store-guard.ts';
import {
  COLD_FILTERED_VIEWS,
  ColdViewsBusyError,
  type CompareResult,
  type FilterResolution,
  type FrozenStatResult,
  type PublicationContext,
  type Served,
  UnavailableError,
  UnknownBenchmarkError,
} from './types.ts';
import { ViewCache } from './view-cache.ts';

function filterSig(filters: Filters | null): string {
  if (!filters) return '';
  return DIMENSION_NAMES.filter((d) => filters[d] !== undefined)
    .map((d) => `${d}=${filters[d]}`)
    .join('&');
}

function seriesKey(
  slug: string,
  filters: Filters | null,
  range: SeriesRange,
  providers: readonly string[] | null,
): string {
  return `series:${slug}?${range}&${filterSig(filters)}&${providers?.join(',') ?? ''}`;
}

/** Compare pairs remembered for the prewarm: a few pages' worth, not every pair ever asked. */
const MAX_ASKED_PAIRS = 32;
/** Dated compares kept (each immutable): a crawl of every pair and day only resets the map. */
const MAX_DAY_COMPARES = 500;

/**
 * Every live view (Stat, series, audit, compare, index, llm-context, llms.txt, featured) and its
 * cache. Each is evaluated at its evaluation point (src/core/eval-point.ts) and stands until that
 * point moves. A benchmark's new samples drop its own views and every view built from all benchmarks.
 */
export class Views {
  private readonly stats: ViewCache<Served<Stat>>;
  /** Series views, invalidated with the Stats of the same benchmark. */
  private readonly seriesViews: ViewCache<Served<Series>>;
  private readonly aggregates: ViewCache<Served<unknown> | ServedText>;
  /** Audits (live or pinned to a day's end), invalidated with the Stats of the same benchmark. */
  private readonly audits: ViewCache<Served<Audit>>;
  /**
   * Each Stat as it stood 24 h ago (the movers of /api/search/featured). New samples do not change
   * it, only a late write into that past does; it ages out like any view as the window slides.
   */
  private readonly dayAgo: ViewCache<Stat>;
  private readonly lastGood: LastGoodStats;
  /** Every provider slug some spec measures (compare validates against it without a scan). */
  private readonly measured: ReadonlySet<string>;
  /** Compare pairs requests asked for, oldest first (at most MAX_ASKED_PAIRS): the prewarm's. */
  private readonly askedPairs = new Map<string, readonly [string, string]>();
  private readonly dayCompares = new Map<string, Served<Compare>>();
  /** The newest live provenance read, served while the store cannot be read. */
  private lastProvenance: Provenance | undefined;
  /** Filtered Stats being computed or waiting (bounded by COLD_FILTERED_VIEWS). */
  private coldFiltered = 0;

  /** `maxViewAgeMs`: how long a view whose point moved may still be answered while recomputed. */
  constructor(
    private readonly ctx: PublicationContext,
    maxViewAgeMs: number,
    private readonly points: EvalPoints,
  ) {
    // Room for every benchmark's views (unfiltered, filtered, series ranges) before a cache clears.
    const room = Math.max(5000, 20 * ctx.specs.length);
    const cache = <T>() =>
      new ViewCache<T>(maxViewAgeMs, ctx.clock, room, maxViewAgeMs, (g) => points.ofGroup(g));
    this.stats = cache();
    this.seriesViews = cache();
    this.aggregates = cache();
    this.audits = cache();
    this.dayAgo = cache();
    this.lastGood = new LastGoodStats(room);
    this.measured = new Set(ctx.specs.flatMap((s) => s.providers.map((p) => p.slug)));
  }

  /** New samples (from `minT` on) for these benchmarks. */
  invalidate(slugs: ReadonlySet<string>, minT: number): void {
    for (const s of slugs) {
      this.stats.invalidate(s);
      this.seriesViews.invalidate(s);
      this.audits.invalidate(s);
      if (minT <= this.ctx.clock() - DAY_MS) this.dayAgo.invalidate(s);
    }
    this.aggregates.invalidate(ALL);
  }

  /** Drops every view (they were built as measured data, and the data turned out simulated). */
  clear(): void {
    this.stats.clear();
    this.seriesViews.clear();
    this.aggregates.clear();
    this.audits.clear();
    this.dayAgo.clear();
  }

  /**
   * True while a served view (Stat, series, audit, compare, index, llm-context, featured) is the
   * one a request would get now: not invalidated by samples, not past its age, not replaced. (Frozen
   * bytes need no asking: they never change.) The HTTP hot path asks this before every replay.
   */
  isCurrent(served: object): boolean {
    return (
      this.stats.holds(served) ||
      this.aggregates.holds(served) ||
      this.seriesViews.holds(served) ||
      this.audits.holds(served)
    );
  }

  /** A view evaluated at an arbitrary time, uncached (snapshots, 24 h comparisons). */
  statAt(slug: string, filters: Filters | null, evalTime: number): Promise<Stat> {
    const spec = this.ctx.bySlug.get(slug);
    if (!spec) return Promise.reject(new UnknownBenchmarkError(slug));
    return guarded(async () =>
      computeStat(
        this.ctx.store,
        spec,
        filters,
        evalTime,
        this.ctx.site(),
        await this.measuredValues(spec.slug),
      ),
    );
  }

  async stat(slug: string, filters: Filters | null): Promise<Served<Stat>> {
    const spec = this.ctx.bySlug.get(slug);
    if (!spec) throw new UnknownBenchmarkError(slug);
    const key = `${slug}?${filterSig(filters)}`;
    // The point needs the newest sample times (read once per process).
    await this.points.ready();
    return this.stats.get(key, slug, (at) =>
      this.admitCold(filters, () =>
        this.lastGood.orLastGood(key, () =>
          guarded(async () =>
            serve(
              await computeStat(
                this.ctx.store,
                spec,
                filters,
                at,
                this.ctx.site(),
                await this.measuredValues(spec.slug),
              ),
            ),
          ),
        ),
      ),
    );
  }

  /** Starts a view's computation, unless it is filtered and COLD_FILTERED_VIEWS already are. */
  private admitCold<T>(filters: Filters | null, compute: () => Promise<T>): Promise<T> {
    if (filters === null) return compute();
    // Refused outside the last-good fallback: a busy process is not a store that cannot be read.
    if (this.coldFiltered >= COLD_FILTERED_VIEWS) return Promise.reject(new ColdViewsBusyError());
    this.coldFiltered++;
    return compute().finally(() => {
      this.coldFiltered--;
    });
  }

  /** Served bytes for the hot path, or undefined when the view must be (re)computed. */
  peekStat(slug: string, filters: Filters | null): Served<Stat> | undefined {
    return this.stats.peek(`${slug}?${filterSig(filters)}`);
  }

  /**
   * GET /api/series/{slug}: each provider's value on a fixed grid, as the Stat would have published
   * it at each point. Cached and invalidated with the benchmark's Stats.
   */
  async series(
    slug: string,
    filters: Filters | null,
    range: SeriesRange,
    providers: readonly string[] | null,
  ): Promise<Served<Series>> {
    const spec = this.ctx.bySlug.get(slug);
    if (!spec) throw new UnknownBenchmarkError(slug);
    await this.points.ready();
    return this.seriesViews.get(seriesKey(slug, filters, range, providers), slug, (at) =>
      guarded(async () =>
        serve(
          await computeSeries(
            this.ctx.store,
            { spec, filters, range, providers, evalTime: at, simulated: this.ctx.site().simulated === true },
            this.ctx.offload?.evaluateSeries,
          ),
        ),
      ),
    );
  }

  /** Served bytes of a cached series, or undefined. */
  peekSeries(
    slug: string,
    filters: Filters | null,
    range: SeriesRange,
    providers: readonly string[] | null,
  ): Served<Series> | undefined {
    return this.seriesViews.peek(seriesKey(slug, filters, range, providers));
  }

  /**
   * The raw measurements behind one provider's row; null for a provider the benchmark does not
   * declare. `window`: every cycle of the Stat's window, narrowed by the Stat's filters.
   */
  async audit(
    slug: string,
    provider: string,
    evalTime?: number,
    window?: { readonly filters: Filters | null },
  ): Promise<Served<Audit> | null> {
    const spec = this.ctx.bySlug.get(slug);
    if (!spec) throw new UnknownBenchmarkError(slug);
    if (!spec.providers.some((p) => p.slug === provider)) return null;
    // Live audits are cached like Stats (recomputed on new samples or after maxViewAgeMs); a
    // day-pinned one is cached under its day's end and dropped only when its benchmark changes.
    const scope = window ? `?window&${filterSig(window.filters)}` : '';
    const key = `${slug}/${provider}@${evalTime ?? 'live'}${scope}`;
    if (evalTime === undefined) await this.points.ready();
    return this.audits.get(key, slug, (at) =>
      guarded(async () =>
        serve(
          await buildAudit(
            this.ctx.store,
            spec,
            provider,
            evalTime ?? at,
            this.ctx.site(),
            window ? { window } : {},
          ),
        ),
      ),
    );
  }

  private async allStats(): Promise<Stat[]> {
    return Promise.all(this.ctx.specs.map(async (s) => (await this.stat(s.slug, null)).value));
  }

  peekCitable(): Served<CitableIndex> | undefined {
    return this.aggregates.peek('citable') as Served<CitableIndex> | undefined;
  }

  /**
   * The provenance of the last 24 h. A store that cannot be read gives the last one read (the
   * index is served degraded from the last good Stats then, and says so), or none before any.
   */
  private async liveProvenance(now: number): Promise<Provenance | undefined> {
    try {
      this.lastProvenance = await guarded(() => readProvenance(this.ctx, now - DAY_MS, now));
    } catch (e) {
      if (!(e instanceof UnavailableError)) throw e;
    }
    return this.lastProvenance;
  }

  /** The live index of /api/citable. */
  async citable(): Promise<Served<CitableIndex>> {
    await this.points.ready();
    return this.aggregates.get('citable', ALL, async (at) => {
      const [stats, provenance] = await Promise.all([this.allStats(), this.liveProvenance(at)]);
      return serve(citableIndex(stats, this.ctx.bySlug, this.ctx.site(), null, provenance));
    }) as Promise<Served<CitableIndex>>;
  }

  llmContext(): Promise<ServedText> {
    return this.aggregates.get('llm', ALL, async () =>
      serveText(llmContextMarkdown(await this.allStats(), this.ctx.site())),
    );
  }

  /** /llms.txt: built from the live index, so dropped with it (and every aggregate) on new samples. */
  llmsTxt(): Promise<ServedText> {
    return this.aggregates.get('llms.txt', ALL, async () => serveText(llmsTxt((await this.citable()).value)));
  }

  featured(): Promise<Served<Featured>> {
    return this.aggregates.get('featured', ALL, async () => {
      const now = await this.allStats();
      const dayAgo = new Map<string, Stat>();
      for (const s of now) {
        if (s.status === 'draft') continue;
        // Each Stat beside itself one day before its own point.
        const before = await this.dayAgo.get(s.slug, s.slug, (at) => this.statAt(s.slug, null, at - DAY_MS));
        dayAgo.set(s.slug, before);
      }
      return serve(buildFeatured(now, dayAgo));
    }) as Promise<Served<Featured>>;
  }

  /** A live view's data-valued dimension values: those its filters accept, read as of now. */
  private async measuredValues(slug: string): Promise<{ dataValues?: (d: string) => readonly string[] }> {
    const values = this.ctx.dataValues;
    await this.ctx.dataValuesRead?.();
    return values ? { dataValues: (d) => values(slug, d) } : {};
  }

  /** Compare pairs requests asked for (src/publication/prewarm.ts recomputes them after changes). */
  comparePairs(): readonly (readonly [string, string])[] {
    return [...this.askedPairs.values()];
  }

  private noteAsked(a: string, b: string): void {
    const key = `${a}:${b}`;
    this.askedPairs.delete(key);
    this.askedPairs.set(key, [a, b]);
    const oldest = this.askedPairs.keys().next();
    if (this.askedPairs.size > MAX_ASKED_PAIRS && !oldest.done) this.askedPairs.delete(oldest.value);
  }

  /**
   * A pair's rows, live: unfiltered (prewarmed once asked), or under the dimension filters as
   * given, each benchmark declaring them resolving them by its own rules (compare-scope.ts).
   */
  async compare(
    a: string,
    b: string,
    filtered: {
      readonly raw: Readonly<Record<string, string | undefined>>;
      readonly resolve: (slug: string, raw: Readonly<Record<string, string | undefined>>) => FilterResolution;
    } | null = null,
  ): Promise<CompareResult> {
    const pair = checkComparePair(a, b, this.ctx.specs, this.measured);
    if (!pair.ok) return pair;
    const raw = filtered?.raw;
    const scoped = filtered
      ? scopeCompare(pair.shared, filtered.raw, filtered.resolve)
      : { ok: true as const, rows: pair.shared.map((spec) => ({ spec, filters: null })), filters: undefined };
    if (!scoped.ok) return scoped;
    if (!raw) this.noteAsked(a, b);
    // Computed once per change of its inputs: any benchmark's samples can change a pair's rows.
    await this.points.ready();
    const key = `compare:${a}:${b}${scoped.filters ? `:${JSON.stringify(scoped.filters)}` : ''}`;
    const served = await this.aggregates.get(key, ALL, async () => {
      // Each row at its benchmark's own point, the point its Stat was evaluated at.
      const rows = await guarded(() =>
        Promise.all(
          scoped.rows.map(async ({ spec, filters }) => {
            const stat = await this.stat(spec.slug, filters);
            return compareRowFor(this.ctx.store, spec, stat.value, a, b, this.points.of(spec.slug), filters);
          }),
        ),
      );
      const scope = scoped.filters ? { filters: scoped.filters } : {};
      return serve(buildCompare(sideOf(a), sideOf(b), rows, this.ctx.site(), scope));
    });
    return { ok: true, served: served as Served<Compare> };
  }

  /** A pair's rows on a closed day (compare-scope.ts): closed days do not change, nor does this. */
  async compareDay(
    a: string,
    b: string,
    day: string,
    frozenStat: (slug: string, day: string) => Promise<FrozenStatResult>,
  ): Promise<CompareResult> {
    const pair = checkComparePair(a, b, this.ctx.specs, this.measured);
    if (!pair.ok) return pair;
    const key = `${a}:${b}:${day}`;
    const known = this.dayCompares.get(key);
    if (known) return { ok: true, served: known };
    const dated = await compareOfDay(this.ctx.store, this.ctx.site(), pair.shared, [a, b], day, frozenStat);
    if (!dated.ok) return dated;
    const served = dated.served;
    if (this.dayCompares.size >= MAX_DAY_COMPARES) this.dayCompares.clear();
    this.dayCompares.set(key, served);
    return { ok: true, served };
  }
}
