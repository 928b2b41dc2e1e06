import { byProvider, type Sample } from './samples.ts';

/**
 * Consecutive down cycles before a provider is marked unresponsive, when a spec does not say
 * (`unresponsiveAfter`): three cycles of 5xx (spec 2.6).
 */
export const UNRESPONSIVE_AFTER = 3;

/**
 * A provider's cycle is "a cycle of 5xx" when at least half of its probes in that cycle (one probe
 * per cell it was measured on) ended in a 5xx. Without a share, 5xx on 7 of 8 cells would never
 * count, and one stray 5xx on 1 of 8 cells would count the same as a full outage.
 */
export function isFiveXxCycle(fiveXxProbes: number, probes: number): boolean {
  return probes > 0 && fiveXxProbes * 2 >= probes;
}

/**
 * The unresponsive marker, derived from stored samples only: one cycle-of-5xx sample per
 * provider and cycle (1 = a cycle of 5xx). A provider is unresponsive when its last `after` cycles
 * were all down; its next cycle that is not clears the mark. Deriving it from samples keeps
 * it in step with the measurements after a crash and works the same on every SampleStore. Harnesses
 * in several regions keep one streak each; a provider is unresponsive in a view only when it is in
 * every region of that view (one region's outage does not mark it down everywhere).
 */
export function unresponsiveProviders(cycle5xx: readonly Sample[], after = UNRESPONSIVE_AFTER): Set<string> {
  const streaks = new Map<string, Map<string, Sample[]>>();
  for (const [p, arr] of byProvider(cycle5xx)) {
    const regions = new Map<string, Sample[]>();
    for (const s of arr) {
      const r = s.labels.region ?? '';
      const list = regions.get(r);
      if (list) list.push(s);
      else regions.set(r, [s]);
    }
    streaks.set(p, regions);
  }
  const out = new Set<string>();
  for (const [p, regions] of streaks) {
    const dead = [...regions.values()].every((arr) => {
      if (arr.length < after) return false;
      arr.sort((a, b) => a.t - b.t);
      return arr.slice(-after).every((s) => s.v >= 1);
    });
    if (dead) out.add(p);
  }
  return out;
}
