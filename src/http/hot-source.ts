import type { Publication } from '../publication/publication.ts';
import type { HotSource } from './hot-path.ts';

/**
 * The hot-path source of a publication view: replayable while the publication still holds it.
 * `group` is the benchmark whose samples invalidate it (ANY_BENCHMARK for aggregates).
 */
export function viewSource(pub: Publication, served: object, group: string): HotSource {
  return { valid: () => pub.isCurrent(served), group };
}
