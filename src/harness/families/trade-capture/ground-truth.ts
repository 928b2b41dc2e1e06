import type { GroundTruth, StatGroundTruth } from '../../../core/api-schemas.ts';
import { pairKeyOf } from '../../../core/rows.ts';
import type { Matcher, Sample } from '../../../core/samples.ts';
import { round6 } from '../../../core/stats.ts';
import type { SampleStore } from '../../../store/sample-store.ts';
import { TRADE_CAPTURE_METRICS as METRICS } from './metrics.ts';

/** The stored truth of a view's cells and one provider's scores against it (no other metric is read). */
export interface TruthSamples {
  readonly counts: readonly Sample[];
  readonly blocks: readonly Sample[];
  readonly unavailable: readonly Sample[];
  readonly recall: readonly Sample[];
  readonly unmatched: readonly Sample[];
  readonly phantoms: readonly Sample[];
}

export async function readTruthSamples(
  store: SampleStore,
  providerMatchers: readonly Matcher[],
  labelMatchers: readonly Matcher[],
  win: { readonly after: number; readonly until: number },
): Promise<TruthSamples> {
  const cell = { matchers: [...labelMatchers], ...win };
  const own = { matchers: [...providerMatchers, ...labelMatchers], ...win };
  const [counts, blocks, unavailable, recall, unmatched, phantoms] = await Promise.all([
    store.select({ metric: METRICS.tokenTradeTruthCount, ...cell }),
    store.select({ metric: METRICS.tokenTradeTruthBlocks, ...cell }),
    store.select({ metric: METRICS.tokenTradeTruthUnavailable, ...cell }),
    store.select({ metric: METRICS.tokenTradeRecallPct, ...own }),
    store.select({ metric: METRICS.tokenTradeUnmatched, ...own }),
    store.select({ metric: METRICS.tokenTradePhantoms, ...own }),
  ]);
  return { counts, blocks, unavailable, recall, unmatched, phantoms };
}

const key = pairKeyOf(['chain', 'token']);

/**
 * The `groundTruth` of each (cell, cycle) one provider was probed on, from the stored samples alone:
 * `ok` with |T_fin|, the provider's recall (null when T_fin was empty: no 0/0), unmatched and phantom counts,
 * and the blocks counted; or `unavailable` with the stored reason. A cycle stored before truth was
 * read has neither sample: `unavailable`, reason `not-recorded`.
 */
export function groundTruthOf(t: TruthSamples, provider: string): (probe: Sample) => GroundTruth {
  const count = new Map(t.counts.map((s) => [key(s), s.v]));
  const from = new Map<string, number>();
  const to = new Map<string, number>();
  for (const s of t.blocks) (s.labels.edge === 'from' ? from : to).set(key(s), s.v);
  const reason = new Map(t.unavailable.map((s) => [key(s), s.labels.reason ?? 'node-error']));
  const mine = (list: readonly Sample[]) =>
    new Map(list.filter((s) => s.labels.provider === provider).map((s) => [key(s), s.v]));
  const recall = mine(t.recall);
  const unmatched = mine(t.unmatched);
  const phantoms = mine(t.phantoms);
  return (probe) => {
    const k = key(probe);
    const n = count.get(k);
    if (n === undefined) {
      return {
        status: 'unavailable',
        reason: (reason.get(k) ?? 'not-recorded') as GroundTruth['reason'],
        count: null,
        recallPct: null,
        unmatched: null,
        phantoms: null,
        fromBlock: null,
        toBlock: null,
      };
    }
    const r = recall.get(k);
    return {
      status: 'ok',
      reason: null,
      count: n,
      recallPct: r === undefined ? null : round6(r),
      unmatched: unmatched.get(k) ?? null,
      phantoms: phantoms.get(k) ?? null,
      fromBlock: from.get(k) ?? null,
      toBlock: to.get(k) ?? null,
    };
  };
}

/**
 * The view's truth in one word: `ok` when every (cell, cycle) of the view with a stored outcome had
 * truth, `unavailable` when none had, `partial` otherwise; the reason is the most frequent one of
 * the cells without (ties: alphabetical), null when every cell had truth.
 */
export function statGroundTruth(t: Pick<TruthSamples, 'counts' | 'unavailable'>): StatGroundTruth {
  const reasons = new Map<string, number>();
  for (const s of t.unavailable) {
    const r = s.labels.reason ?? 'node-error';
    reasons.set(r, (reasons.get(r) ?? 0) + 1);
  }
  const top = [...reasons].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0] ?? null;
  if (t.counts.length === 0)
    return { status: 'unavailable', reason: (top ?? 'not-recorded') as StatGroundTruth['reason'] };
  if (t.unavailable.length === 0) return { status: 'ok', reason: null };
  return { status: 'partial', reason: top as StatGroundTruth['reason'] };
}
