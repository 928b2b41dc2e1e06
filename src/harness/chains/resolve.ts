import { doubledName, toCaip2 } from '../../core/caip2.ts';
import { knownChainByCaip2, knownChainBySlug, type SlugScheme } from './known-chains.ts';

/**
 * One way a listing entry names its chain. Adapters list them in the order their provider should be
 * trusted (Codex: its private id first, then the EVM id), and the first that resolves wins.
 */
export type ChainHint =
  /**
   * A chain id exactly as the provider wrote it (`1`, `0x1`, `evm:1`, `eip155:1`,
   * `cosmos:cosmoshub-4`, `solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp`): adapters never parse, trim or
   * lower-case it; core/caip2.ts reads it.
   */
  | { readonly chainId: string | number }
  /** A provider slug, looked up in the reviewed table (known-chains.ts) under its scheme. */
  | { readonly scheme: SlugScheme; readonly slug: string };

export interface ResolvedChain {
  /** The id the entry is counted under: a CAIP-2 id, or `unmapped:<slug>`. */
  readonly id: string;
  /** The CAIP-2 id, null when unmapped. */
  readonly caip2: string | null;
}

export const UNMAPPED_PREFIX = 'unmapped:';

/** Canonical form: Tron's EVM-style `eip155:728126428` is the table's `tron:0x2b6653dc`. */
function canonical(caip2: string): string {
  return knownChainByCaip2(caip2)?.caip2 ?? caip2;
}

function fromHint(h: ChainHint): string | null {
  if ('slug' in h) return knownChainBySlug(h.scheme, h.slug)?.caip2 ?? null;
  const caip2 = toCaip2(h.chainId);
  return caip2 ? canonical(caip2) : null;
}

/**
 * The key of an entry no hint resolves: a slug, not a CAIP-2 id, so case and a provider's doubled
 * `name:name` form are folded (Mobula's `newchain` and `newchain:newchain` are one chain).
 */
function unmappedKey(slug: string): string {
  return doubledName(slug) ?? slug.trim().toLowerCase();
}

/**
 * The one rule turning a listing entry into a chain id: first hint that resolves, else
 * `unmapped:<slug>` (the first slug or chain id the entry gave, folded) so it counts once.
 */
export function resolveChain(hints: readonly ChainHint[], rawId: string): ResolvedChain {
  for (const h of hints) {
    const caip2 = fromHint(h);
    if (caip2) return { id: caip2, caip2 };
  }
  const first = hints[0];
  const slug = first === undefined ? rawId : 'slug' in first ? first.slug : String(first.chainId);
  return { id: `${UNMAPPED_PREFIX}${unmappedKey(slug)}`, caip2: null };
}
