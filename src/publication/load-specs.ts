import { access, readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { parseProviderCatalogue } from '../core/provider-catalogue.ts';
import { type ProviderInfo, registerProviderCatalogue } from '../core/providers.ts';
import { type BenchmarkSpec, checkSpecSet, parseSpec, SpecError } from '../core/spec-schema.ts';
// Registers the families (their names, metrics and cadences) that specs are checked against.
import '../harness/families/index.ts';

/** The provider catalogue's file in a benchmarks folder; every other YAML file there is a spec. */
export const PROVIDER_CATALOGUE_FILE = 'providers.yml';

async function readYaml(path: string): Promise<unknown> {
  try {
    return parse(await readFile(path, 'utf8'));
  } catch (e) {
    throw new SpecError(`${path}: invalid YAML: ${(e as Error).message}`);
  }
}

/**
 * Reads and registers the provider catalogue of a benchmarks folder (benchmarks/providers.yml).
 * A folder without one (a generated catalogue of synthetic benchmarks) keeps the providers already
 * registered.
 */
export async function loadProviderCatalogue(dir: string): Promise<readonly ProviderInfo[] | null> {
  const path = join(dir, PROVIDER_CATALOGUE_FILE);
  const present = await access(path).then(
    () => true,
    () => false,
  );
  if (!present) return null;
  const list = parseProviderCatalogue(path, await readYaml(path));
  registerProviderCatalogue(list);
  return list;
}

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
