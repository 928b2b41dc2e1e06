import { REGION_LABEL } from '../../../core/metric-names.ts';
import { unresponsiveProviders } from '../../../core/unresponsive.ts';
import type { HarnessRuntime } from '../../runtime.ts';
import { TRADE_CAPTURE_METRICS as METRICS } from './metrics.ts';

/**
 * Exports the marker of one benchmark as derived from its stored cycles (the same rule the
 * publication applies), after the cycle's append, and logs its changes.
 */
export async function markUnresponsive(
  rt: HarnessRuntime,
  bench: string,
  at: number,
  measured: readonly { readonly slug: string }[],
): Promise<Record<string, boolean>> {
  const history = await rt.store.select({
    metric: METRICS.providerCycle5xx,
    matchers: [
      { name: 'benchmark', op: '=', value: bench },
      { name: REGION_LABEL, op: '=', value: rt.extraLabels?.region ?? '' },
    ],
    after: at - 24 * 3_600_000,
    until: at,
  });
  const before = unresponsiveProviders(history.filter((s) => s.t < at));
  const now = unresponsiveProviders(history);
  const out: Record<string, boolean> = {};
  for (const m of measured) {
    const marked = now.has(m.slug);
    out[m.slug] = marked;
    rt.metrics.providerUnresponsive.set({ benchmark: bench, provider: m.slug }, marked ? 1 : 0);
    if (marked && !before.has(m.slug)) rt.log('warn', `${m.slug} marked unresponsive (3 cycles of 5xx)`);
    if (!marked && before.has(m.slug)) rt.log('info', `${m.slug} responsive again`);
  }
  return out;
}
