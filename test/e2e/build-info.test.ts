import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readBuildInfo } from '../../src/build-info.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

describe("the build a process publishes (harness_build_info's and provenance's version and revision)", () => {
  it('takes the version from package.json and CITEBENCH_REVISION first', () => {
    expect(readBuildInfo({ CITEBENCH_REVISION: 'release-7' }, ROOT)).toEqual({
      version: VERSION,
      revision: 'release-7',
    });
  });

  it("else the checkout's HEAD, read with git from the package's own folder by default", () => {
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    expect(readBuildInfo({})).toEqual({ version: VERSION, revision: head });
    // A blank variable is no revision: git is asked.
    expect(readBuildInfo({ CITEBENCH_REVISION: '  ' }, ROOT).revision).toBe(head);
  });

  it('else no revision at all (not a checkout): the label is absent, never empty', () => {
    const dir = mkdtempSync(join(tmpdir(), 'citebench-nogit-'));
    try {
      // GIT_CEILING_DIRECTORIES is not needed: tmpdir is outside any repository here.
      expect(readBuildInfo({}, dir)).toEqual({ version: VERSION });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
