import { defineConfig } from 'vitest/config';

// Vitest reads its configuration from a default export (the one default export in the repo; biome
// does not check this file). Three layers, each a project (CONTRIBUTING's test layers):
// - timing: the few files whose assertions measure speed on this machine. They run first, one at a
//   time and alone, with budgets scaled by a calibration run at their start (test/helpers/calibrate.ts);
// - unit: in process, no child process of any kind (test/helpers/unit-guard.ts refuses one);
// - e2e: services, engines, anvil and Chromium, beside the unit files, two at a time (the 2-core
//   reference machine waits on child processes for much of an e2e file). Vitest's own order starts
//   them before the unit files (projects by name, then the larger or longer file first), so no
//   long e2e file is left to run alone at the end.
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
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...shared,
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          setupFiles: [...shared.setupFiles, 'test/helpers/unit-guard.ts'],
          isolate: false,
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          ...shared,
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
