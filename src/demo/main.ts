import { harnessLog, startFromEnv } from '../main.ts';

/**
 * `npm run demo`: simulated providers, real harness cycles and the API, with no internet and no keys.
 * An empty DATA_DIR is backfilled with 3 days of real cycles on a simulated clock first; an existing
 * one is reused as it is. DEMO_SPEED > 1 speeds the live cadence up for demonstrations.
 */
// DEMO_SEED and DEMO_SPEED are validated with the rest of the configuration (src/config.ts).
await startFromEnv(
  async (service, log, _signal, startup) => {
    // Imported once the port is bound (src/main.ts): a start-up fault is reported before it loads.
    const { startHarnessDemo } = await import('./harness-demo.ts');
    const seed = service.config.demoSeed;
    const speed = service.config.demoSpeed;
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
      days: 3,
      now: Date.now(),
      speed,
      dataDir: service.config.dataDir,
      followWallClock: true,
      onRpcProgress: (done, total) => {
        startup.backfill('rpc-slots', done, total);
        if (done === total || done % 12 === 0) {
          process.stderr.write(`backfilling 6 h of RPC slots in 3 regions: ${done}/${total}\n`);
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
          process.stderr.write(`\rbackfilling 3 days: [${bar}] ${done}/${total} cycles`);
          if (done === total) process.stderr.write('\n');
        } else if (pct >= last + 10 || done === total) {
          last = pct;
          process.stderr.write(`backfilling 3 days: ${done}/${total} cycles (${pct}%)\n`);
        }
      },
    });
    backfilling = false;
    log.info('demo ready', { backfilledCycles: demo.backfilled, simulator: demo.simulatorUrl, speed });
    return () => demo.stop();
  },
  { simulated: true, command: 'demo' },
);
