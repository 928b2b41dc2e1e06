import type { EvmChainTable } from '../../../chains/evm-chains.ts';
import { resolveChain } from '../../../chains/resolve.ts';
import { type TestnetReason, testnetReason } from '../../../chains/testnets.ts';
import type { HarnessProvider } from '../../../config.ts';
import type { AdapterContext } from '../../../context.ts';
import type { Result } from '../../../types.ts';
import type { Listing } from './entries.ts';

export type { DroppedEntry, Listing, ListingEntry } from './entries.ts';

/**
 * An adapter fetches and validates its provider's listing entry by entry (./entries.ts) and says how
 * each entry names its chain; chain ids, testnets and counting are the shared rules below.
 */
export interface NetworkAdapter {
  readonly provider: HarnessProvider;
  list(ctx: AdapterContext): Promise<Result<Listing>>;
}

export interface CountedNetwork {
  /** The id it is counted under: a CAIP-2 id, or `unmapped:<slug>`. */
  readonly chainId: string;
  /** null when the entry could not be mapped to a CAIP-2 id. */
  readonly caip2: string | null;
  readonly name: string;
  /** The provider's own id of the first entry counted for this chain. */
  readonly rawId: string;
}

export interface TestnetEntry {
  readonly chainId: string;
  readonly name: string;
  readonly rawId: string;
  readonly reason: TestnetReason;
}

export interface NetworkCount {
  readonly counted: readonly CountedNetwork[];
  readonly testnets: readonly TestnetEntry[];
}

const byChainId = (a: { chainId: string }, b: { chainId: string }) =>
  a.chainId < b.chainId ? -1 : a.chainId > b.chainId ? 1 : 0;

/**
 * The counting rule: every entry resolved to one chain id (CAIP-2, or `unmapped:<slug>`), testnets
 * dropped by the shared detector, then once per chain id (first entry's name and raw id win),
 * sorted by chain id. Dropped (invalid) entries never reach it.
 */
export function countNetworks(listing: Listing, evm: EvmChainTable): NetworkCount {
  const seen = new Map<string, CountedNetwork>();
  const testnets = new Map<string, TestnetEntry>();
  for (const e of listing.entries) {
    const { id, caip2 } = resolveChain(e.hints, e.rawId);
    const reason = testnetReason({ chainId: id, name: e.name, rawId: e.rawId, providerFlag: e.testnet }, evm);
    if (reason) {
      if (!testnets.has(id)) testnets.set(id, { chainId: id, name: e.name, rawId: e.rawId, reason });
      continue;
    }
    if (!seen.has(id)) seen.set(id, { chainId: id, caip2, name: e.name, rawId: e.rawId });
  }
  return { counted: [...seen.values()].sort(byChainId), testnets: [...testnets.values()].sort(byChainId) };
}
