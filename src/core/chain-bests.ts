import type { ChainBests } from './api-schemas.ts';
import type { RankedRow } from './rows.ts';

/**
 * Best and worst provider per chain, each chain ranked exactly as `?chain=<chain>` ranks it (the
 * caller passes those rankings). Only ranked rows count, so a chain needs two providers that were
 * measured against each other: a chain whose rows are all noComparison (one provider alone on its
 * cells) or unresponsive has neither a best nor a worst.
 */
export function chainBests(
  chains: readonly string[],
  rankingsFor: (chain: string) => readonly RankedRow[],
): { best: ChainBests; worst: ChainBests } {
  const best: ChainBests = {};
  const worst: ChainBests = {};
  for (const chain of chains) {
    const ranked = rankingsFor(chain).filter((r) => r.rank !== null);
    const first = ranked[0];
    const last = ranked.at(-1);
    if (ranked.length < 2 || !first || !last) continue;
    best[chain] = { slug: first.slug, name: first.name, value: first.ms.p50 };
    worst[chain] = { slug: last.slug, name: last.name, value: last.ms.p50 };
  }
  return { best, worst };
}
