import { inject } from 'vitest';

/** What the timing layer's calibration measured on this machine at the start of the run. */
export interface Calibration {
  /** The calibration's fixed CPU work, median ms. */
  readonly cpuMs: number;
  /** `node --import tsx -e ''`, start to exit, median ms. */
  readonly spawnMs: number;
  /** How much slower than the reference this machine is now (≥ 1): every budget is multiplied by it. */
  readonly factor: number;
}

declare module 'vitest' {
  export interface ProvidedContext {
    calibration: Calibration;
  }
}

/**
 * The same figures on the quiet reference machine (2 cores, Node 20, nothing else running), from
 * `npx tsx scripts/calibrate.ts` there. A budget stated for that machine holds on a slower or
 * busier one scaled by the ratio, so a test fails when our code is slow, not when the machine is.
 */
export const CALIBRATION_REFERENCE = { cpuMs: 110, spawnMs: 260 } as const;

/** A budget stated for the reference machine, on this one. */
export function scaledBudget(referenceMs: number): number {
  return referenceMs * inject('calibration').factor;
}
