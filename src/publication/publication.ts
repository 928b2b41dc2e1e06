import type { Config } from '../config.ts';
import type {
  Audit,
  CitableIndex,
  Compare,
  Featured,
  Filters,
  Freshness,
  Series,
  Stat,
} from '../core/api-schemas.ts';
import { canonicalJson } from '../core/canonical-json.ts';
import { buildCompare } from '../core/compare.ts';
import { DAY_MS, dayEnd, dayStart, parseDay } from '../core/dates.ts';
import { buildFeatured } from '../core/featured.ts';
import { etagOf } from '../core/hash.ts';
import { llmContextMarkdown } from '../core/markdown.ts';
import { PROVIDERS, providerName } from '../core/providers.ts';
import type { SeriesRange } from '../core/series.ts';
import { type BenchmarkSpec, DIMENSION_NAMES, durationMs, SLUG_RE } from '../core/spec-schema.ts';
import { citableRow } from '../core/stat.ts';
import type { Site } from '../core/urls.ts';
import { putSnapshots, type Store } from '../store/sample-store.ts';
import { buildAudit } from './audit.ts';
import { compareRowFor } from './compare-rows.ts';
import { computeStat, specMetrics } from './compute.ts';
import { DatasetPublisher } from './dataset.ts';
import { readOrigins } from './sample-origins.ts';
import { computeSeries } from './series-view.ts';
import {
  type CompareResult,
  type FilterResolution,
  type PublicationApi,
  type Served,
  UnavailableError,
  UnknownBenchmarkError,
} from './types.ts';
import { ViewCache } from './view-cache.ts';

export interface PublicationOptions {
  readonly specs: readonly BenchmarkSpec[];
  readonly store: Store;
  /** Site name and base URL; taken from `config` when omitted. */
  readonly site?: Site;
  readonly config?: Pick<Config, 'siteName' | 'baseUrl'> & { readonly simulated?: boolean };
  readonly clock?: () => number;
  /** Live views are recomputed at least this often, since the 24 h window slides. */
  readonly maxViewAgeMs?: number;
}

export type SnapshotResult =
  | { kind: 'frozen'; served: Served<CitableIndex> | ServedText; day: string }
  | { kind: 'live'; served: Served<CitableIndex>; day: string }
  | { kind: 'bad_date'; message: string }
  | { kind: 'not_frozen'; message: string };

export type DayResult =
  | { kind: 'ok'; day: string; start: number }
  | { kind: 'today'; day: string; start: number }
  | { kind: 'bad_date'; message: string }
  | { kind: 'not_frozen'; message: string };

/**
 * A day is frozen once, this long after it closes (00:00 UTC). Every sample of a day is written by
 * then: a cycle's samples carry its slot time and a cycle ends before its deadline, which falls
 * before the next slot, so a day's last cycle (23:30 or 18:00) has written everything by 00:00.
 */
export const FREEZE_GRACE_MS = 10 * 60_000;

export interface ServedText {
  readonly body: Uint8Array<ArrayBuffer>;
  readonly etag: string;
}

const ALL = '__all__';
const encoder = new TextEncoder();

export function serve<T>(value: T): Served<T> {
  const body = encoder.encode(JSON.stringify(value));
  return { value, body, etag: etagOf(body) };
}

function filterSig(filters: Filters | null): string {
  if (!filters) return '';
  return DIMENSION_NAMES.filter((d) => filters[d] !== undefined)
    .map((d) => `${d}=${filters[d]}`)
    .join('&');
}

/** Store failures surface as UnavailableError, which the front doors turn into 503. */
async function guarded<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof UnknownBenchmarkError) throw e;
    throw new UnavailableError(`benchmarks are temporarily unavailable: ${(e as Error).message}`);
  }
}

export class Publication implements PublicationApi {
  readonly specs: readonly BenchmarkSpec[];
  private readonly siteBase: Site;
  /**
   * Simulated data: set by the mode the service runs in (the demo, `--simulate`), or found in the
   * store (samples labelled origin="simulated") at start-up or after an append. Once set it stays.
   */
  private simulated: boolean;
  private originCheck: Promise<void>;
  private readonly store: Store;
  private readonly clock: () => number;
  private readonly bySlug: ReadonlyMap<string, BenchmarkSpec>;
  private readonly byMetric = new Map<string, string[]>();
  private readonly views: ViewCache<Served<Stat>>;
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
  /** Every provider slug some spec measures (compare validates against it without a scan). */
  private readonly measured: ReadonlySet<string>;
  private readonly listeners = new Set<(slugs: ReadonlySet<string>) => void>();
  private readonly freezing = new Map<string, Promise<void>>();
  /** Frozen bytes never change: once read they are held here (bounded). */
  private readonly frozen = new Map<string, ServedText>();
  private readonly unsubscribe: () => void;
  private freezeTimer: NodeJS.Timeout | undefined;
  /** Newest sample time per benchmark, kept from appends so freshness never queries the store. */
  private readonly lastSample = new Map<string, number>();
  private lastSampleReady: Promise<void> | undefined;
  private lastSampleKnown = false;
  /** Bumped whenever a newest sample time changes (what /api/freshness shows besides the clock). */
  freshnessVersion = 0;
  /** First UTC day with any sample (undefined: not read yet). */
  private firstDayStart: number | null | undefined;
  /** Last day frozen so far (its start, epoch ms); later writes into it or before are late. */
  private frozenThrough = Number.NEGATIVE_INFINITY;
  /** Appends that carried samples for an already frozen day (they change nothing published). */
  lateWrites = 0;
  /** The daily open dataset (GET /api/dataset…), frozen with the day snapshots. */
  readonly dataset: DatasetPublisher;

  constructor(opts: PublicationOptions) {
    this.specs = opts.specs;
    const site = opts.site ?? (opts.config && { name: opts.config.siteName, baseUrl: opts.config.baseUrl });
    if (!site) throw new TypeError('createPublication needs `site` or `config`');
    this.siteBase = site;
    this.simulated = site.simulated === true || opts.config?.simulated === true;
    this.store = opts.store;
    this.clock = opts.clock ?? Date.now;
    this.bySlug = new Map(opts.specs.map((s) => [s.slug, s]));
    for (const s of opts.specs) {
      for (const m of specMetrics(s)) this.byMetric.set(m, [...(this.byMetric.get(m) ?? []), s.slug]);
    }
    const maxAge = opts.maxViewAgeMs ?? 60_000;
    // Room for every benchmark's views (unfiltered, filtered, series ranges) before a cache clears.
    const room = Math.max(5000, 20 * opts.specs.length);
    // A view that only aged out is answered for up to one more maxAge while it is recomputed.
    const cache = <T>() => new ViewCache<T>(maxAge, this.clock, room, maxAge);
    this.views = cache();
    this.seriesViews = cache();
    this.aggregates = cache();
    this.audits = cache();
    this.dayAgo = cache();
    this.lastGoodRoom = room;
    this.measured = new Set(opts.specs.flatMap((s) => s.providers.map((p) => p.slug)));
    this.unsubscribe = this.store.onAppend((metrics, minT, maxT) => {
      this.seenStale = true;
      this.invalidate(metrics, minT, maxT);
      if (!this.simulated) this.originCheck = this.checkOrigin({ notBefore: minT - 1, at: maxT });
    });
    this.originCheck = this.simulated ? Promise.resolve() : this.checkOrigin();
    this.dataset = new DatasetPublisher({
      store: this.store,
      specs: this.specs,
      site: () => this.site,
      clock: this.clock,
      checkDay: (day) => this.checkDay(day),
      firstDay: () => this.firstDay(),
    });
  }

  /** Site name, base URL and whether the data is simulated: what every view is built with. */
  get site(): Site {
    return this.simulated ? { ...this.siteBase, simulated: true } : this.siteBase;
  }

  /** True when the data published comes from simulated providers. */
  get isSimulated(): boolean {
    return this.simulated;
  }

  /** Resolves once the start-up (or latest append's) look for simulated samples is done. */
  originsChecked(): Promise<void> {
    return this.originCheck;
  }

  /**
   * Looks for simulated samples (all of the store, or one append's time range). Finding any marks
   * every view simulated from then on and drops every cached view built before.
   */
  private async checkOrigin(range?: { notBefore: number; at: number }): Promise<void> {
    try {
      const o = await readOrigins(this.store, range);
      if (!o.simulated || this.simulated) return;
      this.simulated = true;
      this.views.clear();
      this.seriesViews.clear();
      this.aggregates.clear();
      this.audits.clear();
      this.dayAgo.clear();
      for (const l of this.listeners) l(new Set(this.specs.map((s) => s.slug)));
    } catch {
      // A store that cannot be read serves nothing either; the next append looks again.
    }
  }

  private invalidate(metrics: ReadonlySet<string>, minT: number, maxT: number): void {
    const slugs = new Set<string>();
    for (const m of metrics) for (const s of this.byMetric.get(m) ?? []) slugs.add(s);
    if (slugs.size === 0) return;
    for (const s of slugs) this.lastSample.set(s, Math.max(this.lastSample.get(s) ?? maxT, maxT));
    this.freshnessVersion++;
    if (this.firstDayStart !== undefined && (this.firstDayStart === null || minT < this.firstDayStart)) {
      this.firstDayStart = dayStart(minT);
    }
    if (dayStart(minT) <= this.frozenThrough) this.lateWrites++;
    for (const s of slugs) {
      this.views.invalidate(s);
      this.seriesViews.invalidate(s);
      this.audits.invalidate(s);
      if (minT <= this.clock() - DAY_MS) this.dayAgo.invalidate(s);
    }
    this.aggregates.invalidate(ALL);
    for (const l of this.listeners) l(slugs);
  }

  /**
   * True while a served view (Stat, series, audit, compare, index, llm-context, featured) is the
   * one a request would get now: not invalidated by samples, not past its age, not replaced. (Frozen
   * bytes need no asking: they never change.) The HTTP hot path asks this before every replay.
   */
  isCurrent(served: object): boolean {
    return (
      this.views.holds(served) ||
      this.aggregates.holds(served) ||
      this.seriesViews.holds(served) ||
      this.audits.holds(served)
    );
  }

  onChange(listener: (slugs: ReadonlySet<string>) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  spec(slug: string): BenchmarkSpec | undefined {
    return this.bySlug.get(slug);
  }

  resolveFilters(slug: string, raw: Readonly<Record<string, string | undefined>>): FilterResolution {
    const spec = this.bySlug.get(slug);
    if (!spec) {
      return {
        ok: false,
        status: 404,
        error: 'unknown_benchmark',
        message: `Unknown benchmark "${slug}". Valid slugs: ${this.specs.map((s) => s.slug).join(', ')}.`,
      };
    }
    const filters: Filters = {};
    let any = false;
    for (const d of DIMENSION_NAMES) {
      const rawValue = raw[d];
      if (rawValue === undefined) continue;
      const value = rawValue.trim().toLowerCase();
      const dim = spec.dimensions[d];
      if (!dim) {
        return {
          ok: false,
          status: 404,
          error: 'unknown_dimension',
          message: `Benchmark "${slug}" has no "${d}" dimension. Declared: ${
            Object.keys(spec.dimensions).join(', ') || 'none'
          }.`,
        };
      }
      if (value === 'all') continue;
      // A dimension whose values come from the data (region) knows the values seen in the store.
      const values = dim.fromData ? this.dataValues(d) : dim.values.map((v) => v.value);
      const match = values.find((v) => v.toLowerCase() === value);
      if (match === undefined) {
        return {
          ok: false,
          status: 404,
          error: 'unknown_dimension_value',
          message: `Unknown ${d} "${rawValue.slice(0, 64)}" for "${slug}". Valid values: ${values.join(', ') || 'none measured yet'}.`,
        };
      }
      filters[d] = match;
      any = true;
    }
    return { ok: true, filters: any ? filters : null };
  }

  /** Label values seen in the store per data-valued dimension (region), refreshed on appends. */
  private readonly seen = new Map<string, readonly string[]>();
  private seenLoad: Promise<void> | undefined;
  private seenStale = true;

  private dataValues(dim: string): readonly string[] {
    if (this.seenStale) void this.loadDataValues();
    return this.seen.get(dim) ?? [];
  }

  /**
   * Reads the values of data-valued dimensions (e.g. every `region` a harness wrote) from the
   * store's series; resolves once they are known. Called at start-up and after appends.
   */
  loadDataValues(): Promise<void> {
    if (this.seenLoad) return this.seenLoad;
    this.seenStale = false;
    const dims = new Map<string, Set<string>>();
    for (const spec of this.specs) {
      for (const [d, dim] of Object.entries(spec.dimensions)) if (dim?.fromData) dims.set(d, new Set());
    }
    this.seenLoad = (async () => {
      if (dims.size === 0) return;
      const metrics = [...new Set(this.specs.flatMap(specMetrics))];
      for (const m of metrics) {
        for (const s of await this.store.series(m)) {
          for (const [d, set] of dims) {
            const v = s.labels[d];
            if (v !== undefined) set.add(v);
          }
        }
      }
      for (const [d, set] of dims) this.seen.set(d, [...set].sort());
    })()
      .catch(() => {
        this.seenStale = true;
      })
      .finally(() => {
        this.seenLoad = undefined;
      });
    return this.seenLoad;
  }

  /** A view evaluated at an arbitrary time, uncached (snapshots, 24 h comparisons). */
  statAt(slug: string, filters: Filters | null, evalTime: number): Promise<Stat> {
    const spec = this.bySlug.get(slug);
    if (!spec) return Promise.reject(new UnknownBenchmarkError(slug));
    return guarded(() => computeStat(this.store, spec, filters, evalTime, this.site));
  }

  stat(slug: string, filters: Filters | null): Promise<Served<Stat>> {
    const spec = this.bySlug.get(slug);
    if (!spec) return Promise.reject(new UnknownBenchmarkError(slug));
    const key = `${slug}?${filterSig(filters)}`;
    return this.views.get(key, slug, () =>
      this.orLastGood(key, () =>
        guarded(async () => serve(await computeStat(this.store, spec, filters, this.clock(), this.site))),
      ),
    );
  }

  /** The last view computed per key, for when the store cannot be read. */
  private readonly lastGood = new Map<string, Served<Stat>>();
  private readonly lastGoodRoom: number;
  private readonly degradedOf = new WeakMap<Served<Stat>, Served<Stat>>();

  /**
   * Backend down: the last computed view, marked `degraded: true`, instead of a 503 (only a view
   * never computed fails). New samples or the next recompute after recovery replace it.
   */
  private async orLastGood(key: string, compute: () => Promise<Served<Stat>>): Promise<Served<Stat>> {
    try {
      const v = await compute();
      if (this.lastGood.size >= this.lastGoodRoom && !this.lastGood.has(key)) this.lastGood.clear();
      this.lastGood.set(key, v);
      return v;
    } catch (e) {
      const last = this.lastGood.get(key);
      if (!(e instanceof UnavailableError) || !last) throw e;
      let d = this.degradedOf.get(last);
      if (!d) {
        d = serve({ ...last.value, degraded: true as const });
        this.degradedOf.set(last, d);
      }
      return d;
    }
  }

  /**
   * The frozen Stat of a closed day, served byte-identical forever. `today` when the day is the
   * current one (its values are live), `not_frozen`/`bad_date` with the real reason otherwise.
   */
  async frozenStat(
    slug: string,
    day: string,
  ): Promise<{ kind: 'ok'; served: ServedText } | Exclude<DayResult, { kind: 'ok' }>> {
    if (!this.bySlug.has(slug)) throw new UnknownBenchmarkError(slug);
    const d = await this.checkDay(day);
    if (d.kind !== 'ok') return d;
    const served = await this.readFrozen(`stat:${slug}:${day}`);
    if (!served) return { kind: 'not_frozen', message: `${day} has no frozen snapshot.` };
    return { kind: 'ok', served };
  }

  /**
   * GET /api/series/{slug}: each provider's value on a fixed grid, as the Stat would have published
   * it at each point. Cached and invalidated with the benchmark's Stats.
   */
  series(
    slug: string,
    filters: Filters | null,
    range: SeriesRange,
    providers: readonly string[] | null,
  ): Promise<Served<Series>> {
    const spec = this.bySlug.get(slug);
    if (!spec) return Promise.reject(new UnknownBenchmarkError(slug));
    const key = `series:${slug}?${range}&${filterSig(filters)}&${providers?.join(',') ?? ''}`;
    return this.seriesViews.get(key, slug, () =>
      guarded(async () =>
        serve(
          await computeSeries(this.store, {
            spec,
            filters,
            range,
            providers,
            evalTime: this.clock(),
            simulated: this.isSimulated,
          }),
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
    return this.seriesViews.peek(
      `series:${slug}?${range}&${filterSig(filters)}&${providers?.join(',') ?? ''}`,
    );
  }

  /** Served bytes for the hot path, or undefined when the view must be (re)computed. */
  peekStat(slug: string, filters: Filters | null): Served<Stat> | undefined {
    return this.views.peek(`${slug}?${filterSig(filters)}`);
  }

  private async allStats(): Promise<Stat[]> {
    return Promise.all(this.specs.map(async (s) => (await this.stat(s.slug, null)).value));
  }

  private index(stats: readonly Stat[], snapshotDate: string | null): CitableIndex {
    const live = stats.filter((s) => this.bySlug.get(s.slug)?.status === 'live');
    return {
      site: {
        name: this.site.name,
        url: this.site.baseUrl,
        license: 'CC-BY-4.0',
        snapshotDate,
        ...(this.simulated ? { simulated: true as const } : {}),
        ...(stats.some((s) => s.degraded) ? { degraded: true as const } : {}),
      },
      count: live.length,
      benchmarks: live.map(citableRow),
    };
  }

  peekCitable(): Served<CitableIndex> | undefined {
    return this.aggregates.peek('citable') as Served<CitableIndex> | undefined;
  }

  citable(): Promise<Served<CitableIndex>> {
    return this.aggregates.get('citable', ALL, async () =>
      serve(this.index(await this.allStats(), null)),
    ) as Promise<Served<CitableIndex>>;
  }

  private async ensureLastSample(): Promise<void> {
    this.lastSampleReady ??= guarded(async () => {
      for (const spec of this.specs) {
        const b = await this.store.timeBounds(specMetrics(spec));
        if (b) this.lastSample.set(spec.slug, Math.max(this.lastSample.get(spec.slug) ?? b.max, b.max));
      }
      this.lastSampleKnown = true;
      this.freshnessVersion++;
    }).catch((e: unknown) => {
      this.lastSampleReady = undefined;
      throw e;
    });
    return this.lastSampleReady;
  }

  /**
   * Every benchmark with data keeps its newest sample time in `freshness` (stale ones included);
   * `status` says for each whether it is stale (older than twice its cadence) or a draft (never
   * measured). `now` and the ages are per request; the store is read once per process.
   */
  async freshness(): Promise<Freshness> {
    await this.ensureLastSample();
    return this.freshnessNow();
  }

  /** /api/freshness without a promise once the newest sample times are known; else undefined. */
  peekFreshness(): Freshness | undefined {
    return this.lastSampleKnown ? this.freshnessNow() : undefined;
  }

  private freshnessNow(): Freshness {
    const now = this.clock();
    const freshness: Record<string, number> = {};
    const status: Freshness['status'] = {};
    for (const spec of this.specs) {
      const last = this.lastSample.get(spec.slug);
      if (last === undefined) {
        status[spec.slug] = { lastSampleAt: null, ageSeconds: null, stale: false, draft: true };
        continue;
      }
      freshness[spec.slug] = last;
      status[spec.slug] = {
        lastSampleAt: new Date(last).toISOString(),
        ageSeconds: Math.max(0, Math.floor((now - last) / 1000)),
        stale: now - last > 2 * durationMs(spec.cadence),
        draft: false,
      };
    }
    return { now, freshness, status };
  }

  llmContext(): Promise<ServedText> {
    return this.aggregates.get('llm', ALL, async () => {
      const body = encoder.encode(llmContextMarkdown(await this.allStats(), this.site));
      return { body, etag: etagOf(body) };
    });
  }

  featured(): Promise<Served<Featured>> {
    return this.aggregates.get('featured', ALL, async () => {
      const now = await this.allStats();
      const then = this.clock() - DAY_MS;
      const dayAgo = new Map<string, Stat>();
      for (const s of now) {
        if (s.status === 'draft') continue;
        dayAgo.set(s.slug, await this.dayAgo.get(s.slug, s.slug, () => this.statAt(s.slug, null, then)));
      }
      return serve(buildFeatured(now, dayAgo));
    }) as Promise<Served<Featured>>;
  }

  async compare(a: string, b: string): Promise<CompareResult> {
    for (const s of [a, b]) {
      if (!SLUG_RE.test(s)) {
        return { ok: false, status: 400, error: 'bad_slug', message: `"${s}" is not a valid provider slug.` };
      }
    }
    if (a === b) {
      return { ok: false, status: 400, error: 'same_provider', message: 'Compare two different providers.' };
    }
    for (const s of [a, b]) {
      if (!this.measured.has(s) || !PROVIDERS.has(s)) {
        return {
          ok: false,
          status: 404,
          error: 'unknown_provider',
          message: `Unknown provider "${s}". Known: ${[...this.measured].sort().join(', ')}.`,
        };
      }
    }
    const shared = this.specs.filter(
      (s) => s.providers.some((p) => p.slug === a) && s.providers.some((p) => p.slug === b),
    );
    if (shared.length === 0) {
      return {
        ok: false,
        status: 404,
        error: 'no_shared_benchmark',
        message: `${providerName(a)} and ${providerName(b)} do not appear in a common benchmark.`,
      };
    }
    // Computed once per change of its inputs: any benchmark's samples can change a pair's rows.
    const served = await this.aggregates.get(`compare:${a}:${b}`, ALL, async () => {
      const evalTime = this.clock();
      const rows = await guarded(() =>
        Promise.all(
          shared.map(async (spec) =>
            compareRowFor(this.store, spec, (await this.stat(spec.slug, null)).value, a, b, evalTime),
          ),
        ),
      );
      return serve(
        buildCompare({ slug: a, name: providerName(a) }, { slug: b, name: providerName(b) }, rows, this.site),
      );
    });
    return { ok: true, served: served as Served<Compare> };
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
    const spec = this.bySlug.get(slug);
    if (!spec) throw new UnknownBenchmarkError(slug);
    if (!spec.providers.some((p) => p.slug === provider)) return null;
    // Live audits are cached like Stats (recomputed on new samples or after maxViewAgeMs); a
    // day-pinned one is cached under its day's end and dropped only when its benchmark changes.
    const scope = window ? `?window&${filterSig(window.filters)}` : '';
    const key = `${slug}/${provider}@${evalTime ?? 'live'}${scope}`;
    return this.audits.get(key, slug, () =>
      guarded(async () =>
        serve(
          await buildAudit(
            this.store,
            spec,
            provider,
            evalTime ?? this.clock(),
            this.site,
            window ? { window } : {},
          ),
        ),
      ),
    );
  }

  /** First UTC day with any sample of any benchmark, or null when the store is empty (read once). */
  private async firstDay(): Promise<number | null> {
    if (this.firstDayStart !== undefined) return this.firstDayStart;
    const bounds = await guarded(() => this.store.timeBounds(this.specs.flatMap(specMetrics)));
    // An append may have set it meanwhile; keep the earlier of the two.
    const first = bounds === null ? null : dayStart(bounds.min);
    if (this.firstDayStart === undefined || this.firstDayStart === null) this.firstDayStart = first;
    else if (first !== null) this.firstDayStart = Math.min(this.firstDayStart, first);
    return this.firstDayStart;
  }

  /** The day a closed day's freeze is due: start + 24 h + grace. */
  private closedBefore(now: number): number {
    return dayStart(now - FREEZE_GRACE_MS);
  }

  /** Validates a requested day and says why it cannot be served (the real reason, not "malformed"). */
  async checkDay(day: string): Promise<DayResult> {
    const parsed = parseDay(day);
    if (!parsed.ok) return { kind: 'bad_date', message: parsed.message };
    const now = this.clock();
    const today = dayStart(now);
    if (parsed.start > today) return { kind: 'bad_date', message: `${day} is in the future.` };
    if (parsed.start === today) return { kind: 'today', day, start: parsed.start };
    const first = await this.firstDay();
    if (first === null || parsed.start < first) {
      const since =
        first === null
          ? 'no data has been recorded yet'
          : `the first is ${new Date(first).toISOString().slice(0, 10)}`;
      return { kind: 'bad_date', message: `${day} is before the first snapshot (${since}).` };
    }
    if (parsed.start >= this.closedBefore(now)) {
      return {
        kind: 'not_frozen',
        message: `${day} is frozen ${FREEZE_GRACE_MS / 60_000} minutes after it closes; retry shortly.`,
      };
    }
    return { kind: 'ok', day, start: parsed.start };
  }

  private async readFrozen(key: string): Promise<ServedText | null> {
    const hit = this.frozen.get(key);
    if (hit) return hit;
    const stored = await guarded(() => this.store.getSnapshot(key));
    if (!stored) return null;
    const served = { body: stored.body as Uint8Array<ArrayBuffer>, etag: stored.etag };
    if (this.frozen.size >= 2000) this.frozen.clear();
    this.frozen.set(key, served);
    return served;
  }

  /**
   * Day snapshots are real: today is the live index; a closed day is served from the bytes frozen
   * shortly after it closed (or at start-up), byte-identical forever, whatever arrives later.
   */
  async snapshot(day: string): Promise<SnapshotResult> {
    const d = await this.checkDay(day);
    if (d.kind === 'today') return { kind: 'live', served: await this.citable(), day };
    if (d.kind !== 'ok') return d;
    const served = await this.readFrozen(`citable:${day}`);
    if (!served) return { kind: 'not_frozen', message: `${day} has no frozen snapshot.` };
    return { kind: 'frozen', served, day };
  }

  /**
   * Freezes one closed day: each benchmark's unfiltered Stat evaluated at the day's last
   * millisecond from that day's samples, with every link pinned to the day, the index of those
   * Stats, and the spec text they were computed with, all serialized canonically. Stored once:
   * an existing snapshot is never rewritten. The index goes last, so it marks a complete freeze.
   */
  freezeDay(day: string): Promise<void> {
    const running = this.freezing.get(day);
    if (running) return running;
    const p = guarded(async () => {
      if (await this.store.getSnapshot(`citable:${day}`)) return;
      const parsed = parseDay(day);
      if (!parsed.ok) throw new Error(parsed.message);
      const stats = await Promise.all(
        this.specs.map((s) =>
          computeStat(this.store, s, null, dayEnd(parsed.start), this.site, { pinDay: day }),
        ),
      );
      // One batch where the store has one (a DuckDB insert costs ~4 ms whatever its size: 1,000
      // Stats one by one took 6.2 s of a start-up, 96 ms as one transaction).
      const entries = stats.map((st) => {
        const body = encoder.encode(canonicalJson(st));
        return { key: `stat:${st.slug}:${day}`, body, etag: etagOf(body) };
      });
      const specs = encoder.encode(canonicalJson(this.specs));
      entries.push({ key: `specs:${day}`, body: specs, etag: etagOf(specs) });
      await putSnapshots(this.store, entries);
      const body = encoder.encode(canonicalJson(this.index(stats, day)));
      await this.store.putSnapshot(`citable:${day}`, body, etagOf(body));
    }).finally(() => this.freezing.delete(day));
    this.freezing.set(day, p);
    return p;
  }

  /** Freezes every closed day from the first day with data that is not frozen yet. */
  /** Closed days from the first day with data, newest first (the one most likely to be asked for). */
  private async closedDays(): Promise<number[]> {
    const first = await this.firstDay();
    const until = this.closedBefore(this.clock());
    const out: number[] = [];
    if (first !== null) for (let d = until - DAY_MS; d >= first; d -= DAY_MS) out.push(d);
    return out;
  }

  /** Freezes one closed day unless it is frozen; true when it was frozen now. */
  private async freezeOne(d: number): Promise<boolean> {
    const day = new Date(d).toISOString().slice(0, 10);
    const had = await guarded(() => this.store.getSnapshot(`citable:${day}`));
    if (!had) await this.freezeDay(day);
    this.frozenThrough = Math.max(this.frozenThrough, d);
    return !had;
  }

  /** Freezes every closed day that is not frozen yet; returns how many it froze. */
  async freezeClosedDays(): Promise<number> {
    let n = 0;
    for (const d of await this.closedDays()) if (await this.freezeOne(d)) n++;
    return n;
  }

  /**
   * Freezes the newest closed day now (the returned promise: a start-up waits for it), every older
   * closed day not frozen yet in the background (a first start on 90 days of history must not hold
   * back the first request; until then such a day answers "not frozen yet, retry shortly"), then
   * each day again at 00:00 UTC plus the grace period.
   */
  startFreezer(onError: (e: unknown) => void = () => undefined): Promise<void> {
    const tick = async () => {
      const [newest, ...older] = await this.closedDays().catch((e: unknown) => {
        onError(e);
        return [] as number[];
      });
      if (newest !== undefined) await this.freezeOne(newest).catch(onError);
      void (async () => {
        for (const d of older) {
          if (this.closed) return;
          await this.freezeOne(d).catch(onError);
        }
        // The dataset files of closed days follow, also in the background.
        await this.dataset
          .freezeClosedDays(this.closedBefore(this.clock()))
          .catch((e: unknown) => this.dataset.closed || onError(e));
      })();
      if (this.closed) return;
      const next = dayStart(this.clock()) + DAY_MS + FREEZE_GRACE_MS;
      this.freezeTimer = setTimeout(() => void tick(), Math.max(1000, next - this.clock()));
      this.freezeTimer.unref();
    };
    return tick();
  }

  private closed = false;

  close(): void {
    this.closed = true;
    if (this.freezeTimer) clearTimeout(this.freezeTimer);
    this.unsubscribe();
    this.dataset.close();
  }
}

export function createPublication(opts: PublicationOptions): Publication {
  return new Publication(opts);
}
