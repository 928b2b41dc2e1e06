import type { SlotRef } from '../core/missing-slots.ts';
import { loadHarnessConfig, simulatorEnv } from '../harness/config.ts';
import { CycleFailedError, type Harness, startHarness } from '../harness/service.ts';
import { TRADE_WINDOW_MS } from '../harness/tokens.ts';
import { silentLog } from '../harness/types.ts';
import { BLOCK_TIME_MS, type DemoChain } from '../sim/chains/index.ts';
import { providerProfile } from '../sim/profiles.ts';
import { startSimulatorThread, type ThreadedSimulator } from '../sim/threaded.ts';
import {
  type BackfillPlan,
  BackfillPlanError,
  extendPlan,
  loadPlan,
  newPlan,
  type PlanFamily,
  type PlanRun,
  pendingRuns,
  planView,
  savePlan,
} from './backfill-plan.ts';
import { scaledClock } from './demo-clock.ts';
import { demoTruthReader } from './demo-dexes.ts';
import {
  CATCH_UP_BUDGET_MS,
  catchUpPace,
  DAY,
  demoIncidents,
  HOUR,
  newestPlanned,
  planFamilies,
  RPC_CADENCE_CATCH_UP_MAX,
  sleepOn,
} from './demo-plan-slots.ts';
import type { HarnessDemo, HarnessDemoOptions, PlanSummary } from './harness-demo-options.ts';
import { readTriedRetrying, readTriedSince, storeLooksEmpty } from './plan-reads.ts';
import {
  demoChainOrigin,
  openDemoChains,
  REGIONAL_FAMILY,
  RPC_BACKFILL_MS,
  type RpcDemo,
  startRpcDemo,
} from './rpc-demo.ts';

export { backfillSlots, demoIncidents, planFamilies } from './demo-plan-slots.ts';
export type {
  HarnessDemo,
  HarnessDemoOptions,
  HarnessDemoProgress,
  PlanSummary,
} from './harness-demo-options.ts';

/** The family whose cells have an on-chain ground truth on the demo chains. */
const TRUTH_FAMILY = 'trade-capture';

/**
 * Starts the simulator and a real harness pointed at it, and runs the demo's backfill plan
 * (src/demo/backfill-plan.ts): a new one of `days` days on an empty store; on a DATA_DIR with a plan,
 * the same plan resumed (slots with a marker skipped) and extended to `now`. Backfilled cycles run
 * at past slots (latency 0). With a demo `clock` the plan then catches up with it; then the
 * harness keeps measuring at the spec cadence on that clock (else on one running `speed` times
 * real time from `now`).
 */
export async function startHarnessDemo(opts: HarnessDemoOptions): Promise<HarnessDemo> {
  const log = opts.log ?? silentLog;
  const build = opts.build ? { build: opts.build } : {};
  const days = opts.days ?? 3;
  // The json-rpc family runs once per region against its own simulated nodes (rpc-demo.ts); the
  // others run once, without a region, against the HTTP simulator.
  const rpcSpecs = opts.specs.filter((s) => s.family === REGIONAL_FAMILY);
  const specs = opts.specs.filter((s) => s.family !== REGIONAL_FAMILY);
  const tradeSlugs = new Set(specs.filter((s) => s.family === TRUTH_FAMILY).map((s) => s.slug));
  // The plan on disk (a restart), read before the chains: their origin is placed from its start.
  const stored = opts.dataDir !== undefined ? await loadPlan(opts.dataDir) : null;
  if (stored && stored.seed !== opts.seed) {
    throw new BackfillPlanError(
      `${opts.dataDir} was backfilled with DEMO_SEED=${stored.seed} (backfill-plan.json); start it with that seed, or set DATA_DIR to another folder`,
    );
  }
  const planStart = stored?.start ?? opts.start ?? opts.now;
  const rpcBackfillMs = Math.min(opts.rpcBackfillMs ?? RPC_BACKFILL_MS, (stored?.days ?? days) * DAY);
  // The demo chains serve the json-rpc family and the trade cells' ground truth: their DEX's swaps
  // are what the simulated trade providers report and what recall is scored against.
  const wantChains = rpcSpecs.length > 0 || ((opts.groundTruth ?? true) && tradeSlugs.size > 0);
  const chainOpts = {
    seed: opts.seed,
    now: planStart,
    log,
    ...(opts.dataDir !== undefined ? { dataDir: opts.dataDir } : {}),
    // The chains' history spans the json-rpc backfill (plus a lead); without that family they only
    // carry the trade cells' truth, from an hour before the plan's start: a 7-hour history took
    // ~15 s to rebuild after a kill -9 (the chains' state is dumped only on a clean stop).
    backfillMs: rpcSpecs.length > 0 ? rpcBackfillMs : 0,
  };
  const chains: DemoChain[] = wantChains ? await openDemoChains(chainOpts) : [];
  // A resumed chain keeps the origin its state was built from.
  const origin = chains[0]?.origin ?? demoChainOrigin(chainOpts);
  // The first trade slot whose whole window lies on the chains (from block 2, the first with swaps).
  const truthFrom = origin + BLOCK_TIME_MS + TRADE_WINDOW_MS;
  let stopFollow: Array<() => void> = [];
  const stopChains = async () => {
    for (const f of stopFollow) f();
    stopFollow = [];
    await Promise.all(chains.map((c) => c.stop()));
  };
  let sim: ThreadedSimulator;
  try {
    // On its own thread, off the loop that serves and times the probes (src/sim/threaded.ts).
    sim = await startSimulatorThread({
      seed: opts.seed,
      latencyMs: 0,
      ...((opts.groundTruth ?? true)
        ? { chains: chains.map((c) => ({ chain: c.chain, url: c.node.url })) }
        : {}),
    });
  } catch (e) {
    await stopChains();
    throw e;
  }
  let rpc: RpcDemo | null = null;
  let rpcStart: Promise<RpcDemo | null> = Promise.resolve(null);
  // The operator's HARNESS_* (timeouts, retries, region) apply; the simulator gives URLs and keys.
  // Trade cells' truth is read from the chains' own nodes (demoTruthReader).
  const harnessConfig = loadHarnessConfig({
    ...(opts.env ?? {}),
    ...simulatorEnv(sim.baseUrls, sim.keys),
  });
  const truth = chains.length > 0 && (opts.groundTruth ?? true) ? { truth: demoTruthReader(chains) } : {};
  let harness: Harness | null = null;
  let stopping = false;
  opts.signal?.addEventListener('abort', () => (stopping = true), { once: true });
  try {
    const families = planFamilies([...specs, ...(chains.length > 0 ? rpcSpecs : [])], {
      days: stored?.days ?? days,
      region: harnessConfig.region ?? null,
      rpcBackfillMs,
    });
    const mainFamilies = families.filter((f) => f.name !== REGIONAL_FAMILY);
    // The plan: resumed and extended to now, or new on an empty store; a store filled before plans
    // existed is resumed as it is (nothing to plan from).
    let plan: BackfillPlan | null = null;
    let summary: PlanSummary | null = null;
    let tried: (s: SlotRef) => boolean = () => false;
    if (stored) {
      const reach = Math.max(...families.map((f) => f.windowMs));
      tried = await readTriedRetrying(
        opts.store,
        Math.min(stored.slots[0]?.at ?? opts.now, stored.start - reach, opts.now - reach),
        opts.now,
        log,
        () => stopping,
      );
      const resumedSlots = stored.slots.filter(tried).length;
      const ext = extendPlan(stored, families, opts.now, tried);
      plan = ext.plan;
      summary = {
        resumed: true,
        resumedSlots,
        added: ext.added,
        givenUp: ext.givenUp,
        planned: plan.slots.length,
        toRun: 0,
      };
    } else if (await storeLooksEmpty(opts.store, log)) {
      plan = newPlan(families, { seed: opts.seed, days, now: planStart });
      summary = {
        resumed: false,
        resumedSlots: 0,
        added: 0,
        givenUp: 0,
        planned: plan.slots.length,
        toRun: 0,
      };
    } else {
      log('info', 'harness demo: store not empty and no backfill plan, resuming without backfill');
    }
    const current = () => plan as BackfillPlan;
    const runs = plan ? pendingRuns(plan, families, tried) : [];
    if (plan && summary) {
      summary = { ...summary, toRun: runs.length };
      // Written before the first cycle, so a crash at any point resumes this plan.
      if (opts.dataDir !== undefined) await savePlan(opts.dataDir, plan);
    }
    opts.onPlan?.(plan ? planView(current) : null, summary);
    const resumedSlots = summary?.resumedSlots ?? 0;

    const mainRuns = runs.filter((r) => r.family !== REGIONAL_FAMILY);
    const rpcRuns = runs.filter((r) => r.family === REGIONAL_FAMILY);
    const rpcSlots = (list: readonly PlanRun[]) =>
      list.map((r) => ({ at: r.at, regions: r.regions.filter((x): x is string => x !== null) }));
    // The json-rpc demo backfills its own slots on the chains' processes (anvil): it runs beside
    // this backfill, using the other core, rather than after it.
    rpcStart = startRpcDemo({
      store: opts.store,
      chains,
      specs: chains.length > 0 ? rpcSpecs : [],
      metrics: opts.metrics,
      seed: opts.seed,
      now: plan?.end ?? opts.now,
      ...(opts.env ? { env: opts.env } : {}),
      log,
      ...(opts.onRpcProgress ? { onProgress: opts.onRpcProgress } : {}),
      backfillMs: rpcBackfillMs,
      // Without a plan (a DATA_DIR from before plans) nothing is backfilled.
      slots: rpcSlots(rpcRuns),
      ...build,
    });
    // Awaited below; a failure of the main backfill first still stops it (catch).
    rpcStart.catch(() => undefined);
    const backfill = startHarness({
      store: opts.store,
      specs,
      metrics: opts.metrics,
      harnessConfig,
      log,
      autoStart: false,
      sleep: async () => {},
      simulated: true,
      ...truth,
      ...build,
    });
    const incidents = demoIncidents(opts.seed, specs);
    /** One planned cycle, with the scripted incidents of its hour (placed from the plan's start). */
    const runMain = async (r: PlanRun): Promise<void> => {
      const hoursAgo = (planStart - r.at) / HOUR;
      for (const i of incidents) {
        await sim.setFault(i.provider, hoursAgo <= i.from && hoursAgo >= i.to ? i.fault : null);
      }
      await backfill.runCycle(r.benchmark, r.at).catch((e: unknown) => {
        // A failed cycle whose failure is stored is tried: the plan goes on.
        if (!(e instanceof CycleFailedError && e.stored)) throw e;
        log(
          'warn',
          `harness demo: cycle ${r.benchmark} ${new Date(r.at).toISOString()} failed: ${e.message}`,
        );
      });
    };
    // Trade cycles whose window lies in the chains' history wait for the chains to be built to
    // their slot (after the json-rpc backfill, which builds them): their truth and the providers'
    // answers are read from the chain, and never from a half-built one.
    const deferred = (r: PlanRun) => chains.length > 0 && tradeSlugs.has(r.benchmark) && r.at >= truthFrom;
    // Without the json-rpc family (which builds the chains slot by slot) they are built beside the
    // backfill: the cycles before their history never read them, the ones on them wait.
    const building =
      rpcRuns.length === 0 && mainRuns.some(deferred)
        ? Promise.all(chains.map((c) => c.buildTo(current().end)))
        : null;
    building?.catch(() => undefined);
    const total = mainRuns.length;
    let backfilled = 0;
    for (const r of mainRuns.filter((x) => !deferred(x))) {
      if (stopping) break;
      await runMain(r);
      backfilled++;
      opts.onProgress?.({ done: backfilled, total, benchmark: r.benchmark, at: r.at });
    }
    rpc = await rpcStart;
    const onChain = mainRuns.filter(deferred);
    if (onChain.length > 0 && !stopping) {
      // Built already by the json-rpc backfill; without it, built here.
      await building;
      await Promise.all(chains.map((c) => c.buildTo(current().end)));
      for (const r of onChain) {
        if (stopping) break;
        await runMain(r);
        backfilled++;
        opts.onProgress?.({ done: backfilled, total, benchmark: r.benchmark, at: r.at });
      }
    }
    for (const i of incidents) await sim.setFault(i.provider, null);
    if (plan) log('info', `harness demo: backfilled ${backfilled} cycles`);
    // Catch up with the demo clock (src/demo/demo-clock.ts), which ran on during the backfill.
    let caughtUp = 0;
    const clock = opts.clock;
    if (clock && plan) {
      const save = () => (opts.dataDir !== undefined ? savePlan(opts.dataDir, current()) : Promise.resolve());
      /**
       * Extends the plan to the clock's now for `fams` and returns the cycles it gained; `accept`
       * may refuse them (the plan is then left as it was: a planned slot is always run).
       */
      const extendToNow = async (
        fams: readonly PlanFamily[],
        atCadence: boolean,
        accept: (due: readonly PlanRun[]) => boolean = () => true,
      ): Promise<PlanRun[]> => {
        const now = clock.now();
        // Only slots after the newest planned ones are new: nothing is given up (every planned
        // slot ran), so the markers from there on tell what the extension still needs.
        const since = Math.min(...fams.map((f) => newestPlanned(current(), f) ?? now));
        const triedNow = await readTriedSince(opts.store, since, now, current().slots);
        const next = extendPlan(current(), fams, now, triedNow, { atCadence, giveUp: false }).plan;
        // The planned slots before `since` ran already (the backfill, or an earlier round).
        const due = pendingRuns(next, fams, (s) => s.at < since || triedNow(s));
        if (due.length > 0 && !accept(due)) return [];
        plan = next;
        if (due.length > 0) await save();
        return due;
      };
      const rpcFamilies = families.filter((f) => f.name === REGIONAL_FAMILY);
      if (rpc && rpcFamilies.length > 0) {
        // The json-rpc family in its 5-minute steps, each on chains built up to it, for at most
        // CATCH_UP_BUDGET_MS (at DEMO_SPEED ≥ ~1000 building the chains is slower than their clock),
        // then its last minutes at its cadence when they are few (at DEMO_SPEED=1, the minute or two
        // the backfill took). What it leaves is the live rule's: listed as missing with its day.
        const budget = Date.now() + CATCH_UP_BUDGET_MS;
        while (!stopping && Date.now() < budget) {
          // Bounded per round too: one round over a 600× backfill's 25 h never ended in time.
          const due = await extendToNow(rpcFamilies, false, (d) => d.length <= RPC_CADENCE_CATCH_UP_MAX);
          if (due.length === 0) break;
          await rpc.run(rpcSlots(due));
        }
        const last = await extendToNow(rpcFamilies, true, (due) => due.length <= RPC_CADENCE_CATCH_UP_MAX);
        await rpc.run(rpcSlots(last));
      }
      // From here the chains follow the clock (a block per 12 s, one block now when behind), the
      // json-rpc family measures live (its scheduler resumes after the slot just caught up), and
      // the other families catch up at their cadence, reading the chains as the live harness will.
      stopFollow = chains.map((c) => c.follow(clock));
      if (!stopping) rpc?.goLive(clock);
      /** A slot due sooner than this is waited for rather than left to the live scheduler. */
      const margin = (f: PlanFamily) => Math.min(f.cadenceMs / 4, 2000 * (clock.rate ?? 1));
      const pace = catchUpPace(CATCH_UP_BUDGET_MS);
      while (!stopping && pace.open()) {
        const due = await extendToNow(mainFamilies, true, pace.fits);
        if (pace.refused) break;
        for (const r of due) {
          if (stopping) break;
          await pace.timed(() => runMain(r));
          caughtUp++;
        }
        if (due.length > 0) continue;
        const now = clock.now();
        const wait = Math.min(
          ...mainFamilies.map((f) => {
            const next = (newestPlanned(current(), f) ?? now) + f.cadenceMs;
            return next - now < margin(f) ? next - now : Number.POSITIVE_INFINITY;
          }),
        );
        if (!Number.isFinite(wait)) break;
        await sleepOn(clock, wait + 1);
      }
      await save();
      if (caughtUp > 0) log('info', `harness demo: caught up with ${caughtUp} cycles`);
    }
    await backfill.stop();
    if (!stopping) {
      const liveLatency = opts.liveLatencyMs ?? 0;
      // Each provider's latency is its seed-drawn share of the live latency (0.5×–2×).
      if (liveLatency > 0)
        for (const p of Object.keys(sim.baseUrls))
          await sim.setFault(p, {
            kind: 'latency',
            ms: Math.round(liveLatency * providerProfile(opts.seed, p).latencyFactor),
          });
      const startedAt = Date.now();
      const live =
        clock ?? scaledClock(() => opts.now + (Date.now() - startedAt) * (opts.speed ?? 1), opts.speed ?? 1);
      harness = startHarness({
        store: opts.store,
        specs,
        metrics: opts.metrics,
        harnessConfig,
        log,
        clock: live,
        simulated: true,
        ...truth,
        ...build,
      });
      // goLive is once: a no-op when the catch-up started it.
      rpc?.goLive(live);
      if (stopFollow.length === 0) stopFollow = chains.map((c) => c.follow(live));
    }
    return {
      backfilled,
      caughtUp,
      resumedSlots,
      get plan() {
        return plan;
      },
      simulatorUrl: sim.url,
      rpc,
      async stop() {
        stopping = true;
        await Promise.all([harness?.stop(), rpc?.stop()]);
        await sim.close();
        await stopChains();
      },
    };
  } catch (e) {
    await Promise.all([
      sim.close(),
      rpcStart.then(
        (r) => r?.stop(),
        () => undefined,
      ),
    ]);
    await stopChains();
    throw e;
  }
}
