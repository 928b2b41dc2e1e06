import type { Filters } from '../core/api-schemas.ts';
import { DIMENSION_NAMES } from '../core/spec-schema.ts';
import { specMetrics } from './compute.ts';
import type { FilterResolution, PublicationContext } from './types.ts';

/** Raw dimension query values checked against what each benchmark declares (or the data holds). */
export class FilterResolver {
  /** Label values seen in the store per data-valued dimension (region), refreshed on appends. */
  private readonly seen = new Map<string, readonly string[]>();
  private seenLoad: Promise<void> | undefined;
  private seenStale = true;

  constructor(private readonly ctx: Pick<PublicationContext, 'specs' | 'bySlug' | 'store'>) {}

  /** New samples may carry new values: the next lookup reads them again. */
  markStale(): void {
    this.seenStale = true;
  }

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
    for (const spec of this.ctx.specs) {
      for (const [d, dim] of Object.entries(spec.dimensions)) if (dim?.fromData) dims.set(d, new Set());
    }
    this.seenLoad = (async () => {
      if (dims.size === 0) return;
      const metrics = [...new Set(this.ctx.specs.flatMap(specMetrics))];
      for (const m of metrics) {
        for (const s of await this.ctx.store.series(m)) {
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
}
