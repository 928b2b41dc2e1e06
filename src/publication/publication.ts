import type { Config } from '../config.ts';
import type {
  Audit,
  CitableIndex,
  Compare,
  Featured,
  Filters,
  Freshness,
  Stat,
} from '../core/api-schemas.ts';
import { buildCompare } from '../core/compare.ts';
import { DAY_MS, dayEnd, dayStart, parseDay } from '../core/dates.ts';
import { buildFeatured } from '../core/featured.ts';
import { etagOf } from '../core/hash.ts';
import { llmContextMarkdown } from '../core/markdown.ts';
import { PROVIDERS, providerName } from '../core/providers.ts';
import { type BenchmarkSpec, DIMENSION_NAMES, SLUG_RE } from '../core/spec-schema.ts';
import { citableRow } from '../core/stat.ts';
import type { Site } from '../core/urls.ts';
import type { Store } from '../store/sample-store.ts';
import { buildAudit } from './audit.ts';
import { computeStat, specMetrics } from './compute.ts';
import {
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
  readonly config?: Pick<Config, 'siteName' | 'baseUrl'>;
  readonly clock?: () => number;
  /** Live views are recomputed at least this often, since the 24 h window slides. */
  readonly maxViewAgeMs?: number;
}

export type SnapshotResult =
  | { kind: 'frozen'; served: Served<CitableIndex> | ServedText; day: string }
  | { kind: 'live'; served: Served<CitableIndex>; day: string }
  | { kind: 'bad_date'; message: string };

export interface ServedText {
  readonly body: Uint8Array<ArrayBuffer>;
  readonly etag: string;
}

export type CompareResult =
  | { ok: true; served: Served<Compare> }
  | { ok: false; status: 400 | 404; error: string; message: string };

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
  readonly site: Site;
  private readonly store: Store;
  private readonly clock: () => number;
  private readonly bySlug: ReadonlyMap<string, BenchmarkSpec>;
  private readonly byMetric = new Map<string, string[]>();
  private readonly views: ViewCache<Served<Stat>>;
  private readonly aggregates: ViewCache<Served<unknown> | ServedText>;
  private readonly listeners = new Set<(slugs: ReadonlySet<string>) => void>();
  private readonly snapshotsInFlight = new Map<string, Promise<ServedText>>();
  private readonly unsubscribe: () => void;
  private freezeTimer: NodeJS.Timeout | undefined;

  constructor(opts: PublicationOptions) {
    this.specs = opts.specs;
    const site = opts.site ?? (opts.config && { name: opts.config.siteName, baseUrl: opts.config.baseUrl });
    if (!site) throw new TypeError('createPublication needs `site` or `config`');
    this.site = site;
    this.store = opts.store;
    this.clock = opts.clock ?? Date.now;
    this.bySlug = new Map(opts.specs.map((s) => [s.slug, s]));
    for (const s of opts.specs) {
      for (const m of specMetrics(s)) this.byMetric.set(m, [...(this.byMetric.get(m) ?? []), s.slug]);
    }
    const maxAge = opts.maxViewAgeMs ?? 60_000;
    this.views = new ViewCache(maxAge, this.clock);
    this.aggregates = new ViewCache(maxAge, this.clock);
    this.unsubscribe = this.store.onAppend((metrics) => this.invalidate(metrics));
  }

  private invalidate(metrics: ReadonlySet<string>): void {
    const slugs = new Set<string>();
    for (const m of metrics) for (const s of this.byMetric.get(m) ?? []) slugs.add(s);
    if (slugs.size === 0) return;
    for (const s of slugs) this.views.invalidate(s);
    this.aggregates.invalidate(ALL);
    for (const l of this.listeners) l(slugs);
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
      const match = dim.values.find((v) => v.value.toLowerCase() === value);
      if (!match) {
        return {
          ok: false,
          status: 404,
          error: 'unknown_dimension_value',
          message: `Unknown ${d} "${rawValue}" for "${slug}". Valid values: ${dim.values.map((v) => v.value).join(', ')}.`,
        };
      }
      filters[d] = match.value;
      any = true;
    }
    return { ok: true, filters: any ? filters : null };
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
    return this.views.get(`${slug}?${filterSig(filters)}`, slug, () =>
      guarded(async () => serve(await computeStat(this.store, spec, filters, this.clock(), this.site))),
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
      site: { name: this.site.name, url: this.site.baseUrl, license: 'CC-BY-4.0', snapshotDate },
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

  freshness(): Promise<Freshness> {
    return (async () => {
      const freshness: Record<string, number> = {};
      for (const s of await this.allStats()) if (s.asOf !== null) freshness[s.slug] = Date.parse(s.asOf);
      return { now: this.clock(), freshness };
    })();
  }

  llmContext(): Promise<ServedText> {
    return this.aggregates.get('llm', ALL, async () => {
      const body = encoder.encode(llmContextMarkdown(await this.allStats(), this.site, this.clock()));
      return { body, etag: etagOf(body) };
    });
  }

  featured(): Promise<Served<Featured>> {
    return this.aggregates.get('featured', ALL, async () => {
      const now = await this.allStats();
      const then = this.clock() - DAY_MS;
      const dayAgo = new Map<string, Stat>();
      for (const s of now) if (s.status === 'live') dayAgo.set(s.slug, await this.statAt(s.slug, null, then));
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
    const known = new Set(this.specs.flatMap((s) => s.providers.map((p) => p.slug)));
    for (const s of [a, b]) {
      if (!known.has(s) || !PROVIDERS.has(s)) {
        return {
          ok: false,
          status: 404,
          error: 'unknown_provider',
          message: `Unknown provider "${s}". Known: ${[...known].sort().join(', ')}.`,
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
    const stats = await Promise.all(shared.map(async (s) => (await this.stat(s.slug, null)).value));
    return {
      ok: true,
      served: serve(
        buildCompare(
          { slug: a, name: providerName(a) },
          { slug: b, name: providerName(b) },
          stats,
          this.site,
        ),
      ),
    };
  }

  /** The raw measurements behind one provider's row; null for a provider the benchmark does not declare. */
  async audit(slug: string, provider: string): Promise<Served<Audit> | null> {
    const spec = this.bySlug.get(slug);
    if (!spec) throw new UnknownBenchmarkError(slug);
    if (!spec.providers.some((p) => p.slug === provider)) return null;
    return serve(await guarded(() => buildAudit(this.store, spec, provider, this.clock(), this.site)));
  }

  /** First UTC day with any sample of any benchmark, or null when the store is empty. */
  private async firstDay(): Promise<number | null> {
    const bounds = await guarded(() => this.store.timeBounds(this.specs.flatMap(specMetrics)));
    return bounds === null ? null : dayStart(bounds.min);
  }

  /**
   * Day snapshots are real: day D is evaluated at D 23:59:59.999 UTC, frozen as stored bytes at the
   * first request or at day close (whichever comes first after D ended), then served byte-identical
   * forever, across restarts and late samples. Today is the live index.
   */
  async snapshot(day: string): Promise<SnapshotResult> {
    const parsed = parseDay(day);
    if (!parsed.ok) return { kind: 'bad_date', message: parsed.message };
    const today = dayStart(this.clock());
    if (parsed.start > today) return { kind: 'bad_date', message: `${day} is in the future.` };
    if (parsed.start === today) return { kind: 'live', served: await this.citable(), day };
    const first = await this.firstDay();
    if (first === null || parsed.start < first) {
      const since =
        first === null
          ? 'no data has been recorded yet'
          : `data starts on ${new Date(first).toISOString().slice(0, 10)}`;
      return { kind: 'bad_date', message: `${day} is before the first day with data (${since}).` };
    }
    return { kind: 'frozen', served: await this.freeze(day, parsed.start), day };
  }

  private freeze(day: string, start: number): Promise<ServedText> {
    const running = this.snapshotsInFlight.get(day);
    if (running) return running;
    const p = guarded(async () => {
      const key = `citable:${day}`;
      const stored = await this.store.getSnapshot(key);
      if (stored) return { body: stored.body as Uint8Array<ArrayBuffer>, etag: stored.etag };
      const stats = await Promise.all(
        this.specs.map((s) => computeStat(this.store, s, null, dayEnd(start), this.site)),
      );
      const body = encoder.encode(JSON.stringify(this.index(stats, day)));
      const kept = await this.store.putSnapshot(key, body, etagOf(body));
      return { body: kept.body as Uint8Array<ArrayBuffer>, etag: kept.etag };
    }).finally(() => this.snapshotsInFlight.delete(day));
    this.snapshotsInFlight.set(day, p);
    return p;
  }

  /** Freezes yesterday now (if it has data) and then at every UTC day close. */
  startFreezer(onError: (e: unknown) => void = () => undefined): void {
    const tick = async () => {
      const yesterday = dayStart(this.clock()) - DAY_MS;
      const first = await this.firstDay().catch(() => null);
      if (first !== null && yesterday >= first) {
        await this.freeze(new Date(yesterday).toISOString().slice(0, 10), yesterday).catch(onError);
      }
      const next = dayStart(this.clock()) + DAY_MS + 1000;
      this.freezeTimer = setTimeout(() => void tick(), Math.max(1000, next - this.clock()));
      this.freezeTimer.unref();
    };
    void tick();
  }

  close(): void {
    if (this.freezeTimer) clearTimeout(this.freezeTimer);
    this.unsubscribe();
  }
}

export function createPublication(opts: PublicationOptions): Publication {
  return new Publication(opts);
}
