import { defineConfig } from 'vitest/config';
import { LongFirstSequencer } from './test/helpers/long-first-sequencer.ts';

// Vitest reads its configuration from a default export (the one default export in the repo; biome
// does not check this file). Two workers on the 2-core reference machine: the suite waits on child
// processes (services, anvil, Prometheus, Chromium) for much of its time, and one worker, Vitest's
// default there, left a core idle for half the run. The files whose assertions time things run
// alone first (scripts/test.sh, test/timing-files.txt), so this parallelism cannot skew them.
// Generous timeouts: a test's deadline guards against a hang, not a slow machine.
export default defineConfig({
  test: {
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 180_000,
    setupFiles: ['test/helpers/setup.ts'],
    // The longest files first (measured), whatever Vitest remembers of earlier runs.
    sequence: { sequencer: LongFirstSequencer },
  },
});
