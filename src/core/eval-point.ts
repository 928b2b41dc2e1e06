/**
 * The time a live view is evaluated at: the later of its benchmark's newest sample (not after now)
 * and the last point, at or before now, of a grid of min(20 min, cadence) steps from the epoch. Two processes
 * holding the same samples evaluate at the same point, so they publish the same bytes and ETag
 * whatever their clocks say inside a step, and a view is recomputed only when its point moves: on
 * new samples, or when the grid passes while none arrive (the window slides on the grid). Staleness
 * is judged at the point, so it shows at most one step late (one cadence, at most 20 min).
 */
export const EVAL_GRID_MAX_MS = 20 * 60_000;

/** The grid step of a benchmark of this cadence. */
export function evalStepMs(cadenceMs: number): number {
  return Math.max(1, Math.min(EVAL_GRID_MAX_MS, cadenceMs));
}

/** The evaluation point at `now` of a benchmark whose newest sample is `newest` (undefined: none). */
export function evalPoint(newest: number | undefined, now: number, cadenceMs: number): number {
  const step = evalStepMs(cadenceMs);
  const grid = Math.floor(now / step) * step;
  // A sample stamped after now (a writer's clock ahead of ours) is read as now: a view never
  // claims a time this process has not reached.
  const latest = newest === undefined ? grid : Math.min(newest, now);
  return Math.max(latest, grid);
}
