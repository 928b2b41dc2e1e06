import type { Registry } from 'prom-client';
import type { Config } from '../config.ts';
import type { BenchmarkSpec } from '../core/spec-schema.ts';
import { DemoClockError, type OpenedDemoClock, openDemoClock } from '../demo/demo-clock.ts';
import { publishClock } from '../demo/shared-clock.ts';
import type { Logger } from '../log.ts';
import { harnessLog } from '../main.ts';
import type { Publication } from '../publication/publication.ts';
import { readOrigins } from '../publication/sample-origins.ts';
import type { Store } from '../store/sample-store.ts';

// `citebench harness --simulate`: the demo's harness (src/demo/demo-run.ts) as the writer of a
// split deployment, with no API: simulated providers, origin="simulated", the resumable backfill.

/** The demo clock of DATA_DIR, or the one-line reason it cannot be used. */
export async function openWriterClock(config: Config): Promise<OpenedDemoClock | string> {
  try {
    return await openDemoClock({ dataDir: config.dataDir, speed: config.demoSpeed, start: config.demoStart });
  } catch (e) {
    if (e instanceof DemoClockError) return e.message;
    throw e;
  }
}

/**
 * Saves the clock in DATA_DIR and, on an engine, publishes it to SNAPSHOT_DIR for the `serve
 * --simulate` replicas, which follow it (src/demo/shared-clock.ts); logs it like the demo.
 */
export async function shareWriterClock(
  clock: OpenedDemoClock,
  snapshotDir: string | null,
  log: Logger,
  demoStartSet: boolean,
): Promise<void> {
  await clock.save();
  if (snapshotDir !== null) await publishClock(snapshotDir, clock.clock.anchor);
  const { anchor, anchorWall, speed } = clock.clock.anchor;
  log.info('demo clock', {
    now: new Date(clock.clock.now()).toISOString(),
    anchor: new Date(anchor).toISOString(),
    anchorWall: new Date(anchorWall).toISOString(),
    speed,
    origin: clock.origin,
    ...(snapshotDir !== null ? { shared: snapshotDir } : {}),
  });
  if (demoStartSet && clock.origin !== 'new')
    log.warn('DEMO_START ignored: DATA_DIR/demo-clock.json continues its simulated time');
}

/**
 * Simulated samples are never written beside measured ones: the one-line refusal, or null. An
 * engine that does not answer yet cannot tell, and is not waited for (the writer buffers).
 */
export async function measuredSamplesRefusal(store: Store, where: string): Promise<string | null> {
  const origins = await readOrigins(store).catch(() => null);
  if (!origins?.measured) return null;
  return `${where} holds measured samples; harness --simulate never writes simulated data beside them (point it at another engine, tenant or DATA_DIR)`;
}

/** Runs the demo's harness: backfill (with its progress lines), `harness ready`, then live. */
export async function startSimulatedWriter(o: {
  readonly store: Store;
  readonly specs: readonly BenchmarkSpec[];
  readonly metrics: Registry;
  readonly config: Config;
  readonly clock: OpenedDemoClock;
  readonly publication: Publication;
  readonly log: Logger;
  readonly signal: AbortSignal;
}): Promise<{ stop(): Promise<void> }> {
  const [{ runDemoHarness }, { scaledClock }] = await Promise.all([
    import('../demo/demo-run.ts'),
    import('../demo/demo-clock.ts'),
  ]);
  return runDemoHarness({
    store: o.store,
    specs: o.specs,
    metrics: o.metrics,
    config: o.config,
    clock: scaledClock(o.clock.clock.now, o.clock.clock.rate),
    log: o.log,
    harnessLog: harnessLog(o.log),
    expectSlots: (plan) => o.publication.expectSlots(plan),
    ready: 'harness ready',
    signal: o.signal,
  });
}
