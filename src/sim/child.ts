/**
 * Runs the simulator in a child process driven over IPC, so a bench can measure the harness's own
 * memory without the simulator's. Messages: {start, opts} → {ready, baseUrls, keys}; {stats} →
 * {stats, stats}; {close} → exits.
 */
import type { SimulatorOptions } from './server.ts';
import { type Simulator, startSimulator } from './server.ts';

type Msg = { type: 'start'; opts: SimulatorOptions } | { type: 'stats' } | { type: 'close' };

if (process.send) {
  let sim: Simulator | null = null;
  process.on('message', (m: Msg) => {
    void (async () => {
      if (m.type === 'start') {
        sim = await startSimulator(m.opts);
        process.send?.({ type: 'ready', baseUrls: sim.baseUrls, keys: sim.keys });
      } else if (m.type === 'stats') {
        process.send?.({ type: 'stats', stats: sim?.stats() ?? null });
      } else {
        await sim?.close();
        process.exit(0);
      }
    })();
  });
}
