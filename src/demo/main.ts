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
    const { startHarnessDemo } = await import('./harness-demo.ts');
    const seed = service.config.demoSeed;
    const speed = service.config.demoSpeed;
    const days = service.config.demoDays;
    // The json-rpc family's own window: 6 h of 5-minute slots, at most the demo's days.
    const rpcHours = Math.min(6, Math.round(days * 24 * 10) / 10);
    // The service's clock: the harness, the chains and the publication read the same time.
    const clock = scaledClock(service.clock, service.clockRate);
    const tty = process.stderr.isTTY;
    let last = 0;
    // The progress bar reports the backfill (its scripted provider faults show in /metrics as
    // fetch_errors_total); per-cycle lines resume once it is done.
    let backfilling = true;
    const base = harnessLog(log);
    const demo = await startHarnessDemo({
      store: service.store,
      specs: service.specs,
      metrics: service.metrics,
      seed,
      env: process.env,
      days,
      now: clock.now(),
      // A new plan ends at DEMO_START when given (the clock started there), so two demos with the
      // same DEMO_SEED and DEMO_START plan the same slots and incidents whatever their start-up took.
      ...(service.config.demoStart !== null
        ? { start: Math.min(clock.now(), service.config.demoStart) }
        : {}),
      clock,
      dataDir: service.config.dataDir,
      onPlan: (plan, summary) => {
        // Closed days wait for the plan's slots before they freeze.
        service.publication.expectSlots(plan);
        if (summary?.resumed) log.info('backfill plan resumed', { ...summary });
      },
      onRpcProgress: (done, total) => {
        startup.backfill('rpc-slots', done, total);
        if (done === total || done % 12 === 0) {
          process.stderr.write(`backfilling ${rpcHours} h of RPC slots in 3 regions: ${done}/${total}\n`);
        }
      },
      log: (level, msg, fields) => {
        if (!(backfilling && (level === 'info' || level === 'warn'))) base(level, msg, fields);
      },
      onProgress: ({ done, total }) => {
        startup.backfill('cycles', done, total);
        const pct = Math.floor((done / total) * 100);
        if (tty) {
          const bar = '#'.repeat(Math.floor(pct / 4)).padEnd(25, '.');
          process.stderr.write(`\rbackfilling ${days} days: [${bar}] ${done}/${total} cycles`);
          if (done === total) process.stderr.write('\n');
        } else if (pct >= last + 10 || done === total) {
          last = pct;
          process.stderr.write(`backfilling ${days} days: ${done}/${total} cycles (${pct}%)\n`);
        }
      },
    });
    backfilling = false;
    log.info('demo ready', {
      backfilledCycles: demo.backfilled,
      resumedSlots: demo.resumedSlots,
      caughtUpCycles: demo.caughtUp,
      planEnd: demo.plan ? new Date(demo.plan.end).toISOString() : null,
      simulator: demo.simulatorUrl,
      speed,
    });
    return () => demo.stop();
  },
  { simulated: true, command: 'demo' },
);
