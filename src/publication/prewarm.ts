import { nextTurn } from '../concurrency/next-turn.ts';
import type { Filters } from '../core/api-schemas.ts';
import type { SeriesRange } from '../core/series.ts';
import type { BenchmarkSpec } from '../core/spec-schema.ts';

/** The views a prewarm computes, as the publication serves them (each call fills its cache). */
export interface PrewarmSource {
  readonly specs: readonly BenchmarkSpec[];
  /** A dimension's values as requests may ask for them (declared, or the regions stored). */
  dimensionValues(slug: string, dimension: string): readonly string[];
  stat(
    slug: string,
    filters: Filters | null,
  ): Promise<{ readonly value: { readonly rankings: readonly { readonly slug: string }[] } }>;
  series(slug: string, filters: Filters | null, range: SeriesRange, providers: null): Promise<unknown>;
  audit(slug: string, provider: string): Promise<unknown>;
  citable(): Promise<unknown>;
  llmContext(): Promise<unknown>;
  llmsTxt(): Promise<unknown>;
  featured(): Promise<unknown>;
  /** Compare pairs requests have asked for (newest last), recomputed like the rest. */
  comparePairs(): readonly (readonly [string, string])[];
  compare(a: string, b: string): Promise<unknown>;
}

/** HTML pages, rendered through the app (their Stats, 7 d chart and HTML are cached there). */
export interface PrewarmPages {
  benchmark(slug: string): Promise<unknown>;
  home(): Promise<unknown>;
}

/** What one pass computed, for tests and the log. */
export interface PrewarmPass {
  readonly slugs: readonly string[];
  readonly views: number;
  readonly failed: number;
  readonly ms: number;
}

/** The key of the views built from every benchmark in `warmedAt`. */
const ALL = '*';

/** The live series ranges a page or a sparkline asks for first. */
const WARM_RANGES: readonly SeriesRange[] = ['24h', '7d'];

/** A pass waits this many times as long as the previous one took (see Prewarmer). */
const DUTY_WAIT = 3;

/** Each live view's evaluation point (src/publication/eval-points.ts). */
export interface PrewarmPoints {
  of(slug: string): number;
  ofAll(): number;
}

export interface PrewarmOptions {
  readonly pages?: PrewarmPages;
  readonly onPass?: (p: PrewarmPass) => void;
  readonly minGapMs?: number;
  /**
   * With them, the points are checked every `pointPollMs` (default 1 s of wall time), and a
   * benchmark whose point moved by the clock alone (its grid passed, no new samples) is warmed
   * again, as after a change: at every 20-minute grid point between the cycles of a benchmark
   * measured every 30 minutes or 6 hours, its views would otherwise wait for a request.
   */
  readonly points?: PrewarmPoints;
  readonly pointPollMs?: number;
}

/**
 * Computes, after new samples and off the request path, the live views requests will ask for:
 * each Stat unfiltered and per declared filter value (and per stored region), its 24 h and 7 d
 * series, the audits of its ranked providers and its HTML page, then the index, llm-context,
 * llms.txt, featured, the home page and the compare pairs already asked for. Each goes through the
 * publication's own caches, so a request that comes after a cycle replays stored bytes instead of
 * computing, and a request that comes during a pass shares the computation in flight
 * (single-flight) instead of starting another.
 *
 * It still runs on the event loop, one view at a time (requests interleave between views), and a
 * pass waits three times as long as the previous pass took before it starts: at most a quarter of
 * the loop's time goes to prewarming however fast samples come (a 600× demo appends every few ms,
 * and its harness needs the rest); at a real cadence (cycles a minute or more apart) every cycle
 * gets its pass.
 */
export class Prewarmer {
  private pending = new Set<string>();
  private aggregatesPending = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | undefined;
  private lastMs = 0;
  private stopped = false;
  /** Passes done, and views computed by them, since start (tests, /metrics). */
  passes = 0;
  views = 0;

  private readonly pages: PrewarmPages | undefined;
  private readonly onPass: (p: PrewarmPass) => void;
  /** The least wait between two passes (ms); a pass also waits 3 × as long as the previous one took. */
  private readonly minGapMs: number;
  private readonly points: PrewarmPoints | undefined;
  /** Each benchmark's point (and the aggregates', under ALL) when its views were last warmed. */
  private readonly warmedAt = new Map<string, number>();
  private poll: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly pub: PrewarmSource,
    opts: PrewarmOptions = {},
  ) {
    this.pages = opts.pages;
    this.onPass = opts.onPass ?? (() => undefined);
    this.minGapMs = opts.minGapMs ?? 50;
    this.points = opts.points;
    if (this.points) {
      this.poll = setInterval(() => this.pointsMoved(), opts.pointPollMs ?? 1_000);
      this.poll.unref?.();
    }
  }

  /** Warms again each benchmark whose point moved since its views were warmed (the clock alone). */
  private pointsMoved(): void {
    const points = this.points;
    if (!points || this.stopped) return;
    const moved = new Set<string>();
    for (const spec of this.pub.specs) {
      const warmed = this.warmedAt.get(spec.slug);
      if (warmed !== undefined && points.of(spec.slug) !== warmed) moved.add(spec.slug);
    }
    const all = this.warmedAt.get(ALL);
    if (moved.size > 0 || (all !== undefined && points.ofAll() !== all)) this.changed(moved);
  }

  /** Everything, once (at start). */
  all(): void {
    this.changed(new Set(this.pub.specs.map((s) => s.slug)));
  }

  /** These benchmarks got new samples (or their views were dropped): warm them again soon. */
  changed(slugs: ReadonlySet<string>): void {
    if (this.stopped) return;
    for (const s of slugs) this.pending.add(s);
    this.aggregatesPending = true;
    this.schedule();
  }

  private schedule(): void {
    if (this.timer !== undefined || this.running !== undefined || this.stopped) return;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.running = this.pass().finally(() => {
          this.running = undefined;
          if (this.pending.size > 0 || this.aggregatesPending) this.schedule();
        });
      },
      Math.max(this.minGapMs, DUTY_WAIT * this.lastMs),
    );
    this.timer.unref?.();
  }

  /** Resolves when no pass is running or waiting (tests). */
  async idle(): Promise<void> {
    while (this.running !== undefined || this.timer !== undefined) {
      await (this.running ?? new Promise((r) => setTimeout(r, 5)));
    }
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.poll !== undefined) clearInterval(this.poll);
    this.timer = undefined;
  }

  /** The filter sets requests may use for one benchmark: none, then each single value. */
  private filterSets(spec: BenchmarkSpec): (Filters | null)[] {
    const sets: (Filters | null)[] = [null];
    for (const dim of Object.keys(spec.dimensions)) {
      for (const v of this.pub.dimensionValues(spec.slug, dim)) sets.push({ [dim]: v } as Filters);
    }
    return sets;
  }

  private async pass(): Promise<void> {
    const started = performance.now();
    const slugs = [...this.pending];
    this.pending = new Set();
    const aggregates = this.aggregatesPending;
    this.aggregatesPending = false;
    let views = 0;
    let failed = 0;
    const one = async (fn: () => Promise<unknown>): Promise<unknown> => {
      // Requests waiting on the loop go first: a view answered from a cache resolves in a
      // microtask, and a pass of those would otherwise hold the loop from its first view to its last.
      await nextTurn();
      if (this.stopped) return undefined;
      try {
        views++;
        this.views++;
        return await fn();
      } catch {
        // A view that cannot be computed now fails the same way for the request that asks; the
        // request gets the error (or the last good view), the prewarm only tries again next pass.
        failed++;
        return undefined;
      }
    };
    const { pub, pages, points } = this;
    for (const slug of slugs) {
      const spec = pub.specs.find((s) => s.slug === slug);
      if (!spec) continue;
      // The point these views stand for: a later move by the clock alone warms them again.
      if (points) this.warmedAt.set(slug, points.of(slug));
      let ranked: readonly string[] = [];
      for (const filters of this.filterSets(spec)) {
        const served = (await one(() => pub.stat(slug, filters))) as
          | Awaited<ReturnType<PrewarmSource['stat']>>
          | undefined;
        if (filters === null && served) ranked = served.value.rankings.map((r) => r.slug);
      }
      for (const range of WARM_RANGES) await one(() => pub.series(slug, null, range, null));
      for (const p of ranked) await one(() => pub.audit(slug, p));
      if (pages) await one(() => pages.benchmark(slug));
    }
    if (aggregates) {
      if (points) this.warmedAt.set(ALL, points.ofAll());
      for (const view of [
        () => pub.citable(),
        () => pub.llmContext(),
        () => pub.llmsTxt(),
        () => pub.featured(),
      ]) {
        await one(view);
      }
      if (pages) await one(() => pages.home());
      for (const [a, b] of pub.comparePairs()) await one(() => pub.compare(a, b));
    }
    this.passes++;
    this.lastMs = performance.now() - started;
    this.onPass({ slugs, views, failed, ms: Math.round(this.lastMs) });
  }
}

/**
 * Prewarms every live view now, then after each change the publication announces (appends, a
 * replica's poll, views dropped). `stop` ends it (the service closes).
 */
export function startPrewarm(
  pub: PrewarmSource & { onChange(listener: (slugs: ReadonlySet<string>) => void): () => void },
  opts: PrewarmOptions = {},
): { readonly prewarmer: Prewarmer; stop(): void } {
  const prewarmer = new Prewarmer(pub, opts);
  const unsubscribe = pub.onChange((slugs) => prewarmer.changed(slugs));
  prewarmer.all();
  return {
    prewarmer,
    stop: () => {
      unsubscribe();
      prewarmer.stop();
    },
  };
}
