import type { ReferenceRpc } from '../../reference-rpc.ts';
import type { Result } from '../../types.ts';
import type { TradeFetch } from './adapters/contract.ts';
import type { Hex } from './logs.ts';
import { unmatchedKept } from './recall-score.ts';
import type { Truth, TruthReader } from './truth.ts';

/**
 * Receipts looked up per provider answer and cell. Beyond them (and beyond the hashes an answer
 * keeps as strings, PHANTOM_CANDIDATES), a hash the truth does not hold stays unmatched: reported,
 * never scored, since other DEXes exist.
 */
export const PHANTOM_CHECKS = 500;
/** Receipts asked for in one JSON-RPC batch. */
const LOOKUPS_PER_BATCH = 100;

const TX_HASH = /^0x[0-9a-fA-F]{64}$/;

interface Receipt {
  readonly logs?: readonly { readonly address?: string }[];
}

/**
 * How many of `hashes` (a provider's transactions the cell's truth T does not hold) are verified
 * phantoms: not a transaction hash at all, a transaction our reference node has no receipt for, or
 * one whose receipt holds no log emitted by the token's contract (so it cannot be a trade of the
 * token). Called only once the node holds a block after the window (withPhantoms), so a missing
 * receipt is not a block it has yet to see. A transaction with a log of the token (a trade on a DEX
 * we do not list, a row from outside the window) is not one. Checks the first PHANTOM_CHECKS; a
 * node error throws (the caller then has no truth for the cell).
 */
export async function countPhantoms(
  rpc: ReferenceRpc,
  token: Hex,
  hashes: readonly string[],
  signal?: AbortSignal,
): Promise<number> {
  const checked = hashes.slice(0, PHANTOM_CHECKS);
  const address = token.toLowerCase();
  let phantoms = checked.filter((h) => !TX_HASH.test(h)).length;
  const lookups = checked.filter((h) => TX_HASH.test(h));
  // Batched: one request per LOOKUPS_PER_BATCH receipts, not one each (a cell of a catch-up once
  // asked 1,500).
  for (let i = 0; i < lookups.length; i += LOOKUPS_PER_BATCH) {
    const batch = lookups.slice(i, i + LOOKUPS_PER_BATCH).map((h) => [h]);
    const receipts = await rpc.batch<Receipt | null>('eth_getTransactionReceipt', batch, signal);
    for (const r of receipts) {
      if (r === null) phantoms++;
      else if (!(r.logs ?? []).some((l) => l.address?.toLowerCase() === address)) phantoms++;
    }
  }
  return phantoms;
}

/**
 * The cell's truth and each answer's verified phantoms (0 for a failed answer). A node error while
 * looking them up leaves the cell without truth (node-error), as any doubt about the truth does:
 * nobody's recall is scored on it that cycle.
 */
export async function withPhantoms(
  reader: TruthReader | undefined,
  token: { readonly chain: string; readonly address: string },
  answers: readonly Result<TradeFetch>[],
  truth: Truth,
  signal?: AbortSignal,
): Promise<{ readonly truth: Truth; readonly phantoms: readonly number[] }> {
  const none = answers.map(() => 0);
  // An empty T_fin scores no recall (no 0/0): nothing to look up for it. A node that has not
  // reached the window's end may lack what a provider ahead of it names: nothing is verified then
  // (the demo's catch-up once looked up 4,500 such hashes a cycle).
  if (truth.status !== 'ok' || reader === undefined || truth.finalized.size === 0 || !truth.complete)
    return { truth, phantoms: none };
  const address = token.address.toLowerCase() as Hex;
  try {
    const phantoms = await Promise.all(
      answers.map((r) => {
        const candidates = r.ok ? unmatchedKept(r.value.hashes, truth) : [];
        return candidates.length === 0 ? 0 : reader.phantoms(token.chain, address, candidates, signal);
      }),
    );
    return { truth, phantoms };
  } catch (e) {
    const message = `phantom check: ${e instanceof Error ? e.message : String(e)}`;
    return { truth: { status: 'unavailable', reason: 'node-error', message }, phantoms: none };
  }
}
