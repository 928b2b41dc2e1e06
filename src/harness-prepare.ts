import { scaledClock } from './demo/demo-clock.ts';
import { loadHarnessConfig, simulatorEnv } from './harness/config.ts';
import type { Harness } from './harness/service.ts';
import type { HarnessLog } from './harness/types.ts';
import type { Logger } from './log.ts';
import type { Service } from './service.ts';
import type { StartupProgress } from './startup-state.ts';

// The harnesses a start-up runs once the port is bound (src/main.ts). Heavy modules (the harness,
// the simulator, the demo chains) are imported inside them, so a start-up fault never loads them.

/**
 * Extra start-up work once the port is bound (a harness, the demo's backfill), while every request
 * is answered 503 `starting`; returns how to stop it. `signal` fires when a shutdown signal arrives
 * during that work (a long backfill may stop early on it); `startup` takes the backfill's progress,
 * which /healthz shows.
 */
export type Prepare = (
  service: Service,
  log: Logger,
  signal: AbortSignal,
  startup: StartupProgress,
) => Promise<(() => Promise<void>) | undefined>;

export function harnessLog(log: Logger): HarnessLog {
  return (level, msg, fields) => {
    const f = fields ? { ...fields } : undefined;
    if (level === 'debug') log.debug(msg, f);
    else if (level === 'info') log.info(msg, f);
    else if (level === 'warn') log.warn(msg, f);
    else log.error(msg, f);
  };
}

/**
 * On a store with no sample yet, every benchmark is measured once right away (at its latest aligned
 * slot) instead of after the next 30-minute or 6-hour slot; the scheduler then carries on.
 */
async function measureOnceIfEmpty(service: Service, harness: Harness, log: Logger): Promise<void> {
  if ((await service.store.timeBounds()) !== null) return;
  for (const spec of service.specs) {
    if (!harness.benchmarks.includes(spec.slug)) continue;
    log.info('empty DATA_DIR: measuring now instead of waiting for the next slot', { benchmark: spec.slug });
    harness
      .measureNow(spec.slug)
      .catch((e: unknown) => log.warn('start-up cycle failed', { benchmark: spec.slug, error: String(e) }));
  }
}

/** The default: the real harness against the providers' APIs, in this process (one writer). */
export const realHarness: Prepare = async (service, log) => {
  if (!service.config.harnessEnabled) {
    log.info('harness disabled (HARNESS_ENABLED=false); serving stored data only');
    return undefined;
  }
  const { startHarness } = await import('./harness/service.ts');
  // Validated at start-up already (startFromEnv), so this cannot fail here.
  const harness = startHarness({
    store: service.store,
    specs: service.specs,
    metrics: service.metrics,
    harnessConfig: loadHarnessConfig(),
    log: harnessLog(log),
  });
  await measureOnceIfEmpty(service, harness, log);
  return () => harness.stop();
};

/**
 * `serve --simulate`: the same harness and schedule against the simulated providers (seed
 * DEMO_SEED), every sample labelled simulated; no backfill (that is `demo`).
 */
export const simulatedHarness: Prepare = async (service, log) => {
  if (!service.config.harnessEnabled) {
    log.info('harness disabled (HARNESS_ENABLED=false); serving stored simulated data only');
    return undefined;
  }
  const seed = service.config.demoSeed;
  const [
    { openDemoChains, REGIONAL_FAMILY, startRpcDemo },
    { startSimulatorThread },
    { startHarness },
    { demoTruthReader },
  ] = await Promise.all([
    import('./demo/rpc-demo.ts'),
    import('./sim/threaded.ts'),
    import('./harness/service.ts'),
    import('./demo/demo-dexes.ts'),
  ]);
  // The demo clock (DEMO_SPEED, kept in DATA_DIR): the schedule, the chains and the publication.
  const clock = scaledClock(service.clock, service.clockRate);
  // The demo chains: the json-rpc family's nodes, and the trade cells' ground truth and the
  // simulated trade providers' source (an hour of history, then following the clock).
  const chains = await openDemoChains({
    seed,
    now: clock.now(),
    dataDir: service.config.dataDir,
    log: harnessLog(log),
    backfillMs: 0,
    // The first cycle measures the latest closed 30-min slot: its window opens up to 90 min ago.
    chainLeadMs: 100 * 60_000,
  });
  const stopChains = () => Promise.all(chains.map((c) => c.stop()));
  // On a thread of its own, as the demo's (src/demo/harness-demo.ts).
  const sim = await startSimulatorThread({
    seed,
    chains: chains.map((c) => ({ chain: c.chain, url: c.node.url })),
  }).catch(async (e: unknown) => {
    await stopChains();
    throw e;
  });
  // The json-rpc family measures its own simulated nodes, one harness per region (rpc-demo.ts).
  const rpc = await startRpcDemo({
    store: service.store,
    chains,
    specs: service.specs.filter((s) => s.family === REGIONAL_FAMILY),
    metrics: service.metrics,
    seed,
    now: clock.now(),
    env: process.env,
    log: harnessLog(log),
    backfillMs: 0,
  }).catch(async (e: unknown) => {
    await sim.close();
    await stopChains();
    throw e;
  });
  await Promise.all(chains.map((c) => c.buildTo(clock.now())));
  const harness = startHarness({
    store: service.store,
    specs: service.specs.filter((s) => s.family !== REGIONAL_FAMILY),
    metrics: service.metrics,
    // The operator's HARNESS_* (timeouts, retries, region) apply; the simulator gives URLs and keys.
    harnessConfig: loadHarnessConfig({ ...process.env, ...simulatorEnv(sim.baseUrls, sim.keys) }),
    log: harnessLog(log),
    simulated: true,
    truth: demoTruthReader(chains),
    clock,
  });
  rpc?.goLive(clock);
  const stopFollow = chains.map((c) => c.follow(clock));
  await measureOnceIfEmpty(service, harness, log);
  return async () => {
    for (const f of stopFollow) f();
    await Promise.all([harness.stop(), rpc?.stop()]);
    await sim.close();
    await stopChains();
  };
};
