import type { Registry } from 'prom-client';
import type { SlotRef } from '../core/missing-slots.ts';
import type { BuildInfo } from '../core/provenance.ts';
import { type BenchmarkSpec, durationMs } from '../core/spec-schema.ts';
import { loadHarnessConfig, simulatorEnv } from '../harness/config.ts';
import { familyNamed } from '../harness/families/index.ts';
import { providerUnion } from '../harness/families/union.ts';
import { CycleFailedError, type Harness, startHarness } from '../harness/service.ts';
import { TRADE_WINDOW_MS } from '../harness/tokens.ts';
import { type Clock, type HarnessLog, silentLog } from '../harness/types.ts';
import type { SlotPlanView } from '../publication/day-slots.ts';
import { BLOCK_TIME_MS, type DemoChain } from '../sim/chains/index.ts';
import type { FaultSetting } from '../sim/faults.ts';
import { pickProviders, providerProfile } from '../sim/profiles.ts';
import { DEMO_REGIONS } from '../sim/rpc/index.ts';
import { type Simulator, startSimulator } from '../sim/server.ts';
import type { Store } from '../store/sample-store.ts';
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
  readTried,
  savePlan,
} from './backfill-plan.ts';
import { scaledClock } from './demo-clock.ts';
import { demoTruthReader } from './demo-dexes.ts';
import {
  demoChainOrigin,
  openDemoChains,
  REGIONAL_FAMILY,
  RPC_BACKFILL_MS,
  RPC_BACKFILL_STEP_MS,
  type RpcDemo,
  startRpcDemo,
} from './rpc-demo.ts';

/** The family whose cells have an on-chain ground truth on the demo chains. */
const TRUTH_FAMILY = 'trade-capture';

export interface HarnessDemoProgress {
  readonly done: number;
  readonly total: number;
  readonly benchmark: string;
  readonly at: number;
}

/** What a start found and did with the backfill plan (src/demo/backfill-plan.ts), for the log. */
export interface PlanSummary {
  /** The plan was read from DATA_DIR (a restart), not made now. */
  readonly resumed: boolean;
  /** Planned slots a harness_cycle marker already covered at start: skipped. */
  readonly resumedSlots: number;
  /** Slots added by extending the plan to now (the downtime's). */
  readonly added: number;
  /** Slots given up: untried and older than their family's window. */
  readonly givenUp: number;
  /** Slots (benchmark, region) planned in all. */
  readonly planned: number;
  /** Cycles to run (a family's cycle serves all its benchmarks; json-rpc's one per region). */
  readonly toRun: number;
}

export interface HarnessDemoOptions {
  readonly store: Store;
  readonly specs: readonly BenchmarkSpec[];
  readonly metrics: Registry;
  readonly seed: number;
  /** Days of history a new backfill plan covers (default 3). */
  readonly days?: number;
  /** The demo's "now" (epoch ms): a resumed plan is extended to it. */
  readonly now: number;
  /** Where a new plan ends (the last aligned slot at or before it); `now` when omitted (DEMO_START). */
  readonly start?: number;
  /** Live clock multiplier after the backfill when no `clock` is given (1 = real time). */
  readonly speed?: number;
  readonly onProgress?: (p: HarnessDemoProgress) => void;
  readonly log?: HarnessLog;
  /** The operator's environment (HARNESS_* settings); tests and benches leave it out. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Simulated provider latency once live (the backfill always runs at 0). */
  readonly liveLatencyMs?: number;
  /** DATA_DIR: the backfill plan (backfill-plan.json) and the demo chains' state live there (omitted: in memory). */
  readonly dataDir?: string;
  /**
   * The demo clock (`npm run demo`, src/demo/demo-clock.ts), whose now is `now` at start: the
   * plan is extended to it once the backfill is done (the slots its time reached meanwhile run
   * too, and a slot due within a moment is waited for), then the live harness runs on it, so the
   * series has no gap at the hand-over. Omitted: no catch-up, and the live clock runs `speed` times
   * real time from `now`.
   */
  readonly clock?: Clock;
  /** How far back the json-rpc backfill reaches (default: the demo's 6 h, at most `days`). */
  readonly rpcBackfillMs?: number;
  /**
   * Read each EVM trade cell's ground truth from the demo chains, and let the simulated trade
   * providers answer from them (default true). Off, the trade family runs on the model alone and
   * starts no chain unless the json-rpc family needs them (tests of other rules).
   */
  readonly groundTruth?: boolean;
  /** Progress of the json-rpc backfill (slots done of total, all regions at once). */
  readonly onRpcProgress?: (done: number, total: number) => void;
  /** The build its harnesses write as harness_build_info (this process's when omitted; the golden corpus pins it). */
  readonly build?: BuildInfo;
  /**
   * The plan, before its first cycle runs: the publication's freezer waits for its slots
   * (publication.expectSlots); null when there is none (a non-empty DATA_DIR without a plan, from
   * before plans: resumed as it is, without a backfill).
   */
  readonly onPlan?: (plan: SlotPlanView | null, summary: PlanSummary | null) => void;
}

export interface HarnessDemo {
  /** Cycles run by the backfill of the plan (0 when every planned slot was already tried). */
  readonly backfilled: number;
  /** Cycles run after it to catch up with the demo clock. */
  readonly caughtUp: number;
  /** Planned slots a marker already covered at start (a restart resumes after them). */
  readonly resumedSlots: number;
  /** The plan as it stands (null: a DATA_DIR from before plans, resumed without one). */
  readonly plan: BackfillPlan | null;
  readonly simulatorUrl: string;
  /** The json-rpc family's demo (chains, simulated RPC providers), when a spec of it is loaded. */
  readonly rpc: RpcDemo | null;
  stop(): Promise<void>;
}

/**
 * Provider incidents replayed during the backfill, so the demo shows the failure handling: hours
 * before `now` and the fault set for cycles in that span. Which provider suffers each one is drawn
 * from the seed (src/sim/profiles.ts), like every other behaviour of the simulated providers.
 */
export function demoIncidents(
  seed: number,
  specs: readonly BenchmarkSpec[],
): Array<{ from: number; to: number; provider: string; fault: FaultSetting }> {
  // Each family's probe asks the union of its benchmarks' providers: the incidents pick from that.
  const of = (family: string) => providerUnion(specs.filter((s) => s.family === family)).map((p) => p.slug);
  const [outage, refused] = pickProviders(seed, of('trade-capture'), 2, 11);
  // A different provider from the two above: one fault per provider at a time.
  const [limited] = pickProviders(
    seed,
    of('chain-listing').filter((p) => p !== outage && p !== refused),
    1,
    12,
  );
  return [
    // 503 for two hours: four 30-minute cycles, so it is marked unresponsive, then recovers.
    ...(outage
      ? [{ from: 40, to: 38, provider: outage, fault: { kind: 'status', status: 503 } as const }]
      : []),
    // One listing refresh rate-limited: fetch_errors_total rises, the last count stands.
    ...(limited
      ? [
          {
            from: 30.5,
            to: 29.5,
            provider: limited,
            fault: { kind: 'status', status: 429, retryAfterSec: 0 } as const,
          },
        ]
      : []),
    // A key refused for one cycle: no capture samples, left out of the baseline.
    ...(refused
      ? [{ from: 20, to: 19.5, provider: refused, fault: { kind: 'status', status: 401 } as const }]
      : []),
  ];
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/**
 * Real time each catch-up after the backfill may take: at DEMO_SPEED=1 it is a slot or two; past
 * ~1000 the json-rpc family's (building the chains) is slower than their clock, and past a few
 * thousand so is a trade cycle, so it would never end. What it leaves is the live rule's (missing).
 */
const CATCH_UP_BUDGET_MS = 15_000;
/** The json-rpc family's last minutes are caught up at its cadence only when this few. */
const RPC_CADENCE_CATCH_UP_MAX = 15;

/** Groups the runnable specs by family, in spec order: one plan family each. */
function familiesOf(specs: readonly BenchmarkSpec[]): Map<string, BenchmarkSpec[]> {
  const out = new Map<string, BenchmarkSpec[]>();
  for (const spec of specs) {
    if (!familyNamed(spec.family)) continue;
    const list = out.get(spec.family) ?? [];
    list.push(spec);
    out.set(spec.family, list);
  }
  return out;
}

/**
 * The families the demo plans: each one run once per slot without a region (`region`: the
 * operator's HARNESS_REGION), every `days` back; the json-rpc family in each demo region, 5-minute
 * steps of its own window (6 h, at most `days`).
 */
export function planFamilies(
  specs: readonly BenchmarkSpec[],
  o: { readonly days: number; readonly region?: string | null; readonly rpcBackfillMs?: number },
): PlanFamily[] {
  const out: PlanFamily[] = [];
  for (const [name, list] of familiesOf(specs)) {
    const cadenceMs = durationMs(list[0]?.cadence ?? '1h');
    const benchmarks = list.map((s) => s.slug);
    if (name === REGIONAL_FAMILY) {
      out.push({
        name,
        benchmarks,
        regions: DEMO_REGIONS,
        cadenceMs,
        stepMs: RPC_BACKFILL_STEP_MS,
        windowMs: Math.min(o.rpcBackfillMs ?? RPC_BACKFILL_MS, o.days * DAY),
        windowFromSlot: true,
      });
    } else {
      out.push({
        name,
        benchmarks,
        regions: [o.region ?? null],
        cadenceMs,
        stepMs: cadenceMs,
        windowMs: o.days * DAY,
      });
    }
  }
  return out;
}

/**
 * Every aligned slot in (now − days, now] for each runnable benchmark, in time order: one per
 * family (the first of its benchmarks), since one probe serves every benchmark of a family. The
 * cycles a new plan runs (src/demo/backfill-plan.ts).
 */
export function backfillSlots(
  specs: readonly BenchmarkSpec[],
  benchmarks: readonly string[],
  now: number,
  days: number,
): Array<{ benchmark: string; at: number }> {
  const own = specs.filter((s) => benchmarks.includes(s.slug) && s.family !== REGIONAL_FAMILY);
  const families = planFamilies(own, { days });
  const plan = newPlan(families, { seed: 0, days, now });
  return pendingRuns(plan, families, () => false).map((r) => ({ benchmark: r.benchmark, at: r.at }));
}

/** Resolves after `ms` of the clock's time (0 or less: at once). */
function sleepOn(clock: Clock, ms: number): Promise<void> {
  return new Promise((r) => {
    if (ms <= 0) r();
    else clock.setTimeout(r, ms);
  });
}

/** The newest slot a plan has of each family (the catch-up's grid continues from it). */
function newestPlanned(plan: BackfillPlan, f: PlanFamily): number | null {
  let t: number | null = null;
  for (const s of plan.slots) if (f.benchmarks.includes(s.benchmark) && (t === null || s.at > t)) t = s.at;
  return t;
}

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
  let sim: Simulator;
  try {
    sim = await startSimulator({
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
      tried = await readTried(
        opts.store,
        Math.min(stored.slots[0]?.at ?? opts.now, stored.start - reach, opts.now - reach),
        opts.now,
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
    } else if ((await opts.store.timeBounds()) === null) {
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
        sim.setFault(i.provider, hoursAgo <= i.from && hoursAgo >= i.to ? i.fault : null);
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
    // Without the json-rpc family (whose backfill builds the chains slot by slot) the chains are
    // built beside the backfill (anvil is its own process): the cycles before their history never
    // read them, the ones on them wait.
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
    for (const i of incidents) sim.setFault(i.provider, null);
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
        const triedNow = await readTried(opts.store, since, now);
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
          const due = await extendToNow(rpcFamilies, false);
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
      // Bounded too: at a DEMO_SPEED where a cycle takes longer than a slot it would never end.
      const budget = Date.now() + CATCH_UP_BUDGET_MS;
      while (!stopping && Date.now() < budget) {
        const due = await extendToNow(mainFamilies, true);
        for (const r of due) {
          if (stopping) break;
          await runMain(r);
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
          sim.setFault(p, {
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
