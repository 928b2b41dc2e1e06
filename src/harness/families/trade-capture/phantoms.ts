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
/** Receipt lookups in flight at once on the reference node. */
const LOOKUPS_IN_FLIGHT = 16;

const TX_HASH = /^0x[0-9a-fA-F]{64}$/;

interface Receipt {
  readonly logs?: readonly { readonly address?: string }[];
}

/**
 * How many of `hashes` (a provider's transactions the cell's truth T does not hold) are verified
 * phantoms: not a transaction hash at all, a transaction our reference node has no receipt for (it
 * holds every block of the window: the truth was read from it), or one whose receipt holds no log
 * emitted by the token's contract, so it cannot be a trade of the token. A transaction with such a
 * log (a trade on a DEX we do not list, a row from outside the window) is not one. Checks the first
 * PHANTOM_CHECKS; a node error throws (the caller then has no truth for the cell).
 */
export async function countPhantoms(
  rpc: ReferenceRpc,
  token: Hex,
  hashes: readonly string[],
  signal?: AbortSignal,
): Promise<number> {
  const checked = hashes.slice(0, PHANTOM_CHECKS);
  const address = token.toLowerCase();
  let phantoms = 0;
  for (let i = 0; i < checked.length; i += LOOKUPS_IN_FLIGHT) {
    const batch = checked.slice(i, i + LOOKUPS_IN_FLIGHT);
    const verdicts = await Promise.all(
      batch.map(async (hash) => {
        if (!TX_HASH.test(hash)) return true;
        const r = await rpc.call<Receipt | null>('eth_getTransactionReceipt', [hash], signal);
        return !(r?.logs ?? []).some((l) => l.address?.toLowerCase() === address);
      }),
    );
    phantoms += verdicts.filter(Boolean).length;
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
  if (truth.status !== 'ok' || reader === undefined) return { truth, phantoms: none };
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
