import type { WindowRowExtras } from '../../../core/rows.ts';
import type { Sample } from '../../../core/samples.ts';
import { unresponsiveProviders } from '../../../core/unresponsive.ts';
import type { ExtrasQuery } from '../family.ts';
import { JSON_RPC_METRICS as M } from './metrics.ts';

/** Consecutive down slots before a provider is unresponsive, when the spec does not say. */
export const RPC_UNRESPONSIVE_AFTER = 10;

/**
 * What json-rpc adds to the shared window derivation: the unresponsive marker, from the stored
 * down-slot samples (one per provider, region and slot) and the spec's `unresponsiveAfter`. A cell
 * filter (chain, kind) cannot narrow them; the region filter does.
 */
export async function jsonRpcExtras(
  q: ExtrasQuery,
): Promise<(keep: (s: Sample) => boolean) => WindowRowExtras> {
  const { store, spec, providerMatcher, labelMatchers, windowStart, evalTime } = q;
  const cellLabels = spec.derivation.mode === 'window' ? spec.derivation.cellLabels : [];
  const slotMatchers = labelMatchers.filter((m) => !cellLabels.includes(m.name) && m.name !== 'kind');
  const down = await store.select({
    metric: M.slotDown,
    matchers: [providerMatcher, ...slotMatchers],
    after: windowStart,
    until: evalTime,
  });
  const unresponsive = unresponsiveProviders(down, spec.unresponsiveAfter ?? RPC_UNRESPONSIVE_AFTER);
  return () => ({ unresponsive });
}
