import type { Registry } from 'prom-client';
import type { Config } from '../config.ts';
import type { BenchmarkSpec } from '../core/spec-schema.ts';
import type { Clock, HarnessLog } from '../harness/types.ts';
import type { Logger } from '../log.ts';
import type { SlotPlanView } from '../publication/day-slots.ts';
import type { StartupProgress } from '../startup-state.ts';
import type { Store } from '../store/sample-store.ts';
import { backfillProgress } from './backfill-progress.ts';
import type { HarnessDemo } from './harness-demo-options.ts';

/**
 * The demo's harness as `npm run demo` and `citebench harness --simulate` run it: the resumable
 * backfill plan in DATA_DIR (src/demo/backfill-plan.ts) with its progress lines, then live on the
 * demo clock; one INFO line (`ready`) when it is live.
 */
export async function runDemoHarness(o: {
  readonly store: Store;
  readonly specs: readonly BenchmarkSpec[];
  readonly metrics: Registry;
  readonly config: Pick<Config, 'demoSeed' | 'demoSpeed' | 'demoStart' | 'demoDays' | 'dataDir'>;
  /** The demo clock: the harness, the chains and the publication read the same time. */
  readonly clock: Clock;
  readonly log: Logger;
  readonly harnessLog: HarnessLog;
  /** Closed days wait for the plan's slots before they freeze (publication.expectSlots). */
  readonly expectSlots: (plan: SlotPlanView | null) => void;
  /** The line logged once live: `demo ready`, `harness ready`. */
  readonly ready: string;
  readonly startup?: StartupProgress;
  /** A shutdown during the backfill: it stops between cycles (src/demo/harness-demo.ts). */
  readonly signal?: AbortSignal;
}): Promise<HarnessDemo> {
  // Imported here: `npm run demo` binds its port before this heavy module loads (src/main.ts).
  const { startHarnessDemo } = await import('./harness-demo.ts');
  const { config, clock, log } = o;
  const progress = backfillProgress({
    days: config.demoDays,
    log: o.harnessLog,
    ...(o.startup ? { startup: o.startup } : {}),
  });
  const demo = await startHarnessDemo({
    store: o.store,
    specs: o.specs,
    metrics: o.metrics,
    seed: config.demoSeed,
    env: process.env,
    days: config.demoDays,
    now: clock.now(),
    // A new plan ends at DEMO_START when given (the clock started there), so two demos with the
    // same DEMO_SEED and DEMO_START plan the same slots and incidents whatever their start-up took.
    ...(config.demoStart !== null ? { start: Math.min(clock.now(), config.demoStart) } : {}),
    clock,
    dataDir: config.dataDir,
    onPlan: (plan, summary) => {
      o.expectSlots(plan);
      if (summary?.resumed) log.info('backfill plan resumed', { ...summary });
    },
    onRpcProgress: progress.onRpcProgress,
    log: progress.log,
    onProgress: progress.onProgress,
    ...(o.signal ? { signal: o.signal } : {}),
  });
  progress.done();
  // Stopped during the backfill: never live, so never ready.
  if (!o.signal?.aborted)
    log.info(o.ready, {
      backfilledCycles: demo.backfilled,
      resumedSlots: demo.resumedSlots,
      caughtUpCycles: demo.caughtUp,
      planEnd: demo.plan ? new Date(demo.plan.end).toISOString() : null,
      simulator: demo.simulatorUrl,
      speed: config.demoSpeed,
    });
  return demo;
}
