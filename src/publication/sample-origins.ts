import { MEASURED_MATCHER, ORIGIN_PROBE_METRICS, SIMULATED_MATCHER } from '../core/sample-origin.ts';
import type { Matcher } from '../core/samples.ts';
import type { SampleStore } from '../store/sample-store.ts';

export interface StoreOrigins {
  /** The store holds samples written by simulated providers. */
  readonly simulated: boolean;
  /** The store holds measured samples (no origin label). */
  readonly measured: boolean;
}

/**
 * Which origins a store holds, from the newest sample per series of the metrics every cycle
 * writes: a few small queries, run at start-up (and after an append while nothing simulated has
 * been seen), never on a request.
 */
export async function readOrigins(
  store: SampleStore,
  range?: { readonly notBefore: number; readonly at: number },
): Promise<StoreOrigins> {
  const at = range?.at ?? (await store.timeBounds())?.max;
  if (at === undefined) return { simulated: false, measured: false };
  const any = async (matcher: Matcher) => {
    for (const metric of ORIGIN_PROBE_METRICS) {
      const q = { metric, matchers: [matcher], at };
      const found = await store.latest(range ? { ...q, notBefore: range.notBefore } : q);
      if (found.length > 0) return true;
    }
    return false;
  };
  const [simulated, measured] = await Promise.all([any(SIMULATED_MATCHER), any(MEASURED_MATCHER)]);
  return { simulated, measured };
}
