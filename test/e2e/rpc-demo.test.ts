import { Registry } from 'prom-client';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Sample } from '../../src/core/samples.ts';
import type { BenchmarkSpec } from '../../src/core/spec-schema.ts';
import {
  openDemoChains,
  REGIONAL_FAMILY,
  RPC_BACKFILL_STEP_MS,
  startRpcDemo,
} from '../../src/demo/rpc-demo.ts';
import { JSON_RPC_METRICS as M } from '../../src/harness/families/json-rpc/metrics.ts';
import type { CycleReport } from '../../src/harness/report.ts';
import { loadSpecs } from '../../src/publication/load-specs.ts';
import { DEMO_REGIONS } from '../../src/sim/rpc/index.ts';
import { BENCHMARKS_DIR } from '../helpers/fixture.ts';
import { type CountingStore, openTestStore } from '../helpers/memory-store.ts';

// A fixed "now" a little in the past, so the chains' blocks are all behind the wall clock.
const NOW = Date.UTC(2026, 10, 20, 12, 7, 0);
const BACKFILL_MS = 15 * 60_000;
let specs: BenchmarkSpec[];
beforeAll(async () => {
  specs = (await loadSpecs(BENCHMARKS_DIR)).filter((s) => s.family === REGIONAL_FAMILY);
});

async function run(store: CountingStore, reports: CycleReport[] = []) {
  const chains = await openDemoChains({
    seed: 5,
    now: NOW,
    log: () => {},
    backfillMs: BACKFILL_MS,
    // 25 minutes of chain before the first slot: 125 blocks (100 of logs, 10 pinned behind).
    chainLeadMs: 25 * 60_000,
  });
  try {
    const demo = await startRpcDemo({
      store,
      chains,
      specs,
      metrics: new Registry(),
      seed: 5,
      now: NOW,
      log: () => {},
      backfillMs: BACKFILL_MS,
      onCycle: (r) => reports.push(r),
    });
    await demo?.stop();
    return demo;
  } finally {
    await Promise.all(chains.map((c) => c.stop()));
  }
}

const everything = async (store: CountingStore): Promise<Sample[]> => {
  const out: Sample[] = [];
  for (const m of Object.values(M))
    out.push(...(await store.select({ metric: m, after: 0, until: NOW + 1 })));
  return out.sort((a, b) =>
    `${a.metric}${JSON.stringify(a.labels)}${a.t}`.localeCompare(
      `${b.metric}${JSON.stringify(b.labels)}${b.t}`,
    ),
  );
};

describe('the json-rpc demo: real nodes, three regions, history built forward', () => {
  it('backfills every slot in every region, each slot on a chain whose head is not after it, the same for a seed', async () => {
    const reports: CycleReport[] = [];
    const a = await openTestStore();
    const demo = await run(a, reports);
    expect(demo?.backfilled).toBe(BACKFILL_MS / RPC_BACKFILL_STEP_MS);
    const slots = [...new Set(reports.map((r) => r.at))].sort();
    expect(slots).toHaveLength(BACKFILL_MS / RPC_BACKFILL_STEP_MS);
    for (const r of reports) {
      // A backfilled `latest` block was mined at or before the slot it was asked in.
      const heads = Object.values(r.heads ?? {});
      expect(heads.length).toBe(3);
      for (const ts of heads) expect(ts).toBeLessThanOrEqual(r.at);
      for (const ts of heads) expect(ts).toBeGreaterThan(r.at - 12_000 * 4);
    }
    const samples = await everything(a);
    expect(new Set(samples.map((s) => s.labels.region))).toEqual(new Set(DEMO_REGIONS));
    expect(samples.some((s) => s.metric === M.headLagMs)).toBe(true);
    // One append per region and slot.
    expect(a.appendCalls).toBe(slots.length * DEMO_REGIONS.length);
    // The same seed and time: the same samples, byte for byte.
    const b = await openTestStore();
    await run(b);
    expect(await everything(b)).toEqual(samples);
    // A restart on the filled store rewrites nothing.
    const again = await run(a);
    expect(again?.backfilled).toBe(0);
    expect(a.appendCalls).toBe(slots.length * DEMO_REGIONS.length);
    await Promise.all([a.close(), b.close()]);
    // Quiet, ~12 s (41 s with the machine 3–4 times slower); the timeout is a hang guard only.
  }, 300_000);
});
