import type { Sample } from '../../../core/samples.ts';
import { isFiveXxCycle } from '../../../core/unresponsive.ts';
import { capturePct } from './capture.ts';
import { TRADE_CAPTURE_METRICS as METRICS } from './metrics.ts';

/**
 * What one provider's probe of one cell came to, once the harness contract (`blame` in types.ts)
 * has been applied: distinct trades returned, a failure the provider caused (zero trades and a
 * failed probe), or a failure on our side (nothing written for that provider).
 */
export type CellOutcome =
  | { readonly kind: 'ok'; readonly count: number; readonly capped: boolean }
  | { readonly kind: 'provider_failure'; readonly fiveXx: boolean }
  | { readonly kind: 'ours' };

export type CellLabels = { provider: string; chain: string; token: string };

export interface CellInput {
  readonly chain: string;
  readonly token: string;
  /** The cycle time every sample carries. */
  readonly at: number;
  /** Every provider measured on the cell; samples are written in this order. */
  readonly outcomes: readonly { readonly provider: string; readonly outcome: CellOutcome }[];
  /** |A ∪ B ∪ …| of the trades of the providers that answered (failures add none). */
  readonly unionCount: number;
}

/** How one provider was scored on the cell (what its samples say). */
export interface ProviderScore {
  readonly labels: CellLabels;
  readonly count: number;
  /** count / max × 100; null when no provider returned a trade (no baseline, 0/0). */
  readonly pct: number | null;
  readonly probe: 0 | 1;
  readonly capped: boolean;
  /** The probe ended in a 5xx (counts toward the cycle's provider_cycle_5xx). */
  readonly fiveXx: boolean;
}

export interface CellScore {
  /** Exactly the samples written for the cell, in write order. */
  readonly samples: Sample[];
  /** One entry per input outcome, in the same order; null for a failure on our side. */
  readonly providers: readonly (ProviderScore | null)[];
  /** Written only when at least one provider was scored. */
  readonly unionCount?: number;
}

/**
 * Scores one token-trade cell (spec 2.6). The baseline is the largest count among the providers
 * scored on the cell, a provider failure counting as zero; a provider whose failure is ours is
 * neither scored nor part of the baseline. Pure: the harness and the deterministic dataset both
 * call it, so the formula, the 0/0 rule and what a failure writes exist once.
 */
export function scoreCell(input: CellInput): CellScore {
  let max = 0;
  let scored = 0;
  for (const { outcome: o } of input.outcomes) {
    if (o.kind === 'ours') continue;
    scored++;
    if (o.kind === 'ok') max = Math.max(max, o.count);
  }
  const samples: Sample[] = [];
  const providers: (ProviderScore | null)[] = [];
  const t = input.at;
  for (const { provider, outcome: o } of input.outcomes) {
    if (o.kind === 'ours') {
      providers.push(null);
      continue;
    }
    const labels: CellLabels = { provider, chain: input.chain, token: input.token };
    const ok = o.kind === 'ok';
    const count = ok ? o.count : 0;
    const s: ProviderScore = {
      labels,
      count,
      pct: capturePct(count, max),
      probe: ok ? 1 : 0,
      capped: ok ? o.capped : false,
      fiveXx: ok ? false : o.fiveXx,
    };
    samples.push(
      { metric: METRICS.tokenTradeCount, labels, t, v: s.count },
      { metric: METRICS.tokenTradeProbeOk, labels, t, v: s.probe },
      { metric: METRICS.tokenTradeCapped, labels, t, v: s.capped ? 1 : 0 },
    );
    // No capture sample without a baseline (every provider returned zero): 0/0 is not a score.
    if (s.pct !== null) samples.push({ metric: METRICS.tokenTradeCapturePct, labels, t, v: s.pct });
    providers.push(s);
  }
  if (scored === 0) return { samples, providers };
  const unionLabels = { chain: input.chain, token: input.token };
  samples.push({ metric: METRICS.tokenTradeUnionCount, labels: unionLabels, t, v: input.unionCount });
  return { samples, providers, unionCount: input.unionCount };
}

/**
 * One sample per provider and cycle says whether it was a cycle of 5xx (core/unresponsive.ts); the
 * unresponsive marker is derived from these samples alone. None when the provider was scored on no
 * cell (its failures were all ours, or the cycle was cut short).
 */
export function cycleFiveXxSample(
  benchmark: string,
  provider: string,
  at: number,
  fiveXxProbes: number,
  probes: number,
): Sample | null {
  if (probes === 0) return null;
  return {
    metric: METRICS.providerCycle5xx,
    labels: { benchmark, provider },
    t: at,
    v: isFiveXxCycle(fiveXxProbes, probes) ? 1 : 0,
  };
}
