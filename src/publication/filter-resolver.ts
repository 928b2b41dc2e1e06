import type { Filters } from '../core/api-schemas.ts';
import { type BenchmarkSpec, DIMENSION_NAMES } from '../core/spec-schema.ts';
import { specMetrics } from './compute.ts';
import { type FilterResolution, type PublicationContext, UnavailableError } from './types.ts';

/** Data-valued dimensions are read again at most this often while samples keep coming. */
const RELOAD_MS = 200;

/** Raw dimension query values checked against what each benchmark declares (or the data holds). */
export class FilterResolver {
  /**
   * Label values seen in the store per benchmark and data-valued dimension (region), refreshed on
   * appends. Per benchmark: a region some other benchmark was measured from is not one of its own.
   */
  private readonly seen = new Map<string, readonly string[]>();
  private seenLoad: Promise<void> | undefined;
  private seenStale = true;
  /** Why the last read of the values failed; undefined once a read succeeds. */
  private loadFailure: unknown;

  private reloadTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly ctx: Pick<PublicationContext, 'specs' | 'bySlug' | 'store'>) {}

  /**
   * Resolves once the values known are the store's as of now: a view listing them (its
   * `dimensions`) is computed after the read its samples' append asked for, not before it.
   */
  current(): Promise<void> {
    return this.seenStale ? this.loadDataValues() : (this.seenLoad ?? Promise.resolve());
  }

  /**
   * New samples may carry new values: they are read again soon (coalesced, at most one read per
   * RELOAD_MS), not on the next lookup, which would answer from the old values first: a region
   * a harness just started measuring from would be a 404 to the first reader.
   */
  markStale(): void {
    this.seenStale = true;
    if (this.reloadTimer !== undefined) return;
    this.reloadTimer = setTimeout(() => {
      this.reloadTimer = undefined;
      if (this.seenStale) void this.loadDataValues();
    }, RELOAD_MS);
    this.reloadTimer.unref?.();
  }

  /** Stops the pending reload (the publication closes). */
  close(): void {
    if (this.reloadTimer !== undefined) clearTimeout(this.reloadTimer);
    this.reloadTimer = undefined;
  }

  /**
   * Throws UnavailableError (the store's EngineUnavailableError when it is one) for a data-valued
   * value not among those known while the last read of them failed: every door maps it to 503.
   */
  resolve(slug: string, raw: Readonly<Record<string, string | undefined>>): FilterResolution {
    const spec = this.ctx.bySlug.get(slug);
    if (!spec) {
      return {
        ok: false,
        status: 404,
        error: 'unknown_benchmark',
        message: `Unknown benchmark "${slug}". Valid slugs: ${this.ctx.specs.map((s) => s.slug).join(', ')}.`,
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
      const values = dim.fromData ? this.dataValues(slug, d) : dim.values.map((v) => v.value);
      const match = values.find((v) => v.toLowerCase() === value);
      // Values that could not be read say nothing about this one: the store's failure, not a 404
      // (a replica started while its engine is down would call a measured region unknown).
      if (match === undefined && dim.fromData && this.loadFailure !== undefined) throw this.unreadable(d);
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

  /** The failure to throw: the store's own (EngineUnavailableError: 503 with its Retry-After). */
  private unreadable(dim: string): UnavailableError {
    const e = this.loadFailure;
    if (e instanceof UnavailableError) return e;
    return new UnavailableError(`the ${dim} values could not be read from the store: ${String(e)}`);
  }

  /** A dimension's values as `resolve` accepts them (for a data-valued one: those known now). */
  valuesOf(slug: string, dim: string): readonly string[] {
    const d = this.ctx.bySlug.get(slug)?.dimensions[dim as keyof BenchmarkSpec['dimensions']];
    if (!d) return [];
    return d.fromData ? this.dataValues(slug, dim) : d.values.map((v) => v.value);
  }

  private dataValues(slug: string, dim: string): readonly string[] {
    if (this.seenStale) void this.loadDataValues();
    return this.seen.get(`${slug}\u0000${dim}`) ?? [];
  }

  /**
   * Reads the values of data-valued dimensions (e.g. every `region` a harness wrote) from the
   * store's series; resolves once they are known. Called at start-up and after appends.
   */
  loadDataValues(): Promise<void> {
    if (this.seenLoad) return this.seenLoad;
    this.seenStale = false;
    const wanted = this.ctx.specs.filter((spec) => Object.values(spec.dimensions).some((d) => d?.fromData));
    this.seenLoad = (async () => {
      // Each metric's series are read once, whatever the number of benchmarks reading it.
      const byMetric = new Map<string, Promise<Awaited<ReturnType<typeof this.ctx.store.series>>>>();
      const seriesOf = (m: string) => {
        let p = byMetric.get(m);
        if (!p) {
          p = this.ctx.store.series(m);
          byMetric.set(m, p);
        }
        return p;
      };
      const next = new Map<string, readonly string[]>();
      for (const spec of wanted) {
        const dims = Object.entries(spec.dimensions).filter(([, dim]) => dim?.fromData);
        const sets = new Map(dims.map(([d]) => [d, new Set<string>()]));
        // A benchmark's values come from the metrics its own views read, never from another's.
        for (const m of specMetrics(spec)) {
          for (const s of await seriesOf(m)) {
            for (const [d, set] of sets) {
              const v = s.labels[d];
              if (v !== undefined) set.add(v);
            }
          }
        }
        for (const [d, set] of sets) next.set(`${spec.slug}\u0000${d}`, [...set].sort());
      }
      this.seen.clear();
      for (const [k, v] of next) this.seen.set(k, v);
      this.loadFailure = undefined;
      // Samples that came while this read ran are read by the next one.
      if (this.seenStale) queueMicrotask(() => this.markStale());
    })()
      .catch((e: unknown) => {
        this.seenStale = true;
        this.loadFailure = e;
      })
      .finally(() => {
        this.seenLoad = undefined;
      });
    return this.seenLoad;
  }
}
