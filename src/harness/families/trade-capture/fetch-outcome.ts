import type { HarnessRuntime } from '../../runtime.ts';
import { blame, is5xx, type Result } from '../../types.ts';
import type { TradeFetch, TradeWindow } from './adapters/contract.ts';
import type { CellOutcome } from './cell-score.ts';
import { matchTruth, type RecallOutcome } from './recall-score.ts';
import type { Truth } from './truth.ts';

/** How long a cell's truth read may take (wall clock) before the cell is scored without it. */
export const TRUTH_BUDGET_MS = 120_000;

/** A reader failure is the reference node's, never the providers': the cell then has no truth. */
export async function readTruth(
  rt: HarnessRuntime,
  token: { readonly chain: string; readonly address: string },
  w: TradeWindow,
  signal: AbortSignal,
): Promise<Truth> {
  const address = token.address.toLowerCase();
  if (!rt.truth || !/^0x[0-9a-f]{40}$/.test(address))
    return { status: 'unavailable', reason: 'no-reference-node', message: 'no reference node for the chain' };
  // Its own budget within the cycle's: a slow node (or a first pool scan) must not hold the cells
  // waiting for it until the cycle's deadline abandons the ones not yet run.
  const budget = AbortSignal.any([signal, AbortSignal.timeout(TRUTH_BUDGET_MS)]);
  try {
    return await rt.truth.read(token.chain, address as `0x${string}`, w, budget);
  } catch (e) {
    rt.log('warn', `ground truth ${token.chain}/${token.address}: ${(e as Error).message}`, {});
    return { status: 'unavailable', reason: 'node-error', message: (e as Error).message };
  }
}

/** Recall's view of a fetch: scored against the truth when the cell has one, else ours. */
export function recallOutcomeOf(r: Result<TradeFetch>, truth: Truth, phantoms: number): RecallOutcome {
  if (r.ok) return truth.status === 'ok' ? matchTruth(r.value.hashes, truth, phantoms) : { kind: 'ours' };
  return blame(r.failure) === 'ours' ? { kind: 'ours' } : { kind: 'provider_failure' };
}

/** A failure the provider's key rule covers: 401/403 or its documented code (`blame`'s auth case). */
export function isRefusal(r: Result<TradeFetch>): boolean {
  return !r.ok && r.failure.type === 'auth' && blame(r.failure) === 'ours';
}

/** The scoring's view of a fetch: blame decides whether a failure is the provider's or ours. */
export function outcomeOf(r: Result<TradeFetch>): CellOutcome {
  if (r.ok) return { kind: 'ok', count: r.value.hashes.size, capped: r.value.capped };
  if (blame(r.failure) === 'ours') return { kind: 'ours' };
  return { kind: 'provider_failure', fiveXx: is5xx(r.failure) };
}
