import type { Sample } from '../../../core/samples.ts';
import { type CellInput, scoreCell } from './cell-score.ts';
import { TRADE_CAPTURE_METRICS as METRICS } from './metrics.ts';
import { type RecallInput, scoreRecall } from './recall-score.ts';

/** Why a provider's probe of a cell was not scored, on our side. */
export type ExclusionReason = 'key_refused' | 'deadline' | 'shutdown';

/** One probe of a cycle as the key rule sees it: was it refused (401/403 or the documented code)? */
export interface ProbeRefusal {
  readonly provider: string;
  readonly refused: boolean;
}

/**
 * The providers whose key is refused, on our side: every probe of theirs in the cycle was refused.
 * A provider refused on some cells and answering others has a working key; each of its refusals is
 * its own failure, so a 403 in place of a slow answer never buys a capture rate or a recall.
 */
export function keyRefusedProviders(probes: Iterable<ProbeRefusal>): Set<string> {
  const answered = new Map<string, boolean>();
  for (const p of probes) answered.set(p.provider, (answered.get(p.provider) ?? false) || !p.refused);
  return new Set([...answered].filter(([, a]) => !a).map(([provider]) => provider));
}

/** A cell scored with a provider's refusal left out: the inputs it was scored from. */
export interface RefusedCell {
  readonly capture: CellInput;
  readonly recall: RecallInput;
  readonly provider: string;
}

/**
 * The samples a refusal writes once it is the provider's failure: its own capture and recall samples
 * of the cell, scored by the same rules with its outcome a failure (no 5xx), and the cell's union
 * count when nobody else was scored on it. The other providers' samples do not change: a failure adds
 * no hash to the union and no count to the baseline, and recall is against the chain.
 */
export function refusalAsFailure(cell: RefusedCell): Sample[] {
  const capture = scoreCell({
    ...cell.capture,
    outcomes: cell.capture.outcomes.map((o) =>
      o.provider === cell.provider
        ? { provider: o.provider, outcome: { kind: 'provider_failure', fiveXx: false } }
        : o,
    ),
  });
  const recall = scoreRecall({
    ...cell.recall,
    outcomes: cell.recall.outcomes.map((o) =>
      o.provider === cell.provider ? { provider: o.provider, outcome: { kind: 'provider_failure' } } : o,
    ),
  });
  const wasScored = cell.capture.outcomes.some((o) => o.outcome.kind !== 'ours');
  return [...capture.samples, ...recall.samples].filter(
    (s) => s.labels.provider === cell.provider || (!wasScored && s.metric === METRICS.tokenTradeUnionCount),
  );
}

/** The exclusion sample of one provider's probe of one cell: stored, so the dataset shows it. */
export function exclusionSample(
  labels: { readonly provider: string; readonly chain: string; readonly token: string },
  reason: ExclusionReason,
  t: number,
): Sample {
  return { metric: METRICS.tokenTradeProbeExcluded, labels: { ...labels, reason }, t, v: 1 };
}
