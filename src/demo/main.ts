import { harnessLog, startFromEnv } from '../main.ts';
import { scaledClock } from './demo-clock.ts';

/**
 * `npm run demo`: simulated providers, real harness cycles and the API, with no internet and no keys.
 * An empty DATA_DIR is backfilled with DEMO_DAYS (3) days of real cycles, by a plan kept in
 * DATA_DIR that a restart resumes and extends over the downtime (src/demo/backfill-plan.ts). The
 * whole demo runs on one clock (src/demo/demo-clock.ts), DEMO_SPEED times the wall clock.
 */
// DEMO_SEED, DEMO_SPEED, DEMO_START and DEMO_DAYS are validated with the rest of the configuration (src/config.ts).
await startFromEnv(
  async (service, log, _signal, startup) => {
    // Imported once the port is bound (src/main.ts): a start-up fault is reported before it loads.
    const { runDemoHarness } = await import('./demo-run.ts');
    const demo = await runDemoHarness({
      store: service.store,
      specs: service.specs,
      metrics: service.metrics,
      config: service.config,
      // The service's clock: the harness, the chains and the publication read the same time.
      clock: scaledClock(service.clock, service.clockRate),
      log,
      harnessLog: harnessLog(log),
      expectSlots: (plan) => service.publication.expectSlots(plan),
      ready: 'demo ready',
      startup,
    });
    return () => demo.stop();
  },
  { simulated: true, command: 'demo' },
);
