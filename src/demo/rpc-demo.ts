import { join } from 'node:path';
import type { Registry } from 'prom-client';
import type { BuildInfo } from '../core/provenance.ts';
import { type BenchmarkSpec, durationMs } from '../core/spec-schema.ts';
import { loadHarnessConfig } from '../harness/config.ts';
import { providerUnion } from '../harness/families/union.ts';
import type { CycleReport } from '../harness/report.ts';
import { referenceVar, rpcUrlVar } from '../harness/rpc-config.ts';
import { type Harness, type HarnessOptions, lastCycle, startHarness } from '../harness/service.ts';
import type { Clock, HarnessLog } from '../harness/types.ts';
import { type DemoChain, startDemoChains } from '../sim/chains/index.ts';
import { DEMO_REGIONS, type RpcSimulator, startRpcSimulator } from '../sim/rpc/index.ts';
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
   * The demo's time once the backfill is done: the slot it has reached is measured too (the demo,
   * whose `now` is the wall clock at start, so the family is fresh when it opens).
   */
  readonly catchUp?: () => number;
  /** Each backfilled cycle's report (tests). */
  readonly onCycle?: (report: CycleReport) => void;
}

export interface RpcDemo {
  readonly backfilled: number;
  readonly simulator: RpcSimulator;
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
  region: string,
  specs: readonly BenchmarkSpec[],
  chains: readonly DemoChain[],
  sim: RpcSimulator,
): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...base, HARNESS_REGION: region };
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
  let sim: RpcSimulator | undefined;
  const harnesses: Harness[] = [];
  let stopping = false;
  const stopAll = async () => {
    stopping = true;
    await Promise.all(harnesses.map((h) => h.stop()));
    await sim?.close();
  };
  try {
    sim = await startRpcSimulator({
      seed: opts.seed,
      upstream: Object.fromEntries(chains.map((c) => [c.chain, c.node.url])),
      virtualLatency: true,
      headOf: (chain) => chains.find((c) => c.chain === chain)?.head().number,
    });
    const s = sim;
    const cadence = durationMs(opts.specs[0]?.cadence ?? '1m');
    const configs = DEMO_REGIONS.map((region) => ({
      region,
      config: loadHarnessConfig(regionEnv(opts.env ?? {}, region, opts.specs, chains, s)),
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
    const backfill = configs.map(({ config }) =>
      regionHarness(config, {
        autoStart: false,
        virtualLatency: true,
        ...(opts.onCycle ? { onCycle: opts.onCycle } : {}),
      }),
    );
    const slug = opts.specs[0]?.slug ?? '';
    const lasts = await Promise.all(DEMO_REGIONS.map((r) => lastCycle(opts.store, slug, r)));
    const end = Math.floor(opts.now / cadence) * cadence;
    const from = end - backfillMs;
    const slots: number[] = [];
    for (let t = end; t > from; t -= RPC_BACKFILL_STEP_MS) slots.push(t);
    slots.reverse();

    let backfilled = 0;
    for (const [i, at] of slots.entries()) {
      if (stopping) break;
      // A region that stored this slot before (a restart) keeps it: history is never rewritten.
      const due = backfill.filter((_, r) => {
        const last = lasts[r];
        return last === null || last === undefined || last < at;
      });
      if (due.length > 0) {
        await Promise.all(chains.map((c) => c.buildTo(at)));
        await Promise.all(due.map((h) => h.runCycle(slug, at)));
        backfilled++;
      }
      opts.onProgress?.(i + 1, slots.length);
    }
    // The slot the demo's clock reached meanwhile: measured now, so the family opens fresh.
    const reached = opts.catchUp ? Math.floor(opts.catchUp() / cadence) * cadence : end;
    if (!stopping && backfillMs > 0 && reached > end) {
      await Promise.all(chains.map((c) => c.buildTo(reached)));
      await Promise.all(backfill.map((h) => h.runCycle(slug, reached)));
      backfilled++;
    }
    await Promise.all(backfill.map((h) => h.stop()));
    log('info', `rpc demo: backfilled ${backfilled} slots in ${DEMO_REGIONS.length} regions`);
    await Promise.all(chains.map((c) => c.buildTo(Math.max(opts.now, reached))));
    return {
      backfilled,
      simulator: s,
      goLive(clock) {
        if (stopping) return;
        s.setVirtualLatency(false);
        for (const { config } of configs) {
          harnesses.push(regionHarness(config, { clock }));
        }
      },
      stop: stopAll,
    };
  } catch (e) {
    await stopAll().catch(() => undefined);
    throw e;
  }
}
