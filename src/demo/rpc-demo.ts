import { join } from 'node:path';
import type { Registry } from 'prom-client';
import type { BuildInfo } from '../core/provenance.ts';
import { type BenchmarkSpec, durationMs } from '../core/spec-schema.ts';
import { loadHarnessConfig } from '../harness/config.ts';
import { providerUnion } from '../harness/families/union.ts';
import type { CycleReport } from '../harness/report.ts';
import { referenceVar, rpcUrlVar } from '../harness/rpc-config.ts';
import {
  CycleFailedError,
  type Harness,
  type HarnessOptions,
  lastCycle,
  startHarness,
} from '../harness/service.ts';
import type { Clock, HarnessLog } from '../harness/types.ts';
import { type DemoChain, startDemoChains } from '../sim/chains/index.ts';
import { DEMO_REGIONS } from '../sim/rpc/index.ts';
import { startRpcSimulatorThread, type ThreadedRpcSimulator } from '../sim/threaded.ts';
import type { Store } from '../store/sample-store.ts';

const HOUR = 3_600_000;

/** The demo backfills 6 h of slots; the chains start an hour before, so every slot has 100 blocks of logs behind it. */
export const RPC_BACKFILL_MS = 6 * HOUR;
export const CHAIN_LEAD_MS = HOUR;
/** Backfilled slots are 5 minutes apart (a 6 h per-minute backfill is out of reach at start-up). */
export const RPC_BACKFILL_STEP_MS = 5 * 60_000;

/** The family the demo runs once per region, through each region's simulated path. */
export const REGIONAL_FAMILY = 'json-rpc';

export interface DemoChainsOptions {
  readonly seed: number;
  readonly now: number;
  /** DATA_DIR: chain state lives in DATA_DIR/chains (a cache: rebuilt when lost or stale). */
  readonly dataDir?: string;
  readonly log: HarnessLog;
  /** How far back the json-rpc backfill reaches (default RPC_BACKFILL_MS); the chains reach further by chainLeadMs. */
  readonly backfillMs?: number;
  readonly chainLeadMs?: number;
}

/** Where the demo chains' history starts: one lead before the first backfilled json-rpc slot. */
export function demoChainOrigin(o: Pick<DemoChainsOptions, 'now' | 'backfillMs' | 'chainLeadMs'>): number {
  return o.now - (o.backfillMs ?? RPC_BACKFILL_MS) - (o.chainLeadMs ?? CHAIN_LEAD_MS);
}

/**
 * Starts the demo's chains (every DEMO_CHAINS entry): the json-rpc family measures their nodes,
 * and their DEX's Swap logs are the trade cells' ground truth and the simulated trade providers'
 * source. Nothing is mined yet: the json-rpc backfill builds them slot by slot.
 */
export function openDemoChains(o: DemoChainsOptions): Promise<DemoChain[]> {
  return startDemoChains({
    seed: o.seed,
    origin: demoChainOrigin(o),
    ...(o.dataDir !== undefined ? { stateDir: join(o.dataDir, 'chains') } : {}),
    log: o.log,
  });
}

export interface RpcDemoOptions {
  /** The build its harnesses write as harness_build_info (this process's when omitted). */
  readonly build?: BuildInfo;
  readonly store: Store;
  /** The demo chains (openDemoChains): the caller owns them and stops them after the demo. */
  readonly chains: readonly DemoChain[];
  /** The json-rpc family's specs (empty: nothing starts). */
  readonly specs: readonly BenchmarkSpec[];
  readonly metrics: Registry;
  readonly seed: number;
  readonly now: number;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly log: HarnessLog;
  readonly onProgress?: (done: number, total: number) => void;
  /**
   * How far back the backfill reaches (default RPC_BACKFILL_MS, the demo's 6 h; 0: none, as for
   * `serve --simulate`, which only measures from now on). The chains reach one hour further.
   */
  readonly backfillMs?: number;
  /**
   * The slots to backfill and the regions each is due in (the demo's backfill plan,
   * src/demo/backfill-plan.ts). Without it: every 5-minute slot of the last `backfillMs` a region
   * has not stored yet.
   */
  readonly slots?: readonly RpcSlot[];
  /** Each backfilled cycle's report (tests). */
  readonly onCycle?: (report: CycleReport) => void;
}

/** One slot of the json-rpc backfill and the regions it runs in. */
export interface RpcSlot {
  readonly at: number;
  readonly regions: readonly string[];
}

export interface RpcDemo {
  readonly backfilled: number;
  readonly simulator: ThreadedRpcSimulator;
  /** Runs more slots in time order before goLive (the demo's catch-up with its clock); how many ran. */
  run(slots: readonly RpcSlot[]): Promise<number>;
  /** Starts live measuring on the demo clock (the chains' owner makes them follow it). */
  goLive(clock: Clock): void;
  stop(): Promise<void>;
}

/**
 * The environment of one region's harness: each provider's URL is the simulator's path for that
 * region (the `<PROVIDER>_RPC_URL_<CHAIN>` override, the same mechanism an operator uses), the
 * reference node is the chain's own anvil.
 */
function regionEnv(
  base: Readonly<Record<string, string | undefined>>,
  seed: number,
  region: string,
  specs: readonly BenchmarkSpec[],
  chains: readonly DemoChain[],
  sim: ThreadedRpcSimulator,
): Record<string, string | undefined> {
  // The demo's questions follow its seed, so two demos with the same DEMO_SEED ask the same ones.
  const env: Record<string, string | undefined> = {
    HARNESS_PROBE_SEED: String(seed),
    ...base,
    HARNESS_REGION: region,
  };
  for (const c of chains) env[referenceVar(c.chain)] = c.node.url;
  for (const p of providerUnion(specs)) {
    for (const chain of new Set(p.entries.flatMap((e) => e.chains ?? []))) {
      env[rpcUrlVar(p.slug, chain)] = sim.urlFor(region, p.slug, chain);
    }
  }
  return env;
}

/**
 * The demo's json-rpc family: one anvil per chain with a 7-hour history, the simulated providers in
 * front of them, and one harness per region. The backfill runs in time order, building each chain
 * up to a slot before measuring it, so at slot T a node's `latest` is its last block at or before
 * T; it resumes after the newest slot each region stored.
 */
export async function startRpcDemo(opts: RpcDemoOptions): Promise<RpcDemo | null> {
  if (opts.specs.length === 0) return null;
  const { log } = opts;
  const backfillMs = opts.backfillMs ?? RPC_BACKFILL_MS;
  const measured = new Set(
    providerUnion(opts.specs).flatMap((p) => p.entries.flatMap((e) => e.chains ?? [])),
  );
  const chains = opts.chains.filter((c) => measured.has(c.chain));
  let sim: ThreadedRpcSimulator | undefined;
  const harnesses: Harness[] = [];
  const backfill: Harness[] = [];
  let stopping = false;
  const stopAll = async () => {
    stopping = true;
    await Promise.all([...harnesses, ...backfill].map((h) => h.stop()));
    await sim?.close();
  };
  try {
    // On a thread of its own, as the providers are remote; it sees each chain's head as mined.
    sim = await startRpcSimulatorThread(
      {
        seed: opts.seed,
        upstream: Object.fromEntries(chains.map((c) => [c.chain, c.node.url])),
        virtualLatency: true,
      },
      chains,
    );
    const s = sim;
    const cadence = durationMs(opts.specs[0]?.cadence ?? '1m');
    const configs = DEMO_REGIONS.map((region) => ({
      region,
      config: loadHarnessConfig(regionEnv(opts.env ?? {}, opts.seed, region, opts.specs, chains, s)),
    }));
    /** One region's harness of the family, on the demo's store and metrics. */
    const regionHarness = (config: (typeof configs)[number]['config'], extra: Partial<HarnessOptions>) =>
      startHarness({
        store: opts.store,
        specs: opts.specs,
        metrics: opts.metrics,
        harnessConfig: config,
        log,
        simulated: true,
        ...(opts.build ? { build: opts.build } : {}),
        ...extra,
      });
    backfill.push(
      ...configs.map(({ config }) =>
        regionHarness(config, {
          autoStart: false,
          virtualLatency: true,
          ...(opts.onCycle ? { onCycle: opts.onCycle } : {}),
        }),
      ),
    );
    const slug = opts.specs[0]?.slug ?? '';
    const end = Math.floor(opts.now / cadence) * cadence;
    let slots = opts.slots;
    if (!slots) {
      const lasts = await Promise.all(
        DEMO_REGIONS.map((region) =>
          // A marker older than the backfill is older than every slot: the same as none.
          lastCycle(opts.store, slug, { now: opts.now, region, lookbackMs: backfillMs + cadence }),
        ),
      );
      const from = end - backfillMs;
      const times: number[] = [];
      for (let t = end; t > from; t -= RPC_BACKFILL_STEP_MS) times.push(t);
      // A region that stored this slot before (a restart) keeps it: history is never rewritten.
      slots = times.reverse().map((at) => ({
        at,
        regions: DEMO_REGIONS.filter((_, r) => {
          const last = lasts[r];
          return last === null || last === undefined || last < at;
        }),
      }));
    }

    /** One slot in its due regions, on chains built up to it (never past a slot not measured yet). */
    const runSlot = async ({ at, regions }: RpcSlot): Promise<boolean> => {
      const due = regions.flatMap((r) => {
        const h = backfill[DEMO_REGIONS.indexOf(r)];
        return h ? [h] : [];
      });
      if (due.length === 0) return false;
      await Promise.all(chains.map((c) => c.buildTo(at)));
      await Promise.all(
        due.map((h) =>
          h.runCycle(slug, at).catch((e: unknown) => {
            // A failed cycle whose failure is stored is tried: the plan goes on.
            if (!(e instanceof CycleFailedError && e.stored)) throw e;
            log('warn', `rpc demo: cycle ${new Date(at).toISOString()} failed: ${e.message}`);
          }),
        ),
      );
      return true;
    };

    let backfilled = 0;
    for (const [i, slot] of slots.entries()) {
      if (stopping) break;
      if (await runSlot(slot)) backfilled++;
      opts.onProgress?.(i + 1, slots.length);
    }
    log('info', `rpc demo: backfilled ${backfilled} slots in ${DEMO_REGIONS.length} regions`);
    const newest = slots.reduce((m, x) => Math.max(m, x.at), opts.now);
    await Promise.all(chains.map((c) => c.buildTo(newest)));
    let live = false;
    const stopBackfill = () => Promise.all(backfill.map((h) => h.stop()));
    return {
      backfilled,
      simulator: s,
      async run(more) {
        let n = 0;
        for (const slot of more) {
          if (stopping || live) break;
          if (await runSlot(slot)) n++;
        }
        return n;
      },
      goLive(clock) {
        if (stopping || live) return;
        live = true;
        void stopBackfill();
        // The live harnesses start once the simulator answers in real time (its delays slept).
        void s.setVirtualLatency(false).then(() => {
          if (stopping) return;
          for (const { config } of configs) harnesses.push(regionHarness(config, { clock }));
        });
      },
      async stop() {
        await stopBackfill();
        await stopAll();
      },
    };
  } catch (e) {
    await stopAll().catch(() => undefined);
    throw e;
  }
}
