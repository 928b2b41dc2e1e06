import type { HarnessProvider } from '../../../config.ts';
import type { AdapterContext } from '../../../context.ts';
import type { DigestSet } from '../../../digest-set.ts';
import type { ReferenceToken } from '../../../tokens.ts';
import type { Result } from '../../../types.ts';

/** Half-open window [startMs, endMs), shared by every provider in a cycle. */
export interface TradeWindow {
  readonly startMs: number;
  readonly endMs: number;
}

/**
 * Distinct hashes per answer kept as strings (the first ones, in the provider's order) so recall's
 * phantom check can look them up on the chain: ~1.4 MB per answer at most, where the digests of a
 * million-trade cell take 16 MiB.
 */
export const PHANTOM_CANDIDATES = 10_000;

export interface TradeFetch {
  /** Distinct transaction hashes as 64-bit digests (deduped page by page; pages are never kept). */
  readonly hashes: DigestSet;
  /** Rows returned before dedupe. */
  readonly rows: number;
  readonly pages: number;
  /**
   * True when a limit stopped the fetch (the provider's row limit, our page guard or our hash
   * bound), so the count is a floor: scored as it is and flagged, never thrown away.
   */
  readonly capped: boolean;
}

export interface TradeAdapter {
  readonly provider: HarnessProvider;
  readonly chains: readonly string[];
  /** Row limit per call when the provider has one with no pagination (Bitquery). */
  readonly hardRowLimit?: number;
  fetch(token: ReferenceToken, window: TradeWindow, ctx: AdapterContext): Promise<Result<TradeFetch>>;
}
