import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Every runtime dependency's licence, read from its own package.json (the packages the lockfile
 * installs for production: `npm ci --omit=dev`). A copyleft licence is allowed only when it is in
 * this reviewed list, with why it does not reach Citebench's own code; a new one fails here until
 * someone reviews it. Dev dependencies (e.g. the BUSL-1.1 Uniswap V3/V4 artifacts used by tests)
 * are not shipped and not checked.
 */
const REVIEWED: Readonly<Record<string, string>> = {
  '@uniswap/v2-core':
    'GPL-3.0-or-later. Only its compiled bytecode (build/*.json) is read and deployed into the separate anvil process of the demo chains; no Uniswap source is copied into or linked with Citebench.',
  '@uniswap/v2-periphery':
    'GPL-3.0-or-later. As @uniswap/v2-core: WETH9 and Router02 bytecode, run only inside anvil.',
  '@uniswap/lib':
    'GPL-3.0-or-later. A dependency of @uniswap/v2-periphery; nothing of it is loaded by Citebench.',
  satori:
    'MPL-2.0 (file-level copyleft). Used unmodified as a library to render images; MPL-2.0 allows that in a larger work under another licence.',
  '@resvg/resvg-js': 'MPL-2.0 (file-level copyleft). Used unmodified as a library, as satori.',
  '@resvg/resvg-js-linux-x64-gnu': "MPL-2.0. resvg-js's prebuilt binary for this platform, unmodified.",
};

const COPYLEFT = /\b(A?GPL|LGPL|MPL|EPL|EUPL|CDDL|CPAL|OSL|SSPL|BUSL|CC-BY-SA)\b/i;
const ROOT = resolve(import.meta.dirname, '../..');

interface LockEntry {
  readonly dev?: boolean;
  readonly optional?: boolean;
}

/** Installed production packages: lockfile path → package name and licence as its package.json states it. */
function runtimePackages(): Array<{ path: string; name: string; license: string }> {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const out: Array<{ path: string; name: string; license: string }> = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '' || entry.dev) continue;
    const file = join(ROOT, path, 'package.json');
    // Optional platform packages of other systems are not installed here.
    if (!existsSync(file) && entry.optional) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as {
      name?: string;
      license?: unknown;
      licenses?: Array<{ type?: string } | string>;
    };
    const license =
      typeof pkg.license === 'string'
        ? pkg.license
        : (pkg.licenses ?? []).map((l) => (typeof l === 'string' ? l : (l.type ?? ''))).join(' OR ');
    out.push({ path, name: pkg.name ?? path, license });
  }
  return out;
}

describe('licences of the runtime dependencies', () => {
  const pkgs = runtimePackages();

  it('reads a licence for every installed runtime package', () => {
    expect(pkgs.length).toBeGreaterThan(50);
    expect(pkgs.filter((p) => p.license.trim() === '').map((p) => p.path)).toEqual([]);
  });

  it('has no copyleft licence outside the reviewed list', () => {
    const unreviewed = pkgs.filter((p) => COPYLEFT.test(p.license) && !(p.name in REVIEWED));
    expect(unreviewed.map((p) => `${p.name} (${p.license})`)).toEqual([]);
  });

  it('lists only packages that are still installed and still copyleft', () => {
    for (const name of Object.keys(REVIEWED)) {
      const found = pkgs.filter((p) => p.name === name);
      expect(found.length, name).toBeGreaterThan(0);
      for (const p of found) expect(COPYLEFT.test(p.license), `${name}: ${p.license}`).toBe(true);
    }
  });

  it('the Uniswap packages are read as build artefacts only: no source file imports them', () => {
    const files = readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' }).filter((f) =>
      f.endsWith('.ts'),
    );
    expect(files.length).toBeGreaterThan(100);
    const importing = files.filter((f) =>
      /(from|import\()\s*['"]@uniswap\//.test(readFileSync(join(ROOT, 'src', f), 'utf8')),
    );
    expect(importing).toEqual([]);
  });
});
