import { access, constants } from 'node:fs/promises';
import { specHash } from '../core/spec-hash.ts';

export const SPEC_HASH_USAGE = `usage: citebench spec-hash <file>

Prints the sha256 of a benchmark spec as the service publishes it (provenance.specs): the hash of
the canonical JSON of the parsed spec with defaults applied, not of the file's bytes, so comments,
key order and quoting do not change it. Exit 2 when the file cannot be read or is not a valid spec.
`;

/** `citebench spec-hash <file>`: the hash on stdout; a clear error and exit 2 otherwise. */
export async function runSpecHashCli(args: readonly string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(SPEC_HASH_USAGE);
    return 0;
  }
  const [file, ...extra] = args;
  if (file === undefined || extra.length > 0) {
    process.stderr.write(`spec-hash: give exactly one spec file\n${SPEC_HASH_USAGE}`);
    return 2;
  }
  // Imported here: loading specs registers the families, which `citebench --version` does not need.
  const { loadSpecFile } = await import('../publication/load-specs.ts');
  try {
    // Read first: the spec loader words any read failure as invalid YAML.
    await access(file, constants.R_OK);
  } catch (e) {
    process.stderr.write(`spec-hash: ${file}: cannot read it (${(e as NodeJS.ErrnoException).code})\n`);
    return 2;
  }
  try {
    process.stdout.write(`${specHash(await loadSpecFile(file))}\n`);
    return 0;
  } catch (e) {
    process.stderr.write(`spec-hash: ${(e as Error).message}\n`);
    return 2;
  }
}
