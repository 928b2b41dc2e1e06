import type { ProviderListing, ProviderProfile, Stat } from '../core/api-schemas.ts';
import { DAY_MS, dayStart, parseDay } from '../core/dates.ts';
import { buildProviderProfile, providerListing, WEEK_AGO_DAYS } from '../core/provider-profile.ts';
import { PROVIDERS } from '../core/providers.ts';
import type { BenchmarkSpec } from '../core/spec-schema.ts';
import type { DayFreezer, DayResult, NotFrozen } from './day-freezer.ts';
import { serve } from './served.ts';
import type { PublicationContext, Served } from './types.ts';
import { ViewCache } from './view-cache.ts';

/** What a provider profile request comes to (the front doors word each kind as /api/stat?date= does). */
export type ProfileResult =
  | { kind: 'ok'; served: Served<ProviderProfile>; day: string | null }
  | { kind: 'unknown_provider'; message: string }
  | { kind: 'bad_date'; message: string }
  | { kind: 'today'; message: string }
  | NotFrozen;

/** The group every live profile is cached under: any benchmark's samples can change one. */
const ALL = '__all__';

const decoder = new TextDecoder();

/** "2026-11-13": the UTC day of an epoch-ms day start. */
const isoDay = (start: number) => new Date(start).toISOString().slice(0, 10);

/** Where today's profile of a provider is, for the answer to a dated request for today. */
export function profileTodayMessage(day: string, slug: string): string {
  return `${day} is today: it is frozen after it closes. Its live values are at /api/providers/${slug}.`;
}

/** The 404 of a provider outside the catalogue, listing the ones there are. */
export function unknownProviderMessage(slug: string): string {
  return `Unknown provider "${slug.slice(0, 100)}". Valid slugs: ${[...PROVIDERS.keys()].join(', ')}.`;
}

export interface ProfileDeps {
  readonly ctx: PublicationContext;
  readonly days: DayFreezer;
  /** The live unfiltered Stat of a benchmark (the publication's cached view). */
  readonly stat: (slug: string) => Promise<Served<Stat>>;
  readonly maxViewAgeMs: number;
}

/**
 * Provider profiles: the catalogue listing (fixed for the process: specs and catalogue are read at
 * start-up), each provider's live profile (cached like the index: any benchmark's samples drop it),
 * and profiles pinned to a closed day, built only from frozen bytes and so kept once built.
 */
export class ProviderProfiles {
  private readonly live: ViewCache<Served<ProviderProfile>>;
  /** Dated profiles: a function of frozen bytes only, so never invalidated (bounded). */
  private readonly dated = new Map<string, Served<ProviderProfile>>();
  /** Frozen Stats parsed once per body (DayFreezer keeps the bodies it has read). */
  private readonly parsed = new WeakMap<Uint8Array, Stat>();
  private listed: Served<ProviderListing> | undefined;

  constructor(private readonly deps: ProfileDeps) {
    const room = Math.max(500, PROVIDERS.size * 2);
    this.live = new ViewCache(deps.maxViewAgeMs, deps.ctx.clock, room, deps.maxViewAgeMs);
  }

  /** GET /api/providers. */
  listing(): Served<ProviderListing> {
    this.listed ??= serve(providerListing(PROVIDERS.values(), this.deps.ctx.specs, this.deps.ctx.site()));
    return this.listed;
  }

  /** New samples of any benchmark. */
  invalidate(): void {
    this.live.invalidate(ALL);
  }

  clear(): void {
    this.live.clear();
    // The listing names the site's simulated flag, which a clear (data found simulated) changes.
    this.listed = undefined;
  }

  holds(served: object): boolean {
    return this.live.holds(served);
  }

  peek(slug: string): Served<ProviderProfile> | undefined {
    return this.live.peek(slug);
  }

  private specsOf(slug: string): BenchmarkSpec[] {
    return this.deps.ctx.specs.filter((s) => s.providers.some((p) => p.slug === slug));
  }

  /**
   * The Stats frozen for a closed day, by benchmark slug: a complete freeze (its index is written
   * last) lacks only benchmarks that did not exist that day; an incomplete one is not served.
   */
  private async frozenDay(
    day: string,
    specs: readonly BenchmarkSpec[],
  ): Promise<{ kind: 'ok'; stats: Map<string, Stat> } | Exclude<DayResult, { kind: 'ok' }>> {
    const d = await this.deps.days.checkDay(day);
    if (d.kind !== 'ok') return d;
    const snap = await this.deps.days.snapshot(day);
    if (snap.kind === 'not_frozen' || snap.kind === 'bad_date') return snap;
    const stats = new Map<string, Stat>();
    for (const spec of specs) {
      const r = await this.deps.days.frozenStat(spec.slug, day);
      if (r.kind !== 'ok') continue;
      let stat = this.parsed.get(r.served.body);
      if (!stat) {
        stat = JSON.parse(decoder.decode(r.served.body)) as Stat;
        this.parsed.set(r.served.body, stat);
      }
      stats.set(spec.slug, stat);
    }
    return { kind: 'ok', stats };
  }

  /**
   * GET /api/providers/{slug}[?date=D]. Live: today's Stats; dated: the Stats frozen for D. Both
   * take "7 days ago" from the Stats frozen for D − 7 as published; that day before the first
   * snapshot gives null, while a closed day whose freeze is still pending makes a dated profile
   * wait (503) rather than freeze a null that would later turn into a value.
   */
  async profile(slug: string, date: string | null): Promise<ProfileResult> {
    const info = PROVIDERS.get(slug);
    if (!info) return { kind: 'unknown_provider', message: unknownProviderMessage(slug) };
    const specs = this.specsOf(slug);
    if (date === null) {
      const served = await this.live.get(slug, ALL, async () => {
        const site = this.deps.ctx.site();
        const stats = await Promise.all(specs.map(async (s) => (await this.deps.stat(s.slug)).value));
        const weekDay = isoDay(dayStart(this.deps.ctx.clock()) - WEEK_AGO_DAYS * DAY_MS);
        const week = await this.frozenDay(weekDay, specs);
        return serve(
          buildProviderProfile({
            provider: info,
            stats,
            weekAgo: { date: weekDay, stats: week.kind === 'ok' ? week.stats : new Map() },
            site,
            day: null,
            simulated: site.simulated === true,
          }),
        );
      });
      return { kind: 'ok', served, day: null };
    }
    const key = `${slug}@${date}`;
    const known = this.dated.get(key);
    if (known) return { kind: 'ok', served: known, day: date };
    const then = await this.frozenDay(date, specs);
    if (then.kind === 'today') return { kind: 'today', message: profileTodayMessage(date, slug) };
    if (then.kind !== 'ok') return then;
    const parsed = parseDay(date);
    const weekDay = isoDay((parsed.ok ? parsed.start : 0) - WEEK_AGO_DAYS * DAY_MS);
    const week = await this.frozenDay(weekDay, specs);
    if (week.kind === 'not_frozen') return week;
    const site = (await this.deps.days.frozenSite(date)) ?? this.deps.ctx.site();
    const served = serve(
      buildProviderProfile({
        provider: info,
        stats: specs.flatMap((s) => then.stats.get(s.slug) ?? []),
        weekAgo: { date: weekDay, stats: week.kind === 'ok' ? week.stats : new Map() },
        site,
        day: date,
        simulated: site.simulated === true,
      }),
    );
    if (this.dated.size >= 2000) this.dated.clear();
    this.dated.set(key, served);
    return { kind: 'ok', served, day: date };
  }
}
