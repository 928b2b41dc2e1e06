import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * `.ci/run` installs with `npm ci`, which refuses a package-lock.json out of sync with
 * package.json. These checks catch the two drifts seen before (issue 26): the root entry's
 * engines/dependencies differing from package.json, and other platforms' optional binaries (biome,
 * duckdb) left out by a lockfile written from one machine's node_modules.
 */
interface LockEntry {
  readonly version?: string;
  readonly dependencies?: Record<string, string>;
  readonly devDependencies?: Record<string, string>;
  readonly optionalDependencies?: Record<string, string>;
  readonly engines?: Record<string, string>;
}
const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as LockEntry;
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as {
  packages: Record<string, LockEntry>;
};

describe('package-lock.json', () => {
  it('has the root entry of package.json (dependencies, devDependencies, engines)', () => {
    const root = lock.packages[''];
    expect(root?.dependencies).toEqual(pkg.dependencies);
    expect(root?.devDependencies).toEqual(pkg.devDependencies);
    expect(root?.engines).toEqual(pkg.engines);
  });

  it('locks every optional dependency of every locked package (all platforms, not just this one)', () => {
    const missing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      for (const dep of Object.keys(entry.optionalDependencies ?? {})) {
        // npm resolves a dependency from the nearest node_modules up the path.
        const nested = `${path}/node_modules/${dep}`;
        if (!lock.packages[nested] && !lock.packages[`node_modules/${dep}`]) missing.push(`${path} → ${dep}`);
      }
    }
    expect(missing).toEqual([]);
    // The two whose binaries the tests need: biome (lint) and duckdb (the embedded store).
    expect(
      Object.keys(lock.packages).filter((p) => p.startsWith('node_modules/@biomejs/cli-')).length,
    ).toBeGreaterThan(4);
    expect(
      Object.keys(lock.packages).filter((p) => p.startsWith('node_modules/@duckdb/node-bindings-')).length,
    ).toBeGreaterThan(4);
  });
});
