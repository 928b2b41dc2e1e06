import type { Registry } from 'prom-client';
import { type BenchmarkSpec, durationMs } from '../core/spec-schema.ts';
import { loadHarnessConfig, simulatorEnv } from '../harness/config.ts';
import { providerUnion } from '../harness/families/union.ts';
import { type Harness, startHarness } from '../harness/service.ts';
import { type Clock, type HarnessLog, silentLog } from '../harness/types.ts';
import type { FaultSetting } from '../sim/faults.ts';
import { pickProviders, providerProfile } from '../sim/profiles.ts';
import { type Simulator, startSimulator } from '../sim/server.ts';
import type { Store } from '../store/sample-store.ts';
import { REGIONAL_FAMILY, type RpcDemo, startRpcDemo } from './rpc-demo.ts';

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
  /** Progress of the json-rpc backfill (slots done of total, all regions at once). */
  readonly onRpcProgress?: (done: number, total: number) => void;
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

/** Every aligned slot in (now − days, now] for each runnable benchmark, in time order. */
export function backfillSlots(
  specs: readonly BenchmarkSpec[],
  benchmarks: readonly string[],
  now: number,
  days: number,
): Array<{ benchmark: string; at: number }> {
  const out: Array<{ benchmark: string; at: number }> = [];
  const from = now - days * 24 * HOUR;
  for (const spec of specs) {
    if (!benchmarks.includes(spec.slug)) continue;
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
  // The json-rpc family runs once per region against its own simulated nodes (rpc-demo.ts); the
  // others run once, without a region, against the HTTP simulator.
  const rpcSpecs = opts.specs.filter((s) => s.family === REGIONAL_FAMILY);
  const specs = opts.specs.filter((s) => s.family !== REGIONAL_FAMILY);
  const sim: Simulator = await startSimulator({ seed: opts.seed, latencyMs: 0 });
  let rpc: RpcDemo | null = null;
  let rpcStart: Promise<RpcDemo | null> = Promise.resolve(null);
  // The operator's HARNESS_* (timeouts, retries, region) apply; the simulator gives URLs and keys.
  const harnessConfig = loadHarnessConfig({ ...(opts.env ?? {}), ...simulatorEnv(sim.baseUrls, sim.keys) });
  let harness: Harness | null = null;
  let stopping = false;
  try {
    const empty = (await opts.store.timeBounds()) === null;
    // The json-rpc demo builds its chains in their own processes (anvil) and backfills its own
    // slots: it runs beside this backfill, using the other core, rather than after it.
    rpcStart = startRpcDemo({
      store: opts.store,
      specs: rpcSpecs,
      metrics: opts.metrics,
      seed: opts.seed,
      now: opts.now,
      ...(opts.env ? { env: opts.env } : {}),
      ...(opts.dataDir !== undefined ? { dataDir: opts.dataDir } : {}),
      log,
      ...(opts.onRpcProgress ? { onProgress: opts.onRpcProgress } : {}),
      ...(opts.rpcBackfillMs !== undefined ? { backfillMs: opts.rpcBackfillMs } : {}),
      ...(opts.followWallClock ? { catchUp: () => opts.now + (Date.now() - startedAt) } : {}),
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
    });
    let backfilled = 0;
    if (empty) {
      const incidents = demoIncidents(opts.seed, specs);
      const slots = backfillSlots(specs, backfill.benchmarks, opts.now, opts.days ?? 3);
      for (const s of slots) {
        if (stopping) break;
        const hoursAgo = (opts.now - s.at) / HOUR;
        for (const i of incidents) {
          sim.setFault(i.provider, hoursAgo <= i.from && hoursAgo >= i.to ? i.fault : null);
        }
        await backfill.runCycle(s.benchmark, s.at);
        backfilled++;
        opts.onProgress?.({ done: backfilled, total: slots.length, benchmark: s.benchmark, at: s.at });
      }
      for (const i of incidents) sim.setFault(i.provider, null);
      log('info', `harness demo: backfilled ${backfilled} cycles`);
    } else {
      log('info', 'harness demo: store not empty, resuming without backfill');
    }
    await backfill.stop();
    rpc = await rpcStart;
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
      });
      rpc?.goLive(clock);
    }
    return {
      backfilled,
      simulatorUrl: sim.url,
      rpc,
      async stop() {
        stopping = true;
        await Promise.all([harness?.stop(), rpc?.stop()]);
        await sim.close();
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
    throw e;
  }
}
