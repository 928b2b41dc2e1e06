import type { CitableIndex, MissingSlots, Stat } from '../core/api-schemas.ts';
import type { MissingSlot } from '../core/missing-slots.ts';
import type { Provenance } from '../core/provenance.ts';
import type { BenchmarkSpec } from '../core/spec-schema.ts';
import { citableRow } from '../core/stat.ts';
import type { Site } from '../core/urls.ts';

/**
 * The index of /api/citable from every benchmark's unfiltered Stat: the live one (`snapshotDate`
 * null) or a closed day's, frozen with that day (with the day's `missingSlots`). Only live
 * benchmarks are listed.
 */
export function citableIndex(
  stats: readonly Stat[],
  bySlug: ReadonlyMap<string, BenchmarkSpec>,
  site: Site,
  snapshotDate: string | null,
  provenance?: Provenance,
  missingSlots: readonly MissingSlot[] = [],
): CitableIndex {
  const live = stats.filter((s) => bySlug.get(s.slug)?.status === 'live');
  return {
    site: {
      name: site.name,
      url: site.baseUrl,
      license: 'CC-BY-4.0',
      snapshotDate,
      ...(site.simulated === true ? { simulated: true as const } : {}),
      ...(stats.some((s) => s.degraded) ? { degraded: true as const } : {}),
      ...(provenance ? { provenance } : {}),
      // Frozen days only, and only when some slot of the day ran nowhere (src/core/missing-slots.ts).
      ...(missingSlots.length > 0 ? { missingSlots: missingSlots as MissingSlots } : {}),
    },
    count: live.length,
    benchmarks: live.map(citableRow),
  };
}
