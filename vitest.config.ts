import { defineConfig } from 'vitest/config';

// Vitest reads its configuration from a default export (the one default export in the repo; biome
// does not check this file). Three layers, each a project (CONTRIBUTING's test layers):
// - timing: the few files whose assertions measure speed on this machine, one at a time, with
//   budgets scaled by a calibration run at their start (test/helpers/calibrate.ts);
// - unit: in process, no child process of any kind (test/helpers/unit-guard.ts refuses one);
// - e2e: services, engines, anvil and Chromium, two at a time.
// `npm test` (scripts/test.sh) runs the timing layer beside the unit layer on one worker, then the
// e2e layer: the 2-core machine is CPU-bound, and three workers at once were slower than two.
// `vitest run` alone runs the groups in order: timing alone, then unit and e2e together. Group
// orders start at 1: Vitest moves a one-worker project of group order 0 (the default) to a
// sequential group of its own after every other group.
// Timeouts are outer bounds against a hang, never a budget: a test waits for its event.
const shared = {
  testTimeout: 60_000,
  hookTimeout: 240_000,
  setupFiles: ['test/helpers/setup.ts'],
};

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          ...shared,
          name: 'timing',
          include: ['test/timing/**/*.test.ts'],
          globalSetup: ['test/helpers/calibrate.ts'],
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          ...shared,
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          setupFiles: [...shared.setupFiles, 'test/helpers/unit-guard.ts'],
          isolate: false,
          // One beside the timing layer in `npm test` (scripts/test.sh), two alone.
          maxWorkers: Number(process.env.CITEBENCH_UNIT_WORKERS ?? 2),
          sequence: { groupOrder: 2 },
        },
      },
      {
        test: {
          ...shared,
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          maxWorkers: 2,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
