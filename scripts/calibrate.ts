/**
 * Prints the timing layer's calibration figures on this machine (test/helpers/calibrate.ts), for
 * setting CALIBRATION_REFERENCE (test/helpers/calibration.ts) on a quiet reference machine.
 *
 *   npx tsx scripts/calibrate.ts
 */
import { measureCalibration } from '../test/helpers/calibrate.ts';

const runs = [];
for (let i = 0; i < 5; i++) runs.push(await measureCalibration());
for (const r of runs) console.log(`cpu ${r.cpuMs.toFixed(1)} ms, node+tsx ${r.spawnMs.toFixed(0)} ms`);
