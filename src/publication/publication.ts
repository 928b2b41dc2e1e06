import { processBuildInfo } from '../build-info.ts';
import type {
  Audit,
  CitableIndex,
  Featured,
  Filters,
  Freshness,
  ProviderListing,
  ProviderProfile,
  Series,
  Stat,
} from '../core/api-schemas.ts';
import type { Provenance } from '../core/provenance.ts';
import type { SeriesRange } from '../core/series.ts';
import { specHashes } from '../core/spec-hash.ts';
import type { BenchmarkSpec } from '../core/spec-schema.ts';
import type { Site } from '../core/urls.ts';
import { benchmarksOfMetrics, ChangeListeners } from './change-listeners.ts';
import { DatasetPublisher } from './dataset.ts';
import { DayFreezer, type DayResult, type FrozenAuditResult, type SnapshotResult } from './day-freezer.ts';
import type { SlotExpectation, SlotPlanView } from './day-slots.ts';
import { gatedStore } from './engine-gate.ts';
import { EvalPoints } from './eval-points.ts';
import { FilterResolver } from './filter-resolver.ts';
import { FreshnessTracker } from './freshness.ts';
import { OriginCheck } from './origin-check.ts';
import { type ProfileResult, ProviderProfiles } from './provider-profiles.ts';
import type { PublicationOptions } from './publication-options.ts';
import type { ServedText } from './served.ts';
import { siteOfConfig } from './site-of-config.ts';
import { StoreFollower } from './store-follower.ts';
import type {
  CompareQuery,
  CompareResult,
  FilterResolution,
  PublicationApi,
  PublicationContext,
  Served,
} from './types.ts';
import { Views } from './views.ts';

export type { PublicationOptions } from './publication-options.ts';
export { type ServedText, serve } from './served.ts';

/**
 * The façade both front doors (HTTP and MCP) use. It composes the parts, each behind a narrow
 * interface: the live views and their caches, closed days (freezing and serving them), freshness,
 * filter resolution, the origin check and change listeners; an append reaches each of them here.
 */
export class Publication implements PublicationApi {
  readonly specs: readonly BenchmarkSpec[];
  /** The daily open dataset (GET /api/dataset…), frozen with the day snapshots. */
  readonly dataset: DatasetPublisher;
  private readonly siteBase: Site;
  private readonly bySlug: ReadonlyMap<string, BenchmarkSpec>;
  private readonly listeners = new ChangeListeners();
  private readonly views: Views;
  readonly points: EvalPoints; // each live view's evaluation point (the prewarm watches them move)
  private readonly days: DayFreezer;
  private readonly fresh: FreshnessTracker;
  private readonly filters: FilterResolver;
  private readonly origin: OriginCheck;
  private readonly profiles: ProviderProfiles;
  private readonly unsubscribe: () => void;
  private readonly follower: StoreFollower;
  private slots: SlotExpectation;

  constructor(opts: PublicationOptions) {
    this.slots = opts.awaitSlotPlan ? { kind: 'pending' } : { kind: 'live' };
    this.specs = opts.specs;
    const site = opts.site ?? (opts.config && siteOfConfig(opts.config));
    if (!site) throw new TypeError('createPublication needs `site` or `config`');
    this.siteBase = site;
    this.bySlug = new Map(opts.specs.map((s) => [s.slug, s]));
    const ctx: PublicationContext = {
      specs: this.specs,
      bySlug: this.bySlug,
      store: gatedStore(opts.store, {
        down: () => this.follower?.down === true,
        // A replica's read past its deadline: the engine is down until a poll answers.
        missed: () => this.follower?.markDown(),
        retryAfterS: 5,
        ...opts.engineReads,
      }),
      clock: opts.clock ?? Date.now,
      site: () => this.site,
      build: opts.build ?? processBuildInfo(),
      specHashes: specHashes(opts.specs),
      offload: opts.offload,
      dataValues: (slug, d) => this.filters.valuesOf(slug, d),
      dataValuesRead: () => this.filters.current(),
    };
    this.fresh = new FreshnessTracker(ctx);
    this.points = new EvalPoints(ctx, this.fresh);
    this.views = new Views(ctx, opts.maxViewAgeMs ?? 60_000, this.points);
    this.days = new DayFreezer({
      ...ctx,
      liveIndex: () => this.views.citable(),
      slots: () => this.slots,
      ...(opts.clockRate !== undefined ? { clockRate: opts.clockRate } : {}),
    });
    this.profiles = new ProviderProfiles({
      ctx,
      days: this.days,
      stat: (slug) => this.views.stat(slug, null),
      maxViewAgeMs: opts.maxViewAgeMs ?? 60_000,
    });
    this.filters = new FilterResolver(ctx);
    this.filters.markStale(); // the regions already stored are known before a request asks for one
    const slugsOf = benchmarksOfMetrics(this.specs);
    this.unsubscribe = ctx.store.onAppend((metrics, minT, maxT) => {
      this.filters.markStale();
      const slugs = slugsOf(metrics);
      if (slugs.size > 0) this.applied(slugs, minT, maxT);
      this.origin.afterAppend(minT, maxT);
    });
    // The follower reads the engine itself (how it is found up again), its newest times too.
    this.follower = new StoreFollower({
      ...ctx,
      store: opts.store,
      newest: (slug) => this.fresh.newest(slug),
      known: (reads) => this.fresh.ensureLastSample(reads).catch(() => undefined),
      applied: (slugs, minT, maxT) => {
        this.applied(slugs, minT, maxT);
        this.origin.afterAppend(minT, maxT);
        this.dataset.changed();
      },
      loadDataValues: () => this.filters.loadDataValues(),
      engineChanged: () => this.dropViews(), // every live view recomputed degraded, or live again
    });
    // Simulated samples found in the store: every view built before is dropped and re-announced.
    const simulated = site.simulated === true || opts.config?.simulated === true;
    this.origin = new OriginCheck(ctx.store, simulated, () => this.dropViews());
    this.dataset = new DatasetPublisher({
      store: ctx.store,
      specs: this.specs,
      site: ctx.site,
      clock: ctx.clock,
      checkDay: (day) => this.days.checkDay(day),
      firstDay: () => this.days.firstDay(),
      frozenIndexSite: (day) => this.days.frozenIndexSite(day),
      files: ctx.offload?.datasetFiles,
    });
  }

  /** Every live view dropped and re-announced (recomputed on the next request). */
  private dropViews(): void {
    this.views.clear();
    this.profiles.clear();
    this.listeners.notify(new Set(this.specs.map((s) => s.slug)));
  }

  /** What new samples of these benchmarks (from minT to maxT) change: an append, or one followed. */
  private applied(slugs: ReadonlySet<string>, minT: number, maxT: number): void {
    this.fresh.noteSamples(slugs, maxT);
    this.days.noteSamples(minT);
    this.views.invalidate(slugs, minT);
    this.profiles.invalidate();
    this.listeners.notify(slugs);
  }

  /** A replica's poll (store-follower.ts); a day the writer froze since joins the dataset index. */
  async followStore(beforeUp?: () => Promise<void>): Promise<ReadonlySet<string>> {
    const moved = await this.follower.follow(beforeUp);
    if (await this.days.newFrozenDay().catch(() => false)) this.dataset.changed();
    return moved;
  }

  /** True while the replica's last poll of the engine failed: views are the last good, degraded. */
  get engineDown(): boolean {
    return this.follower.down;
  }

  /** The demo's plan: a closed day freezes once each slot it plans there was tried; set before its first. */
  expectSlots(plan: SlotPlanView | null): void {
    // null: a demo without a plan (a DATA_DIR filled before plans) expects what serve does.
    this.slots = plan ?? { kind: 'live' };
  }

  /** Site name, base URL and whether the data is simulated: what every view is built with. */
  get site(): Site {
    return this.origin.simulated ? { ...this.siteBase, simulated: true } : this.siteBase;
  }

  /** True when the data published comes from simulated providers. */
  get isSimulated(): boolean {
    return this.origin.simulated;
  }

  /** Resolves once the start-up (or latest append's) look for simulated samples is done. */
  originsChecked(): Promise<void> {
    return this.origin.checked();
  }

  /** Bumped whenever a newest sample time changes (what /api/freshness shows besides the clock). */
  get freshnessVersion(): number {
    return this.fresh.version;
  }

  /** Writes into frozen days (appends seen, or per day the stored samples beyond its dataset, if more). */
  get lateWrites(): number {
    return this.days.lateWrites;
  }

  /** Failed day freezes since start-up (each is retried with backoff). */
  get freezeFailures(): number {
    return this.days.freezeFailures;
  }

  /** True while a served view is the one a request would get now (the HTTP hot path asks). */
  isCurrent(served: object): boolean {
    return this.views.isCurrent(served) || this.profiles.holds(served);
  }

  onChange(listener: (slugs: ReadonlySet<string>) => void): () => void {
    return this.listeners.add(listener);
  }

  spec(slug: string): BenchmarkSpec | undefined {
    return this.bySlug.get(slug);
  }

  resolveFilters(slug: string, raw: Readonly<Record<string, string | undefined>>): FilterResolution {
    return this.filters.resolve(slug, raw);
  }

  dimensionValues(slug: string, dimension: string): readonly string[] {
    return this.filters.valuesOf(slug, dimension);
  }

  /** Reads the values of data-valued dimensions (region) from the store; resolves once known. */
  loadDataValues(): Promise<void> {
    return this.filters.loadDataValues();
  }

  /** A view evaluated at an arbitrary time, uncached (snapshots, 24 h comparisons). */
  statAt(slug: string, filters: Filters | null, evalTime: number): Promise<Stat> {
    return this.views.statAt(slug, filters, evalTime);
  }

  stat(slug: string, filters: Filters | null): Promise<Served<Stat>> {
    return this.views.stat(slug, filters);
  }

  /** Served bytes for the hot path, or undefined when the view must be (re)computed. */
  peekStat(slug: string, filters: Filters | null): Served<Stat> | undefined {
    return this.views.peekStat(slug, filters);
  }

  series(
    slug: string,
    filters: Filters | null,
    range: SeriesRange,
    providers: readonly string[] | null,
  ): Promise<Served<Series>> {
    return this.views.series(slug, filters, range, providers);
  }

  peekSeries(
    slug: string,
    filters: Filters | null,
    range: SeriesRange,
    providers: readonly string[] | null,
  ): Served<Series> | undefined {
    return this.views.peekSeries(slug, filters, range, providers);
  }

  audit(
    slug: string,
    provider: string,
    evalTime?: number,
    window?: { readonly filters: Filters | null },
  ): Promise<Served<Audit> | null> {
    return this.views.audit(slug, provider, evalTime, window);
  }

  citable(): Promise<Served<CitableIndex>> {
    return this.views.citable();
  }

  /** Today's provenance (the live index's): this build, its specs' hashes, the last 24 h's harness builds. */
  async provenance(): Promise<Provenance | undefined> {
    return (await this.citable()).value.site.provenance;
  }

  peekCitable(): Served<CitableIndex> | undefined {
    return this.views.peekCitable();
  }

  llmContext(): Promise<ServedText> {
    return this.views.llmContext();
  }

  /** /llms.txt (llmstxt.org) of the live index; /llms-full.txt is llmContext's bytes. */
  llmsTxt(): Promise<ServedText> {
    return this.views.llmsTxt();
  }

  featured(): Promise<Served<Featured>> {
    return this.views.featured();
  }

  /** Live (filtered: each benchmark's own rules) or of a closed day, from its frozen Stats. */
  compare(a: string, b: string, q: CompareQuery = {}): Promise<CompareResult> {
    if (q.date !== undefined)
      return this.views.compareDay(a, b, q.date, (s, d) => this.days.frozenStat(s, d));
    const resolve = (slug: string, raw: Readonly<Record<string, string | undefined>>) =>
      this.resolveFilters(slug, raw);
    return this.views.compare(a, b, q.filters ? { raw: q.filters, resolve } : null);
  }

  /** Compare pairs requests asked for, oldest first (the prewarm recomputes them). */
  comparePairs(): readonly (readonly [string, string])[] {
    return this.views.comparePairs();
  }

  /** GET /api/providers: every catalogue provider (fixed for the process). */
  providers(): Served<ProviderListing> {
    return this.profiles.listing();
  }

  /** GET /api/providers/{slug}: live (`date` null) or built from the Stats frozen for a closed day. */
  providerProfile(slug: string, date: string | null): Promise<ProfileResult> {
    return this.profiles.profile(slug, date);
  }

  /** A cached live profile for the hot path, or undefined. */
  peekProviderProfile(slug: string): Served<ProviderProfile> | undefined {
    return this.profiles.peek(slug);
  }

  freshness(): Promise<Freshness> {
    return this.fresh.freshness();
  }

  peekFreshness(): Freshness | undefined {
    return this.fresh.peek();
  }

  checkDay(day: string): Promise<DayResult> {
    return this.days.checkDay(day);
  }

  snapshot(day: string): Promise<SnapshotResult> {
    return this.days.snapshot(day);
  }

  frozenStat(
    slug: string,
    day: string,
  ): Promise<{ kind: 'ok'; served: ServedText } | Exclude<DayResult, { kind: 'ok' }>> {
    return this.days.frozenStat(slug, day);
  }

  /** A provider's audit frozen with a closed day (`window`: the one a window-mode row links to). */
  frozenAudit(slug: string, provider: string, day: string, window: boolean): Promise<FrozenAuditResult> {
    return this.days.frozenAudit(slug, provider, day, window);
  }

  /** The site a closed day was frozen under, or null for a day frozen before sites were. */
  frozenSite(day: string): Promise<Site | null> {
    return this.days.frozenSite(day);
  }

  /** Compares each frozen day's stored samples with its dataset's rows; the excess is late. */
  findLateWrites(until: number): Promise<void> {
    return this.dataset.findLateWrites(until, (start, extra) => this.days.noteStoredLate(start, extra));
  }

  freezeDay(day: string): Promise<void> {
    return this.days.freezeDay(day);
  }

  freezeClosedDays(): Promise<number> {
    return this.days.freezeClosedDays();
  }

  /** Freezes closed days now and at each 00:00 UTC + grace; then dataset files, then late writes. */
  startFreezer(onError: (e: unknown) => void = () => undefined): Promise<void> {
    return this.days.start(onError, async (until) => {
      await this.dataset.freezeClosedDays(until).catch((e: unknown) => this.dataset.closed || onError(e));
      await this.findLateWrites(until).catch((e: unknown) => this.dataset.closed || onError(e));
    });
  }

  close(): void {
    this.filters.close();
    this.days.close();
    this.unsubscribe();
    this.dataset.close();
  }
}

export function createPublication(opts: PublicationOptions): Publication {
  return new Publication(opts);
}
