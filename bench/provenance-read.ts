/**
 * The price of provenance (issue 25): the live index and each day's freeze read the window's
 * harness_build_info samples in one select and count the builds (readProvenance). Measured on the
 * embedded store (DuckDB, in memory) at two sizes of a day: the demo's shape (the json-rpc family
 * every minute in three regions for two benchmarks, trade capture every 30 min for two, the listing
 * every 6 h: 8,740 samples) and 1,000 benchmarks every 20 min (72,000: as many as harness_cycle
 * markers). Ten rounds each; the median is printed.
 *
 * Run: npx tsx bench/provenance-read.ts
 */
import { performance } from 'node:perf_hooks';
import { DAY_MS } from '../src/core/dates.ts';
import { HARNESS_BUILD_INFO_METRIC } from '../src/core/metric-names.ts';
import type { Sample } from '../src/core/samples.ts';
import { readProvenance } from '../src/publication/provenance-read.ts';
import { openDuckDbStore } from '../src/store/duckdb-store.ts';

const END = Date.UTC(2026, 10, 20);
const build = { version: '0.1.0', revision: 'a'.repeat(40) };

function day(benchmarks: number, everyMs: number, regions: readonly string[]): Sample[] {
  const out: Sample[] = [];
  for (let b = 0; b < benchmarks; b++)
    for (const region of regions) {
      const labels = { benchmark: `b-${b}`, revision: build.revision, version: build.version, region };
      for (let t = END - DAY_MS + everyMs; t <= END; t += everyMs)
        out.push({ metric: HARNESS_BUILD_INFO_METRIC, labels, t, v: 1 });
    }
  return out;
}

async function measure(name: string, samples: Sample[]): Promise<void> {
  const store = await openDuckDbStore({ path: ':memory:' });
  await store.append(samples);
  const ctx = { store, build, specHashes: {} };
  const times: number[] = [];
  let builds = 0;
  for (let i = 0; i < 10; i++) {
    const t0 = performance.now();
    builds = (await readProvenance(ctx, END - DAY_MS, END)).measuredBy.length;
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  console.log(`${name}: ${samples.length} samples, ${builds} builds, median ${times[5]?.toFixed(1)} ms`);
  await store.close();
}

await measure('demo shape', [
  ...day(2, 60_000, ['us-east', 'eu-west', 'ap-southeast']),
  ...day(2, 1_800_000, ['']),
  ...day(1, 21_600_000, ['']),
]);
await measure('1,000 benchmarks', day(1000, 1_200_000, ['']));
