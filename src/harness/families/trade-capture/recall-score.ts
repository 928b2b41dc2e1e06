import { percentOf } from '../../../core/percent.ts';
import type { Sample } from '../../../core/samples.ts';
import type { DigestSet } from '../../digest-set.ts';
import { TRADE_CAPTURE_METRICS as METRICS } from './metrics.ts';
import type { Truth, TruthReason } from './truth.ts';

/**
 * A provider's answer as recall sees it: how many distinct transactions it returned, how many of
 * them T_fin and T hold (matchTruth) and how many of the rest are verified phantoms (countPhantoms),
 * a failure it caused, or one of ours.
 */
export type RecallOutcome =
  | {
      readonly kind: 'ok';
      readonly returned: number;
      readonly inFinalized: number;
      readonly inAll: number;
      readonly phantoms: number;
    }
  | { readonly kind: 'provider_failure' }
  | { readonly kind: 'ours' };

/** The truth as scoring needs it: |T_fin| and its blocks, or why there is none. */
export type RecallTruth =
  | {
      readonly status: 'ok';
      readonly finalizedCount: number;
      readonly fromBlock: number;
      readonly finalizedTo: number;
    }
  | { readonly status: 'unavailable'; readonly reason: TruthReason };

export function recallTruthOf(t: Truth): RecallTruth {
  return t.status === 'ok'
    ? { status: 'ok', finalizedCount: t.finalized.size, fromBlock: t.fromBlock, finalizedTo: t.finalizedTo }
    : { status: 'unavailable', reason: t.reason };
}

/** A provider's distinct hashes matched against the truth read from the chain; `phantoms` as verified. */
export function matchTruth(
  hashes: DigestSet,
  t: Extract<Truth, { status: 'ok' }>,
  phantoms = 0,
): Extract<RecallOutcome, { kind: 'ok' }> {
  return {
    kind: 'ok',
    returned: hashes.size,
    inFinalized: intersectionSize(hashes, t.finalized),
    inAll: intersectionSize(hashes, t.all),
    phantoms,
  };
}

/** The hashes an answer kept as strings that T does not hold: the ones the phantom check looks up. */
export function unmatchedKept(hashes: DigestSet, t: Extract<Truth, { status: 'ok' }>): string[] {
  return hashes.kept.filter((h) => !t.all.has(h));
}

export interface RecallInput {
  readonly chain: string;
  readonly token: string;
  readonly at: number;
  readonly truth: RecallTruth;
  readonly outcomes: readonly { readonly provider: string; readonly outcome: RecallOutcome }[];
}

export interface ProviderRecall {
  readonly recallPct: number;
  /** Null for a failure the provider caused: it returned no hashes to match. */
  readonly unmatched: number | null;
  /** Verified phantoms among the unmatched; null as unmatched. */
  readonly phantoms: number | null;
}

export interface RecallScore {
  readonly samples: Sample[];
  /** One entry per input outcome, in order; null where nothing was scored for the provider. */
  readonly providers: readonly (ProviderRecall | null)[];
}

/** |a ∩ b| over 64-bit digests (both sides hash transaction hashes the same way). */
function intersectionSize(a: DigestSet, b: DigestSet): number {
  let n = 0;
  a.forEach((hi, lo) => {
    if (b.hasDigest(hi, lo)) n++;
  });
  return n;
}

/**
 * Scores a cell against the chain's own Swap logs, one rule for every caller:
 * - no truth: only `token_trade_truth_unavailable{reason}` = 1; no provider is scored;
 * - truth: `token_trade_truth_count` = |T_fin| and the blocks it spans; then, unless T_fin is empty
 *   (no 0/0: nothing more is stored), per provider scored on the cell:
 *   recall = |P ∩ T_fin| / (|T_fin| + phantoms) × 100, where phantoms are the hashes of P \ T the
 *   chain shows are no trade of the token (countPhantoms): each counts against the provider as a
 *   missed swap would, so returning too much never scores above an honest answer, and with no
 *   phantom it is |P ∩ T_fin| / |T_fin|. The rest of P \ T is unmatched: reported, never scored
 *   (other DEXes exist). A failure the provider caused is 0 recall and a failed probe; a failure on
 *   our side scores nothing for that provider.
 * Swaps in the blocks after `finalized` are in T (so a provider returning them is not unmatched)
 * but not in T_fin (so one that misses them, still indexing, loses nothing).
 */
export function scoreRecall(input: RecallInput): RecallScore {
  const { chain, token, at: t, truth } = input;
  const samples: Sample[] = [];
  const providers: (ProviderRecall | null)[] = input.outcomes.map(() => null);
  if (truth.status === 'unavailable') {
    samples.push({
      metric: METRICS.tokenTradeTruthUnavailable,
      labels: { chain, token, reason: truth.reason },
      t,
      v: 1,
    });
    return { samples, providers };
  }
  const whole = truth.finalizedCount;
  samples.push(
    { metric: METRICS.tokenTradeTruthCount, labels: { chain, token }, t, v: whole },
    { metric: METRICS.tokenTradeTruthBlocks, labels: { chain, token, edge: 'from' }, t, v: truth.fromBlock },
    { metric: METRICS.tokenTradeTruthBlocks, labels: { chain, token, edge: 'to' }, t, v: truth.finalizedTo },
  );
  if (whole === 0) return { samples, providers };
  input.outcomes.forEach(({ provider, outcome: o }, i) => {
    if (o.kind === 'ours') return;
    const labels = { provider, chain, token };
    if (o.kind === 'provider_failure') {
      samples.push(
        { metric: METRICS.tokenTradeRecallPct, labels, t, v: 0 },
        { metric: METRICS.tokenTradeRecallProbeOk, labels, t, v: 0 },
      );
      providers[i] = { recallPct: 0, unmatched: null, phantoms: null };
      return;
    }
    const recallPct = percentOf(o.inFinalized, whole + o.phantoms) ?? 0;
    const unmatched = o.returned - o.inAll;
    samples.push(
      { metric: METRICS.tokenTradeRecallPct, labels, t, v: recallPct },
      { metric: METRICS.tokenTradeRecallProbeOk, labels, t, v: 1 },
      { metric: METRICS.tokenTradeUnmatched, labels, t, v: unmatched },
      { metric: METRICS.tokenTradePhantoms, labels, t, v: o.phantoms },
      { metric: METRICS.tokenTradeMatched, labels, t, v: o.inFinalized },
    );
    providers[i] = { recallPct, unmatched, phantoms: o.phantoms };
  });
  return { samples, providers };
}

/** The report's view of a provider's recall on the cell (nothing when it was not scored). */
export function reportedRecall(r: ProviderRecall | null | undefined): {
  recallPct?: number;
  unmatched?: number;
  phantoms?: number;
} {
  if (!r) return {};
  return {
    recallPct: r.recallPct,
    ...(r.unmatched !== null ? { unmatched: r.unmatched } : {}),
    ...(r.phantoms !== null ? { phantoms: r.phantoms } : {}),
  };
}
