import type { Registry } from 'prom-client';
import type { BuildInfo } from '../core/provenance.ts';
import type { BenchmarkSpec } from '../core/spec-schema.ts';
import type { Clock, HarnessLog } from '../harness/types.ts';
import type { SlotPlanView } from '../publication/day-slots.ts';
import type { Store } from '../store/sample-store.ts';
import type { BackfillPlan } from './backfill-plan.ts';
import type { RpcDemo } from './rpc-demo.ts';

// The demo harness's options and handle (src/demo/harness-demo.ts).

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
  /** Slots given up: the downtime's, untried and older than their family's window. */
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
  /** Stops the backfill and catch-up between cycles (a shutdown while it runs); no live harness starts. */
  readonly signal?: AbortSignal;
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
