import type { Audit, Filters } from '../core/api-schemas.ts';
import { providerName } from '../core/providers.ts';
import type { BenchmarkSpec } from '../core/spec-schema.ts';
import { type Site, urls } from '../core/urls.ts';
import { familyOf } from '../harness/families/index.ts';
import type { SampleStore } from '../store/sample-store.ts';

/** `window`: every cycle of the Stat's window (window-mode benchmarks), narrowed by the Stat's filters. */
export interface AuditOptions {
  readonly window?: { readonly filters: Filters | null };
}

/**
 * The raw measurements behind one provider's ranking row, so a reader can check a number. What
 * they are is the family's business (its audit builder, src/harness/families/<family>/audit.ts):
 * the networks a listing counted, the per-cell counts of the last cycle, or (with `window`) every
 * cycle and cell the row is computed from. The benchmark, provider and links are the same for all.
 */
export async function buildAudit(
  store: SampleStore,
  spec: BenchmarkSpec,
  provider: string,
  evalTime: number,
  site: Site,
  opts: AuditOptions = {},
): Promise<Audit> {
  const base = {
    benchmark: spec.slug,
    provider: { slug: provider, name: providerName(provider) },
    pageUrl: urls.page(site, spec.slug),
    license: 'CC-BY-4.0' as const,
    ...(site.simulated ? { simulated: true as const } : {}),
  };
  const body = await familyOf(spec).audit({
    store,
    spec,
    provider,
    evalTime,
    // Only window families have window audits (a listing's audit is its latest listing).
    ...(opts.window && spec.derivation.mode === 'window' ? { window: opts.window } : {}),
  });
  return { ...base, ...body };
}
