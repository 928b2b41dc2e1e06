import { HARNESS_BUILD_INFO_METRIC } from '../core/metric-names.ts';
import { buildProvenance, type Provenance } from '../core/provenance.ts';
import type { PublicationContext } from './types.ts';

/**
 * The provenance of a view over (after, until]: one select of harness_build_info for the window,
 * through the SampleStore interface every backend has (no backend branch here). The live index
 * reads the last 24 h, a freeze its UTC day.
 */
export async function readProvenance(
  ctx: Pick<PublicationContext, 'store' | 'build' | 'specHashes'>,
  after: number,
  until: number,
): Promise<Provenance> {
  const samples = await ctx.store.select({ metric: HARNESS_BUILD_INFO_METRIC, after, until });
  return buildProvenance(ctx.build, ctx.specHashes, samples);
}
