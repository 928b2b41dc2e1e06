import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { type BenchmarkSpec, checkSpecSet, parseSpec } from '../core/spec-schema.ts';
// Registers the families (their names, metrics and cadences) that specs are checked against.
import '../harness/families/index.ts';
import { loadProviderCatalogue, PROVIDER_CATALOGUE_FILE, readYaml } from './provider-catalogue-file.ts';

export { loadProviderCatalogue, PROVIDER_CATALOGUE_FILE } from './provider-catalogue-file.ts';

/**
 * Reads the provider catalogue, then validates every other benchmarks/*.yml against it and the
 * families; throws SpecError naming file, field and problem (every problem of a file, one a line).
 */
export async function loadSpecs(dir: string): Promise<BenchmarkSpec[]> {
  await loadProviderCatalogue(dir);
  const files = (await readdir(dir))
    .filter((f) => /\.ya?ml$/.test(f) && f !== PROVIDER_CATALOGUE_FILE)
    .sort();
  const specs: BenchmarkSpec[] = [];
  for (const f of files) {
    const path = join(dir, f);
    specs.push(parseSpec(path, await readYaml(path)));
  }
  checkSpecSet(specs);
  return specs.sort((a, b) => a.number.localeCompare(b.number));
}

/**
 * One spec file, parsed and checked as loadSpecs would (its folder's provider catalogue first,
 * when it has one); throws SpecError naming the file and the problem.
 */
export async function loadSpecFile(path: string): Promise<BenchmarkSpec> {
  await loadProviderCatalogue(dirname(path));
  return parseSpec(path, await readYaml(path));
}
