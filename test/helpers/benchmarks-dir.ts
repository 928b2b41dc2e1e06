import { copyFileSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCHMARKS_DIR } from './fixture.ts';

/**
 * A copy of benchmarks/ without the specs of some families (the catalogue kept whole), for tests of
 * other parts that start the demo: the json-rpc family starts nodes and backfills its own slots,
 * which its own tests cover.
 */
export function benchmarksWithout(families: readonly string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'citebench-benchmarks-'));
  for (const f of readdirSync(BENCHMARKS_DIR)) {
    const text = readFileSync(join(BENCHMARKS_DIR, f), 'utf8');
    const family = /^family:\s*(\S+)/m.exec(text)?.[1];
    if (family !== undefined && families.includes(family)) continue;
    copyFileSync(join(BENCHMARKS_DIR, f), join(dir, f));
  }
  return dir;
}
