import type { Registry } from 'prom-client';
import type { BuildInfo } from '../core/provenance.ts';
import { type BenchmarkSpec, durationMs } from '../core/spec-schema.ts';
import { loadHarnessConfig, simulatorEnv } from '../harness/config.ts';
import { providerUnion } from '../harness/families/union.ts';
import { type Harness, startHarness } from '../harness/service.ts';
import { TRADE_WINDOW_MS } from '../harness/tokens.ts';
import { type Clock, type HarnessLog, silentLog } from '../harness/types.ts';
import { BLOCK_TIME_MS, type DemoChain } from '../sim/chains/index.ts';
import type { FaultSetting } from '../sim/faults.ts';
import { pickProviders, providerProfile } from '../sim/profiles.ts';
import { type Simulator, startSimulator } from '../sim/server.ts';
import type { Store } from '../store/sample-store.ts';
import { demoTruthReader } from './demo-dexes.ts';
import { demoChainOrigin, openDemoChains, REGIONAL_FAMILY, type RpcDemo, startRpcDemo } from './rpc-demo.ts';

/** The family whose cells have an on-chain ground truth on the demo chains. */
const TRUTH_FAMILY = 'trade-capture';

export interface HarnessDemoProgress {
  readonly done: number;
  readonly total: number;
  readonly benchmark: string;
  readonly at: number;
}

export interface HarnessDemoOptions {
  readonly store: Store;
  readonly specs: readonly BenchmarkSpec[];
  readonly metrics: Registry;
  readonly seed: number;
  /** Days of history to backfill on an empty store (default 3). */
  readonly days?: number;
  /** The demo's "now" (epoch ms): the backfill ends at the last aligned slot at or before it. */
  readonly now: number;
  /** Live clock multiplier after the backfill (1 = real time). */
  readonly speed?: number;
  readonly onProgress?: (p: HarnessDemoProgress) => void;
  readonly log?: HarnessLog;
  /** The operator's environment (HARNESS_* settings); tests and benches leave it out. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Simulated provider latency once live (the backfill always runs at 0). */
  readonly liveLatencyMs?: number;
  /** DATA_DIR, where the demo chains keep their state (omitted: in memory). */
  readonly dataDir?: string;
  /**
   * `now` is the wall clock at start (`npm run demo`): the live clock resumes from the time the
   * backfill ended, not from `now`, and the json-rpc family measures the slot it reached before
   * it is ready, so a 1-minute benchmark is not stale the moment the demo opens.
   */
  readonly followWallClock?: boolean;
  /** How far back the json-rpc backfill reaches (default: the demo's 6 h). */
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
}

export interface HarnessDemo {
  /** Cycles run by the backfill (0 when the store already held data). */
  readonly backfilled: number;
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

/** A clock running `speed` times faster than real time from `start`. */
function scaledClock(start: number, speed: number): Clock {
  const real0 = Date.now();
  return {
    now: () => start + (Date.now() - real0) * speed,
    rate: speed,
    setTimeout: (fn, ms) => setTimeout(fn, Math.max(0, ms / speed)),
    clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
  };
}

/**
 * Every aligned slot in (now − days, now] for each runnable benchmark, in time order: one per
 * family (the first of its benchmarks), since one probe serves every benchmark of a family.
 */
export function backfillSlots(
  specs: readonly BenchmarkSpec[],
  benchmarks: readonly string[],
  now: number,
  days: number,
): Array<{ benchmark: string; at: number }> {
  const out: Array<{ benchmark: string; at: number }> = [];
  const from = now - days * 24 * HOUR;
  const families = new Set<string>();
  for (const spec of specs) {
    if (!benchmarks.includes(spec.slug) || families.has(spec.family)) continue;
    families.add(spec.family);
    const c = durationMs(spec.cadence);
    for (let t = Math.floor(now / c) * c; t > from; t -= c) out.push({ benchmark: spec.slug, at: t });
  }
  return out.sort((a, b) => a.at - b.at || a.benchmark.localeCompare(b.benchmark));
}

/**
 * Starts the simulator and a real harness pointed at it. On an empty store it first backfills
 * `days` days by running real cycles at past slots (latency 0); on a non-empty store it only resumes.
 * Then it keeps measuring at the spec cadence on a clock running `speed` times real time.
 */
export async function startHarnessDemo(opts: HarnessDemoOptions): Promise<HarnessDemo> {
  const log = opts.log ?? silentLog;
  const startedAt = Date.now();
  const build = opts.build ? { build: opts.build } : {};
  // The json-rpc family runs once per region against its own simulated nodes (rpc-demo.ts); the
  // others run once, without a region, against the HTTP simulator.
  const rpcSpecs = opts.specs.filter((s) => s.family === REGIONAL_FAMILY);
  const specs = opts.specs.filter((s) => s.family !== REGIONAL_FAMILY);
  const tradeSlugs = new Set(specs.filter((s) => s.family === TRUTH_FAMILY).map((s) => s.slug));
  // The demo chains serve the json-rpc family and the trade cells' ground truth: their DEX's swaps
  // are what the simulated trade providers report and what recall is scored against.
  const wantChains = rpcSpecs.length > 0 || ((opts.groundTruth ?? true) && tradeSlugs.size > 0);
  const chainOpts = {
    seed: opts.seed,
    now: opts.now,
    log,
    ...(opts.dataDir !== undefined ? { dataDir: opts.dataDir } : {}),
    ...(opts.rpcBackfillMs !== undefined ? { backfillMs: opts.rpcBackfillMs } : {}),
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
    const empty = (await opts.store.timeBounds()) === null;
    // The json-rpc demo backfills its own slots on the chains' processes (anvil): it runs beside
    // this backfill, using the other core, rather than after it.
    rpcStart = startRpcDemo({
      store: opts.store,
      chains,
      specs: rpcSpecs,
      metrics: opts.metrics,
      seed: opts.seed,
      now: opts.now,
      ...(opts.env ? { env: opts.env } : {}),
      log,
      ...(opts.onRpcProgress ? { onProgress: opts.onRpcProgress } : {}),
      ...(opts.rpcBackfillMs !== undefined ? { backfillMs: opts.rpcBackfillMs } : {}),
      ...(opts.followWallClock ? { catchUp: () => opts.now + (Date.now() - startedAt) } : {}),
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
    let backfilled = 0;
    // Trade cycles whose window lies in the chains' history wait for the chains to be built to
    // their slot (after the json-rpc backfill, which builds them): their truth and the providers'
    // answers are read from the chain, and never from a half-built one.
    let onChain: Array<{ benchmark: string; at: number }> = [];
    let total = 0;
    if (empty) {
      const incidents = demoIncidents(opts.seed, specs);
      const all = backfillSlots(specs, backfill.benchmarks, opts.now, opts.days ?? 3);
      const deferred = (s: { benchmark: string; at: number }) =>
        chains.length > 0 && tradeSlugs.has(s.benchmark) && s.at >= truthFrom;
      onChain = all.filter(deferred);
      const slots = all.filter((s) => !deferred(s));
      total = all.length;
      for (const s of slots) {
        if (stopping) break;
        const hoursAgo = (opts.now - s.at) / HOUR;
        for (const i of incidents) {
          sim.setFault(i.provider, hoursAgo <= i.from && hoursAgo >= i.to ? i.fault : null);
        }
        await backfill.runCycle(s.benchmark, s.at);
        backfilled++;
        opts.onProgress?.({ done: backfilled, total, benchmark: s.benchmark, at: s.at });
      }
      for (const i of incidents) sim.setFault(i.provider, null);
    } else {
      log('info', 'harness demo: store not empty, resuming without backfill');
    }
    rpc = await rpcStart;
    if (onChain.length > 0 && !stopping) {
      // Built already by the json-rpc backfill; without it, built here.
      await Promise.all(chains.map((c) => c.buildTo(opts.now)));
      for (const s of onChain) {
        if (stopping) break;
        await backfill.runCycle(s.benchmark, s.at);
        backfilled++;
        opts.onProgress?.({ done: backfilled, total, benchmark: s.benchmark, at: s.at });
      }
    }
    if (empty) log('info', `harness demo: backfilled ${backfilled} cycles`);
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
      const clock = scaledClock(
        opts.followWallClock ? opts.now + (Date.now() - startedAt) : opts.now,
        opts.speed ?? 1,
      );
      harness = startHarness({
        store: opts.store,
        specs,
        metrics: opts.metrics,
        harnessConfig,
        log,
        clock,
        simulated: true,
        ...truth,
        ...build,
      });
      rpc?.goLive(clock);
      stopFollow = chains.map((c) => c.follow(clock));
    }
    return {
      backfilled,
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
