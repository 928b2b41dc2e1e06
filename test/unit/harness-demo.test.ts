import { Registry } from 'prom-client';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Sample } from '../../src/core/samples.ts';
import type { BenchmarkSpec } from '../../src/core/spec-schema.ts';
import { backfillSlots, startHarnessDemo } from '../../src/demo/harness-demo.ts';
import { STORED_METRIC_NAMES } from '../../src/harness/families/metric-names.ts';
import { loadSpecs } from '../../src/publication/load-specs.ts';
import type { Store } from '../../src/store/sample-store.ts';
import { openTestStore } from '../helpers/memory-store.ts';

const NOW = Date.UTC(2026, 6, 23, 12, 7, 0);
let specs: BenchmarkSpec[];
beforeAll(async () => {
  // The json-rpc family's demo (its own nodes, three regions) is tested in rpc-demo.test.ts.
  specs = (await loadSpecs(new URL('../../benchmarks', import.meta.url).pathname)).filter(
    (s) => s.family !== 'json-rpc',
  );
});

async function everything(store: Store): Promise<Sample[]> {
  const out: Sample[] = [];
  for (const metric of STORED_METRIC_NAMES)
    out.push(...(await store.select({ metric, after: 0, until: NOW + 1 })));
  return out.sort((a, b) =>
    `${a.metric}${JSON.stringify(a.labels)}${a.t}`.localeCompare(
      `${b.metric}${JSON.stringify(b.labels)}${b.t}`,
    ),
  );
}

describe('harness demo backfill', () => {
  it('plans aligned slots in (now − days, now], in time order, one per family', () => {
    // token-trade-recall shares token-trade-coverage's probe: it adds no slot, nor would any other
    // benchmark of that family (a copy stands in for one, whatever the shipped YAML files are).
    const coverage = specs.find((s) => s.slug === 'token-trade-coverage') as BenchmarkSpec;
    const sibling: BenchmarkSpec = { ...coverage, slug: 'token-trade-sibling', number: '099' };
    const slots = backfillSlots(
      [...specs, sibling],
      ['network-coverage', 'token-trade-coverage', 'token-trade-recall', 'token-trade-sibling'],
      NOW,
      3,
    );
    expect(slots.some((s) => s.benchmark === 'token-trade-sibling')).toBe(false);
    expect(slots.filter((s) => s.benchmark === 'network-coverage')).toHaveLength(12);
    expect(slots.filter((s) => s.benchmark === 'token-trade-coverage')).toHaveLength(144);
    expect(slots.at(-1)).toEqual({ benchmark: 'token-trade-coverage', at: Date.UTC(2026, 6, 23, 12, 0) });
    expect(slots.every((s, i) => i === 0 || (slots[i - 1]?.at ?? 0) <= s.at)).toBe(true);
  });

  it('is deterministic for a seed: two runs into two stores give identical samples; a full store is not rewritten', async () => {
    const runs: Sample[][] = [];
    const stores = [];
    for (let i = 0; i < 2; i++) {
      const store = await openTestStore();
      stores.push(store);
      const progress: number[] = [];
      const demo = await startHarnessDemo({
        store,
        specs,
        metrics: new Registry(),
        seed: 4242,
        days: 0.3,
        now: NOW,
        onProgress: (p) => progress.push(p.done),
        // Ground truth on the demo chains has its own tests (ground-truth-e2e, golden).
        groundTruth: false,
      });
      const planned = backfillSlots(specs, ['network-coverage', 'token-trade-coverage'], NOW, 0.3).length;
      expect(planned).toBe(2 + 15);
      expect(demo.backfilled).toBe(planned);
      expect(progress).toEqual(Array.from({ length: planned }, (_, k) => k + 1));
      await demo.stop();
      runs.push(await everything(store));
    }
    expect(runs[0]?.length).toBeGreaterThan(1000);
    expect(new Set(runs[0]?.map((x) => x.metric))).toContain('token_trade_capture_pct');
    expect(runs[1]).toEqual(runs[0]);
    // Resume only: a second demo on a non-empty store backfills nothing and changes nothing.
    const store = stores[0];
    if (!store) throw new Error('no store');
    const calls = store.appendCalls;
    const again = await startHarnessDemo({
      store,
      specs,
      metrics: new Registry(),
      seed: 1,
      days: 3,
      now: NOW + 60_000,
      groundTruth: false,
    });
    expect(again.backfilled).toBe(0);
    await again.stop();
    expect(store.appendCalls).toBe(calls);
    expect(await everything(store)).toEqual(runs[0]);
    for (const s of stores) await s.close();
  }, 60_000);

  it('after the backfill keeps measuring live at the spec cadence (speed-up clock)', async () => {
    const store = await openTestStore();
    const demo = await startHarnessDemo({
      store,
      specs,
      metrics: new Registry(),
      seed: 5,
      days: 0.05,
      now: NOW,
      speed: 3600,
      groundTruth: false,
    });
    expect(demo.backfilled).toBe(4); // token 11:00, 11:30, 12:00 and network 12:00
    const next = Date.UTC(2026, 6, 23, 12, 30);
    const deadline = Date.now() + 10_000;
    let live: Sample[] = [];
    while (live.length === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      live = await store.select({ metric: 'token_trade_capture_pct', after: next - 1, until: next });
    }
    await demo.stop();
    await store.close();
    expect(live.length).toBeGreaterThan(0);
    expect(live.every((x) => x.t === next)).toBe(true);
  }, 20_000);
});
