import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { parseProviderCatalogue } from '../core/provider-catalogue.ts';
import { type ProviderInfo, registerProviderCatalogue } from '../core/providers.ts';
import { SpecError } from '../core/spec-schema.ts';

/**
 * The provider catalogue's file, apart from the specs (load-specs.ts): start-up checks every
 * HARNESS_* variable against it before it opens the store, and this module does not import the
 * harness families the specs are checked against (about 1 s to load on 2 cores).
 */

/** The provider catalogue's file in a benchmarks folder; every other YAML file there is a spec. */
export const PROVIDER_CATALOGUE_FILE = 'providers.yml';

export async function readYaml(path: string): Promise<unknown> {
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
