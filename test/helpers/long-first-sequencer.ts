import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest, longest first (seconds on the 2-core VM, two workers, 2026-11-28):
 * demo-e2e 104, split-writer 62, pages-browser 43, split-deployment 41, golden 45 (its beforeAll
 * backfills the golden demo; Vitest's size order started it at 342 s of a 414 s run), missing-slots
 * 25, scale-prometheus 24, harness-writer 18, methodology-failures 13, rpc-demo 12, cli-console 12,
 * healthz-starting 11, demo-clock 11.
 */
const LONG = [
  'demo-e2e',
  'split-writer',
  'pages-browser',
  'split-deployment',
  'golden',
  'missing-slots',
  'scale-prometheus',
  'harness-writer',
  'methodology-failures',
  'rpc-demo',
  'cli-console',
  'healthz-starting',
  'demo-clock',
].map((name) => `/test/${name}.test.ts`);

/**
 * Starts the long files first, so the two workers finish together. Vitest orders by the durations
 * of its last run, kept in node_modules: on a clean checkout (CI) it has none and starts the
 * biggest files first, which put demo-e2e (104 s, a small file) near the end of the run.
 */
export class LongFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const known = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = LONG.findIndex((suffix) => f.moduleId.endsWith(suffix));
      return i < 0 ? LONG.length : i;
    };
    // Array.prototype.sort is stable: the rest keep Vitest's order.
    return [...known].sort((a, b) => rank(a) - rank(b));
  }
}
