import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { BuildInfo } from './core/provenance.ts';

/** A git object name (sha1 or sha256), so nothing else a `git` on the path prints is published. */
const REVISION = /^[0-9a-f]{7,64}$/;

/**
 * This process's build (issue 25): `version` from package.json; `revision` from CITEBENCH_REVISION,
 * else `git rev-parse HEAD` when the package's own folder is a checkout (not the caller's working
 * directory, which may be another repository), else absent. Read once: git
 * costs a process spawn (~5 ms), and the answer cannot change while the code runs.
 */
export function readBuildInfo(
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = fileURLToPath(new URL('..', import.meta.url)),
): BuildInfo {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  const revision = env.CITEBENCH_REVISION?.trim() || gitHead(cwd);
  return { version: pkg.version, ...(revision ? { revision } : {}) };
}

function gitHead(cwd: string): string | undefined {
  try {
    const out = execFileSync('git', ['rev-parse', 'HEAD'], {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 2000,
    }).trim();
    return REVISION.test(out) ? out : undefined;
  } catch {
    // No git, or not a checkout (a container image): the revision is simply unknown.
    return undefined;
  }
}

let cached: BuildInfo | undefined;

/** The process's build, read on first use. */
export function processBuildInfo(): BuildInfo {
  cached ??= readBuildInfo();
  return cached;
}
