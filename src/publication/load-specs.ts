import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { type BenchmarkSpec, checkSpecSet, parseSpec, SpecError } from '../core/spec-schema.ts';

/** Reads and validates every benchmarks/*.yml; throws SpecError naming file, field and problem. */
export async function loadSpecs(dir: string): Promise<BenchmarkSpec[]> {
  const files = (await readdir(dir)).filter((f) => /\.ya?ml$/.test(f)).sort();
  const specs: BenchmarkSpec[] = [];
  for (const f of files) {
    const path = join(dir, f);
    let data: unknown;
    try {
      data = parse(await readFile(path, 'utf8'));
    } catch (e) {
      throw new SpecError(`${path}: invalid YAML: ${(e as Error).message}`);
    }
    specs.push(parseSpec(path, data));
  }
  checkSpecSet(specs);
  return specs.sort((a, b) => a.number.localeCompare(b.number));
}
