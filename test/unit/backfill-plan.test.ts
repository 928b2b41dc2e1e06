import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { HARNESS_CYCLE_METRIC } from '../../src/core/metric-names.ts';
import type { SlotRef } from '../../src/core/missing-slots.ts';
import type { BenchmarkSpec } from '../../src/core/spec-schema.ts';
import {
  BACKFILL_PLAN_FILE,
  extendPlan,
  loadPlan,
  newPlan,
  type PlanFamily,
  pendingRuns,
  readTried,
  savePlan,
} from '../../src/demo/backfill-plan.ts';
import { planFamilies, startHarnessDemo } from '../../src/demo/harness-demo.ts';
import { loadHarnessConfig } from '../../src/harness/config.ts';
import { CycleFailedError, startHarness } from '../../src/harness/service.ts';
import { loadSpecs } from '../../src/publication/load-specs.ts';
import { DEMO_REGIONS } from '../../src/sim/rpc/index.ts';
import { BENCHMARKS_DIR } from '../helpers/fixture.ts';
import { openTestStore } from '../helpers/memory-store.ts';
import { steppedClock } from '../helpers/stepped-clock.ts';

const MIN = 60_000;
const H = 60 * MIN;
const NOW = Date.UTC(2026, 6, 23, 12, 7);
let specs: BenchmarkSpec[];
let families: PlanFamily[];
beforeAll(async () => {
  specs = await loadSpecs(BENCHMARKS_DIR);
  families = planFamilies(specs, { days: 1 });
});
const key = (s: SlotRef) => `${s.benchmark}|${s.region}|${new Date(s.at).toISOString()}`;

describe('the backfill plan', () => {
  it('plans every (benchmark, region, slot): each family over its window, json-rpc in 5-minute steps per region', () => {
    const plan = newPlan(families, { seed: 7, days: 1, now: NOW });
    const of = (b: string) => plan.slots.filter((s) => s.benchmark === b);
    // 48 trade slots a day for each benchmark of the family; 4 network slots.
    expect(of('token-trade-coverage')).toHaveLength(48);
    expect(of('token-trade-recall').map((s) => s.at)).toEqual(of('token-trade-coverage').map((s) => s.at));
    expect(of('network-coverage')).toHaveLength(4);
    // 6 h of 5-minute slots in each of the three regions, ending at the newest minute.
    const rpc = of('rpc-latency');
    expect(rpc).toHaveLength(72 * DEMO_REGIONS.length);
    expect(new Set(rpc.map((s) => s.region))).toEqual(new Set(DEMO_REGIONS));
    expect(Math.max(...rpc.map((s) => s.at))).toBe(NOW);
    expect(plan.slots.every((s, i) => i === 0 || (plan.slots[i - 1]?.at ?? 0) <= s.at)).toBe(true);
    // One cycle per family and slot (and region): the family's probe serves all its benchmarks.
    const runs = pendingRuns(plan, families, () => false);
    expect(runs.filter((r) => r.family === 'trade-capture')).toHaveLength(48);
    expect(runs.find((r) => r.family === 'json-rpc')?.regions).toEqual(DEMO_REGIONS);
  });

  it('a restart skips tried slots and backfills the downtime; a slot the plan holds is never given up, however late', () => {
    const plan = newPlan(families, { seed: 7, days: 1, now: NOW });
    // The first half was tried (a failed cycle's marker counts the same).
    const half = plan.slots.filter((s) => s.at < NOW - 12 * H);
    const tried = new Set(half.map(key));
    const isTried = (s: SlotRef) => tried.has(key(s));
    // Down for 20 h: back 24 h later minus 4 h, so the untried half of the old plan is now partly
    // older than the window. A slow or killed backfill gives none of it up.
    const later = NOW + 20 * H;
    const ext = extendPlan(plan, families, later, isTried);
    const trade = (p: typeof ext.plan.slots) => p.filter((s) => s.benchmark === 'token-trade-coverage');
    // Every trade slot of the new window (later − 24 h, later] is planned; no slot inside it is dropped.
    const window = trade(ext.plan.slots).filter((s) => s.at > later - 24 * H);
    expect(window).toHaveLength(48);
    expect(window.every((s, i) => i === 0 || s.at - (window[i - 1]?.at ?? 0) === 30 * MIN)).toBe(true);
    // Every slot of the old plan is still planned, tried or not: none of the family's is given up.
    expect(trade(ext.plan.missing)).toEqual([]);
    const kept = new Set(ext.plan.slots.map(key));
    expect(plan.slots.every((s) => kept.has(key(s)))).toBe(true);
    // What is left to run: exactly the untried planned slots, never a tried one, the old ones first.
    const runs = pendingRuns(ext.plan, families, isTried).filter((r) => r.family === 'trade-capture');
    expect(runs.map((r) => r.at)).toEqual(
      trade(ext.plan.slots)
        .filter((s) => !isTried(s))
        .map((s) => s.at),
    );
    expect(runs[0]?.at).toBe(Date.UTC(2026, 6, 23, 0, 30));
    expect(ext.plan.start).toBe(NOW);
    expect(ext.plan.end).toBe(later);
    // Extending again to the same time changes nothing.
    const again = extendPlan(ext.plan, families, later, isTried);
    expect(again.added + again.givenUp).toBe(0);
  });

  it('gives up only the downtime slots older than the window, which no plan held', () => {
    const plan = newPlan(families, { seed: 7, days: 1, now: NOW });
    // Down for 30 h: the grid's first 6 h after the plan's newest slot are older than the window.
    const later = NOW + 30 * H;
    const ext = extendPlan(plan, families, later, () => false);
    const trade = (p: typeof ext.plan.missing) => p.filter((s) => s.benchmark === 'token-trade-coverage');
    const givenUp = trade(ext.plan.missing);
    expect(givenUp.map((s) => s.at)).toEqual(
      Array.from({ length: 12 }, (_, i) => NOW - 7 * MIN + (i + 1) * 30 * MIN),
    );
    expect(givenUp.every((s) => s.at <= later - 24 * H)).toBe(true);
    // The old plan's slots, untried and far outside the window now, all stay planned.
    const kept = new Set(ext.plan.slots.map(key));
    expect(plan.slots.every((s) => kept.has(key(s)))).toBe(true);
  });

  it('is kept in DATA_DIR/backfill-plan.json and read back as it was', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cb-plan-'));
    expect(await loadPlan(dir)).toBeNull();
    const plan = extendPlan(
      newPlan(families, { seed: 7, days: 1, now: NOW }),
      families,
      NOW + 30 * H,
      () => false,
    ).plan;
    await savePlan(dir, plan);
    expect(await loadPlan(dir)).toEqual(plan);
    const file = JSON.parse(readFileSync(join(dir, BACKFILL_PLAN_FILE), 'utf8'));
    expect(file).toMatchObject({ version: 1, seed: 7, days: 1 });
    expect(file.slots[0]).toEqual({ benchmark: expect.any(String), region: null, slot: expect.any(String) });
    expect(file.slots.some((s: { region: string | null }) => s.region === 'eu-west')).toBe(true);
  });
});

describe('a failed cycle is stored with its slot', () => {
  it('a probe that throws writes harness_cycle{failure="error"} = 0 at its slot: the slot counts as tried', async () => {
    const store = await openTestStore();
    const trade = specs.filter((s) => s.family === 'trade-capture');
    const harness = startHarness({
      store,
      specs: trade,
      metrics: new Registry(),
      harnessConfig: loadHarnessConfig({}),
      autoStart: false,
      // The trade family reads its reference tokens first: an empty token list with a throwing
      // truth reader is not enough, so the store's first append (the cycle's) throws instead.
      tokens: [],
    });
    const append = store.append.bind(store);
    let calls = 0;
    store.append = (samples) => (calls++ === 0 ? Promise.reject(new Error('disk full')) : append(samples));
    const at = Date.UTC(2026, 6, 23, 12);
    const err = await harness.runCycle('token-trade-coverage', at).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CycleFailedError);
    expect((err as CycleFailedError).stored).toBe(true);
    const markers = await store.select({ metric: HARNESS_CYCLE_METRIC, after: at - 1, until: at });
    expect(markers.map((m) => [m.labels.benchmark, m.labels.failure, m.v]).sort()).toEqual([
      ['token-trade-coverage', 'error', 0],
      ['token-trade-recall', 'error', 0],
    ]);
    const tried = await readTried(store, at, at);
    expect(tried({ benchmark: 'token-trade-recall', region: null, at })).toBe(true);
    await harness.stop();
    await store.close();
  });
});

describe('startHarnessDemo resumes its plan', () => {
  it('a second start on the same DATA_DIR skips every tried slot and runs only the downtime', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cb-plan-demo-'));
    const store = await openTestStore();
    const own = specs.filter((s) => s.family !== 'json-rpc');
    const run = (now: number) =>
      startHarnessDemo({
        store,
        specs: own,
        metrics: new Registry(),
        seed: 3,
        days: 0.25,
        now,
        dataDir: dir,
        groundTruth: false,
      });
    const first = await run(NOW);
    await first.stop();
    expect(first.backfilled).toBe(13); // 12 trade slots and one network slot in 6 h
    const calls = store.appendCalls;
    // Back 1 h later: the plan is read, its slots skipped, the two trade slots of the hour run.
    const second = await run(NOW + H);
    await second.stop();
    expect(second.resumedSlots).toBe(25);
    expect(second.backfilled).toBe(2);
    expect(store.appendCalls).toBe(calls + 2);
    expect((await loadPlan(dir))?.end).toBe(NOW + H);
    await store.close();
  }, 60_000);

  it('with the demo clock, catches up with the slots its time reached during the backfill, then hands over with no gap', async () => {
    const store = await openTestStore();
    const own = specs.filter((s) => s.family !== 'json-rpc');
    // The demo clock moves 18 simulated minutes per backfilled cycle, whatever the machine's speed:
    // the 13 cycles take it from 12:07 to 16:01, past 8 trade slots, and no slot is then due
    // within the catch-up's wait (a quarter of a cadence). The live harness's timers never fire.
    const clock = steppedClock({ start: NOW, rate: 3600, jumpMs: 0 });
    const demo = await startHarnessDemo({
      store,
      specs: own,
      metrics: new Registry(),
      seed: 3,
      days: 0.25,
      now: NOW,
      clock,
      groundTruth: false,
      onProgress: () => clock.step(18 * MIN),
    });
    const handedOver = clock.now();
    await demo.stop();
    expect(demo.backfilled).toBe(13);
    // The 8 trade slots the clock passed, 12:30 to 16:00: only slots after the plan's newest,
    // never a planned slot again, and none left to the live scheduler.
    expect(handedOver).toBe(Date.UTC(2026, 6, 23, 16, 1));
    const reached = Math.floor(handedOver / (30 * MIN)) - Math.floor(NOW / (30 * MIN));
    expect(reached).toBe(8);
    expect(demo.caughtUp).toBe(reached);
    const trade = (await store.select({ metric: HARNESS_CYCLE_METRIC, after: 0, until: NOW + 10 * H }))
      .filter((m) => m.labels.benchmark === 'token-trade-coverage')
      .map((m) => m.t);
    expect(trade.every((t, i) => i === 0 || t - (trade[i - 1] ?? 0) === 30 * MIN)).toBe(true);
    expect(Math.max(...trade)).toBe(Date.UTC(2026, 6, 23, 16));
    await store.close();
  }, 60_000);
});
