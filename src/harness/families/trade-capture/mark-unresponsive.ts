import { REGION_LABEL } from '../../../core/metric-names.ts';
import type { Sample } from '../../../core/samples.ts';
import { unresponsiveProviders } from '../../../core/unresponsive.ts';
import type { HarnessRuntime } from '../../runtime.ts';
import { TRADE_CAPTURE_METRICS as METRICS } from './metrics.ts';

/** The marker's rule looks at most this far back (3 cycles of 30 min, with room for gaps). */
const HISTORY_MS = 24 * 3_600_000;

/**
 * Each benchmark's provider_cycle_5xx samples as this harness wrote them, in memory: the marker is
 * computed from the harness's own cycles, never read back from the store after a cycle's append.
 * On an engine store that read came after samples had been buffered (engine down), failed, and
 * turned a cycle whose samples were safe into `cycle failed`. Seeded once per benchmark from the
 * store, before the first cycle measures anything, so a restart keeps the streaks it had.
 */
interface FiveXxHistory {
  readonly samples: Map<string, Sample[]>;
  readonly seeded: Map<string, Promise<void>>;
}

const histories = new WeakMap<HarnessRuntime, FiveXxHistory>();

function historyOf(rt: HarnessRuntime): FiveXxHistory {
  let h = histories.get(rt);
  if (!h) {
    h = { samples: new Map(), seeded: new Map() };
    histories.set(rt, h);
  }
  return h;
}

/**
 * Reads each benchmark's stored history once (the 24 h before the first slot this harness runs),
 * before the cycle measures. A failed read (the engine down) starts the streaks empty: the marker
 * then follows this harness's own cycles, which is all a restart with no engine can know.
 */
export async function seedUnresponsive(
  rt: HarnessRuntime,
  benches: readonly string[],
  at: number,
): Promise<void> {
  const h = historyOf(rt);
  await Promise.all(
    benches.map((bench) => {
      let p = h.seeded.get(bench);
      if (!p) {
        p = rt.store
          .select({
            metric: METRICS.providerCycle5xx,
            matchers: [
              { name: 'benchmark', op: '=', value: bench },
              { name: REGION_LABEL, op: '=', value: rt.extraLabels?.region ?? '' },
            ],
            after: at - HISTORY_MS,
            until: at,
          })
          .then(
            (stored) => {
              h.samples.set(bench, [...stored, ...(h.samples.get(bench) ?? [])]);
            },
            (e: unknown) =>
              rt.log(
                'debug',
                `${bench}: unresponsive streaks start empty (store not readable: ${String(e)})`,
              ),
          );
        h.seeded.set(bench, p);
      }
      return p;
    }),
  );
}

/**
 * Exports the marker of one benchmark as derived from its cycles (the same rule the publication
 * applies to stored samples), given this cycle's provider_cycle_5xx samples, and logs its changes.
 */
export function markUnresponsive(
  rt: HarnessRuntime,
  bench: string,
  at: number,
  measured: readonly { readonly slug: string }[],
  cycle: readonly Sample[],
): Record<string, boolean> {
  const h = historyOf(rt);
  const kept = (h.samples.get(bench) ?? []).filter((s) => s.t > at - HISTORY_MS && s.t !== at);
  const region = rt.extraLabels?.region;
  const own = cycle.map((s) => (region ? { ...s, labels: { ...s.labels, [REGION_LABEL]: region } } : s));
  // Cycles may run out of order (a backfill, a late slot): the rule sorts by time, and only the
  // samples up to this slot decide its marker.
  const history = [...kept, ...own];
  h.samples.set(bench, history);
  const upTo = history.filter((s) => s.t <= at);
  const before = unresponsiveProviders(upTo.filter((s) => s.t < at));
  const now = unresponsiveProviders(upTo);
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
