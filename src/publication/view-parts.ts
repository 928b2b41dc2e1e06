import { nextTurn } from '../concurrency/next-turn.ts';
import type { ChainBests, Filters } from '../core/api-schemas.ts';
import { chainBests } from '../core/chain-bests.ts';
import type { RankedRow, WindowRowExtras } from '../core/rows.ts';
import { type Labels, matchesAll, type Sample } from '../core/samples.ts';
import { type Selection, selection } from '../core/selection.ts';
import type { BenchmarkSpec, ProviderEntry } from '../core/spec-schema.ts';

/** What a view's derivation gives the Stat beside its spec. */
export interface ViewParts {
  readonly rankings: RankedRow[];
  readonly leaderSeries: readonly (number | null)[];
  readonly bests?: { best: ChainBests; worst: ChainBests } | undefined;
  readonly asOf: number | null;
  readonly familyFields?: Record<string, unknown> | undefined;
}

/** Where a view narrows its samples and the times it reads. */
export interface ViewScope {
  readonly spec: BenchmarkSpec;
  readonly filters: Filters | null;
  readonly sel: Selection;
  readonly evalTime: number;
  readonly windowStart: number;
  /** The first time the sparkline reads (exclusive). */
  readonly seriesFrom: number;
  readonly grid: readonly number[];
}

/** A family's row extras, narrowed as the rows are. */
export type ExtrasOf = (keep: (s: Sample) => boolean) => WindowRowExtras;

/** The ranked leader's provider entry, or undefined when no row leads. */
export function leaderEntry(rankings: readonly RankedRow[], providers: readonly ProviderEntry[]) {
  const leader = rankings[0]?.rank === 1 ? rankings[0].slug : null;
  return providers.find((p) => p.slug === leader);
}

/**
 * Best and worst per chain for a benchmark with a chain dimension: each chain is ranked from the
 * samples already read, narrowed exactly as `?chain=<chain>` narrows them (its providers and label
 * matchers), so a chain's best is the leader of that filtered Stat. One chain per turn of the loop.
 */
export async function perChain(
  spec: BenchmarkSpec,
  filters: Filters | null,
  rank: (providers: readonly ProviderEntry[], keep: (labels: Labels) => boolean) => RankedRow[],
): Promise<{ best: ChainBests; worst: ChainBests } | undefined> {
  const dim = spec.dimensions.chain;
  if (!dim) return undefined;
  const chains = filters?.chain !== undefined ? [filters.chain] : dim.values.map((v) => v.value);
  const rows = new Map<string, RankedRow[]>();
  for (const chain of chains) {
    await nextTurn();
    const sel = selection(spec, { ...filters, chain });
    const slugs = new Set(sel.providers.map((p) => p.slug));
    rows.set(
      chain,
      rank(sel.providers, (labels) => {
        const p = labels.provider;
        return (p === undefined || slugs.has(p)) && matchesAll(labels, sel.labelMatchers);
      }),
    );
  }
  return chainBests(chains, (chain) => rows.get(chain) ?? []);
}
