import { percentOf } from '../../../core/percent.ts';
import type { WindowRowExtras } from '../../../core/rows.ts';
import { eq, type Sample } from '../../../core/samples.ts';
import { mean, quantileSorted, round6 } from '../../../core/stats.ts';
import { unresponsiveProviders } from '../../../core/unresponsive.ts';
import type { ExtrasQuery } from '../family.ts';
import { readTruthSamples, statGroundTruth } from './ground-truth.ts';
import { TRADE_CAPTURE_METRICS as METRICS } from './metrics.ts';

function summary(vs: number[]): { p50: number; mean: number } | null {
  if (vs.length === 0) return null;
  const sorted = vs.sort((a, b) => a - b);
  return { p50: round6(quantileSorted(sorted, 0.5)), mean: round6(mean(sorted)) };
}

/**
 * What trade capture adds to the shared window derivation: the unresponsive marker (from the
 * benchmark's stored cycles of 5xx); `unionCapture`, the provider's count over the union of every
 * provider's distinct transactions on exactly the (cell, cycle) pairs its statistics used; and
 * `precision` on those pairs, |P ∩ T| / (|P ∩ T| + phantoms) × 100 with |P ∩ T| = |P| − unmatched.
 */
export async function tradeCaptureExtras(
  q: ExtrasQuery,
): Promise<(keep: (s: Sample) => boolean) => WindowRowExtras> {
  const { store, spec, providerMatcher, labelMatchers, windowStart, evalTime } = q;
  const cellLabels = spec.derivation.mode === 'window' ? spec.derivation.cellLabels : [];
  const win = { after: windowStart, until: evalTime };
  // The unresponsive marker is computed on the view's cells like every other row field. Its
  // samples are one per provider and cycle (no cell labels), so the view's other matchers (the
  // region a harness measured from) narrow them; a cell filter cannot.
  const providerCycleMatchers = labelMatchers.filter((m) => !cellLabels.includes(m.name));
  // The recall benchmark's own value is recall: its rows carry neither union capture nor recall twice.
  const ofCapture =
    spec.derivation.mode === 'window' && spec.derivation.metric !== METRICS.tokenTradeRecallPct;
  const [counts, unions, cycle5xx, truth] = await Promise.all([
    store.select({ metric: METRICS.tokenTradeCount, matchers: [providerMatcher, ...labelMatchers], ...win }),
    store.select({ metric: METRICS.tokenTradeUnionCount, matchers: [...labelMatchers], ...win }),
    store.select({
      metric: METRICS.providerCycle5xx,
      matchers: [providerMatcher, eq('benchmark', spec.slug), ...providerCycleMatchers],
      ...win,
    }),
    readTruthSamples(store, [providerMatcher], labelMatchers, win),
  ]);
  const unresponsive = unresponsiveProviders(cycle5xx, spec.unresponsiveAfter);
  // The whole view's truth (compute.ts reads statFields with no narrowing): computed once.
  const statFields = { groundTruth: statGroundTruth(truth) };
  return (keep) => {
    const countAt = new Map<string, number>();
    const unionAt = new Map<string, number>();
    const recallAt = new Map<string, number>();
    const unmatchedAt = new Map<string, number>();
    const phantomsAt = new Map<string, number>();
    let indexed: ((s: Sample) => string) | null = null;
    const index = (key: (s: Sample) => string) => {
      if (indexed === key) return;
      indexed = key;
      countAt.clear();
      unionAt.clear();
      recallAt.clear();
      unmatchedAt.clear();
      phantomsAt.clear();
      for (const s of counts) if (keep(s)) countAt.set(`${s.labels.provider}\u0001${key(s)}`, s.v);
      for (const s of unions) if (keep(s)) unionAt.set(key(s), s.v);
      for (const s of truth.recall) if (keep(s)) recallAt.set(`${s.labels.provider}\u0001${key(s)}`, s.v);
      for (const s of truth.unmatched)
        if (keep(s)) unmatchedAt.set(`${s.labels.provider}\u0001${key(s)}`, s.v);
      for (const s of truth.phantoms) if (keep(s)) phantomsAt.set(`${s.labels.provider}\u0001${key(s)}`, s.v);
    };
    /** Precision on the pairs that had truth and an answer (a failure returned nothing to be precise about). */
    const precisionOf = (provider: string, used: readonly Sample[], key: (s: Sample) => string) => {
      const pcts: number[] = [];
      for (const s of used) {
        const k = `${provider}\u0001${key(s)}`;
        const count = countAt.get(k);
        const unmatched = unmatchedAt.get(k);
        const phantoms = phantomsAt.get(k);
        if (count === undefined || unmatched === undefined || phantoms === undefined) continue;
        const pct = percentOf(count - unmatched, count - unmatched + phantoms);
        if (pct !== null) pcts.push(pct);
      }
      return summary(pcts);
    };
    if (!ofCapture)
      return {
        unresponsive,
        statFields,
        fields(provider, used, key) {
          index(key);
          return { precision: precisionOf(provider, used, key) };
        },
      };
    return {
      unresponsive,
      statFields,
      fields(provider, used, key) {
        index(key);
        const pcts: number[] = [];
        for (const s of used) {
          const k = key(s);
          const count = countAt.get(`${provider}\u0001${k}`);
          const union = unionAt.get(k);
          const pct = count === undefined || union === undefined ? null : percentOf(count, union);
          if (pct !== null) pcts.push(pct);
        }
        // Recall on the same (cell, cycle) pairs as the capture statistics, where they had truth.
        const recalls: number[] = [];
        for (const s of used) {
          const r = recallAt.get(`${provider}\u0001${key(s)}`);
          if (r !== undefined) recalls.push(r);
        }
        return {
          unionCapture: summary(pcts),
          recall: summary(recalls),
          precision: precisionOf(provider, used, key),
        };
      },
    };
  };
}
