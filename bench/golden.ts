import { writeFile } from 'node:fs/promises';
import {
  captureGolden,
  GOLDEN_FILE,
  GOLDEN_NOW,
  GOLDEN_OPENAPI_FILE,
  GOLDEN_SEED,
  startGoldenDemo,
} from '../test/helpers/golden.ts';

/**
 * `npm run golden`: runs the demo in-process at a fixed DEMO_SEED and clock, stops its live harness
 * after the backfill, requests every GET route (test/helpers/golden.ts) and writes status, headers
 * (Date aside) and a body hash per request to test/fixtures/golden.json, and the OpenAPI document
 * to test/fixtures/golden-openapi.json. Rerun it only in a commit that changes published bytes on
 * purpose, and list the differences in that commit.
 */
const started = performance.now();
const run = await startGoldenDemo();
try {
  const { entries, openapi } = await captureGolden(run.url);
  const corpus = { seed: GOLDEN_SEED, now: new Date(GOLDEN_NOW).toISOString(), entries };
  await writeFile(GOLDEN_FILE, `${JSON.stringify(corpus, null, 1)}\n`);
  await writeFile(GOLDEN_OPENAPI_FILE, `${JSON.stringify(openapi, null, 1)}\n`);
  const byStatus = new Map<number, number>();
  for (const e of entries) byStatus.set(e.status, (byStatus.get(e.status) ?? 0) + 1);
  console.log(
    `golden: ${entries.length} requests (${[...byStatus].map(([s, n]) => `${s}×${n}`).join(', ')}) in ${Math.round(performance.now() - started)} ms`,
  );
} finally {
  await run.close();
}
