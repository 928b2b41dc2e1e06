import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type ServiceProcess, spawnService } from '../helpers/service-process.ts';

/**
 * Several bad settings stop `citebench serve` with every one of them named, one line each, and
 * the exit code of one bad setting (2): an operator fixes them in one go, not one restart each.
 */

const running: ServiceProcess[] = [];
afterEach(() => {
  for (const p of running.splice(0)) p.child.kill('SIGKILL');
});

describe('start-up with several bad settings', () => {
  it('serve names each of three bad settings of three sources on its own line, exits 2, no stack trace, DATA_DIR untouched', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'cb-all-problems-')), 'data');
    const p = await spawnService(
      { SOURCE_URL: '', HARNESS_TIMEOUT_MS: 'abc', PORT: 'abc', DATA_DIR: dataDir, HARNESS_ENABLED: 'false' },
      { command: [process.execPath, 'bin/citebench.mjs', 'serve'] },
    );
    running.push(p);
    const { code } = await Promise.race([
      p.exited(),
      new Promise<never>((_, rej) =>
        setTimeout(() => rej(new Error(`still running:\n${p.output()}`)), 30_000),
      ),
    ]);
    const out = p.output();
    const lines = out.split('\n').filter((l) => l.trim() !== '');
    expect(code, out).toBe(2);
    expect(lines, out).toHaveLength(3);
    for (const line of lines) expect(line).toMatch(/^cannot start: /);
    expect(lines[0]).toBe(
      'cannot start: invalid configuration: PORT=abc is not a port (an integer from 0 to 65535)',
    );
    expect(lines[1]).toMatch(/^cannot start: SOURCE_URL is not set: /);
    expect(lines[2]).toBe(
      'cannot start: invalid harness configuration: HARNESS_TIMEOUT_MS=abc is not a positive integer',
    );
    expect(out).not.toMatch(/\n\s+at /);
    expect(existsSync(dataDir)).toBe(false);
  }, 40_000);
});
