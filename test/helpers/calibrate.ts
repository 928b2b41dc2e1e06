import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import type { TestProject } from 'vitest/node';
import { CALIBRATION_REFERENCE, type Calibration } from './calibration.ts';
import { ROOT } from './service-process.ts';

/**
 * The timing layer's calibration, run once before its first file: how fast this machine is right
 * now, against the quiet 2-core reference machine (CALIBRATION_REFERENCE). Each figure is the
 * median of a few runs, so one preempted run does not move it.
 */
function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

/** A fixed piece of the kind of work the service does: build, serialize and parse JSON, sort. */
function cpuWork(): number {
  const t0 = performance.now();
  let check = 0;
  for (let round = 0; round < 20; round++) {
    const rows = Array.from({ length: 5_000 }, (_, i) => ({ i, v: Math.sin(i + round), s: `row-${i}` }));
    const back = JSON.parse(JSON.stringify(rows)) as typeof rows;
    back.sort((a, b) => a.v - b.v);
    check += back[0]?.i ?? 0;
  }
  if (check < 0) throw new Error('unreachable');
  return performance.now() - t0;
}

/** node with tsx loading an empty module: what every spawned service pays before our first line. */
function spawnTsx(): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '-e', ''], { cwd: ROOT, stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve(performance.now() - t0) : reject(new Error(`node --import tsx exited ${code}`)),
    );
  });
}

export async function measureCalibration(): Promise<Calibration> {
  cpuWork();
  const cpu: number[] = [];
  for (let i = 0; i < 7; i++) cpu.push(cpuWork());
  const start: number[] = [];
  for (let i = 0; i < 3; i++) start.push(await spawnTsx());
  const cpuMs = median(cpu);
  const spawnMs = median(start);
  const factor = Math.max(1, cpuMs / CALIBRATION_REFERENCE.cpuMs, spawnMs / CALIBRATION_REFERENCE.spawnMs);
  return { cpuMs, spawnMs, factor };
}

export async function setup(project: TestProject): Promise<void> {
  const c = await measureCalibration();
  console.log(
    `timing calibration: cpu ${c.cpuMs.toFixed(0)} ms (reference ${CALIBRATION_REFERENCE.cpuMs}), node+tsx ${c.spawnMs.toFixed(0)} ms (reference ${CALIBRATION_REFERENCE.spawnMs}): budgets × ${c.factor.toFixed(2)}`,
  );
  project.provide('calibration', c);
}
