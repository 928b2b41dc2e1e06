import type { HarnessProvider } from '../config.ts';
import type { AdapterContext } from '../context.ts';
import type { Result } from '../types.ts';

/** One listing entry, normalized: `key` is the provider's chain key after normalization. */
export interface ListedNetwork {
  readonly key: string;
  readonly name: string;
  readonly testnet: boolean;
}

export interface NetworkAdapter {
  readonly provider: HarnessProvider;
  list(ctx: AdapterContext): Promise<Result<ListedNetwork[]>>;
}

export interface CountedNetwork {
  readonly key: string;
  readonly name: string;
}

/** The counting rule: mainnets only, once per unique key (first entry's name wins), sorted by key. */
export function countNetworks(list: readonly ListedNetwork[]): CountedNetwork[] {
  const seen = new Map<string, CountedNetwork>();
  for (const n of list) {
    if (n.testnet || seen.has(n.key)) continue;
    seen.set(n.key, { key: n.key, name: n.name });
  }
  return [...seen.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}
