import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Stat } from '../../src/core/api-schemas.ts';
import { BENCHMARKS_DIR } from '../helpers/fixture.ts';
import { type ServiceProcess, spawnService, until200 } from '../helpers/service-process.ts';

/** Issue 25 §4, at start-up of the real CLI: SOURCE_URL and specs that still carry `source`. */

const running: ServiceProcess[] = [];
afterEach(() => {
  for (const p of running.splice(0)) p.child.kill('SIGKILL');
});

const cli = (...args: string[]) => [process.execPath, 'bin/citebench.mjs', ...args];

/**
 * Outer bounds, never budgets: quiet, a refused start exits in ~1 s and `serve --simulate` answers
 * /healthz within ~5 s; the bounds allow 12 times that, and each test's timeout is above them.
 */
const START_MS = 60_000;

/** Runs the CLI and waits for it to exit: code and everything it wrote. */
async function exitOf(env: Record<string, string>, command: string[]) {
  const p = await spawnService(env, { command });
  running.push(p);
  let timer: NodeJS.Timeout | undefined;
  const { code } = await Promise.race([
    p.exited(),
    new Promise<never>((_, rej) => {
      timer = setTimeout(() => rej(new Error(`still running:\n${p.output()}`)), START_MS);
    }),
  ]).finally(() => clearTimeout(timer));
  return {
    code,
    lines: p
      .output()
      .split('\n')
      .filter((l) => l.trim() !== ''),
  };
}

describe('SOURCE_URL at start-up', () => {
  it('serve (real measurements) will not start without it: one line, DATA_DIR untouched', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'cb-nosource-')), 'data');
    const r = await exitOf({ SOURCE_URL: '', DATA_DIR: dataDir, HARNESS_ENABLED: 'false' }, cli('serve'));
    expect(r.code).toBe(2);
    expect(r.lines).toHaveLength(1);
    expect(r.lines[0]).toMatch(/^cannot start: SOURCE_URL is not set: .*http\(s\) URL of the harness source/);
    expect(existsSync(dataDir)).toBe(false);
  }, 120_000);

  it('a spec still carrying `source` stops start-up with one line naming the file and SOURCE_URL', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cb-oldspec-'));
    for (const f of readdirSync(BENCHMARKS_DIR)) {
      const text = readFileSync(join(BENCHMARKS_DIR, f), 'utf8');
      writeFileSync(
        join(dir, f),
        f === 'rpc-head-lag.yml' ? `${text}source: https://github.com/x/y\n` : text,
      );
    }
    const dataDir = mkdtempSync(join(tmpdir(), 'cb-oldspec-data-'));
    const r = await exitOf(
      { BENCHMARKS_DIR: dir, DATA_DIR: dataDir, HARNESS_ENABLED: 'false' },
      cli('serve', '--simulate'),
    );
    expect(r.code).toBe(2);
    expect(r.lines).toHaveLength(1);
    expect(r.lines[0]).toMatch(/^invalid benchmark spec: /);
    expect(r.lines[0]).toContain(
      `${join(dir, 'rpc-head-lag.yml')}: field "source": is no longer a spec field`,
    );
    expect(r.lines[0]).toContain('set SOURCE_URL');
  }, 120_000);

  it('serve --simulate defaults it to BASE_URL/methodology#harness', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cb-simsource-'));
    const p = await spawnService(
      { SOURCE_URL: '', DATA_DIR: dataDir, HARNESS_ENABLED: 'false' },
      { command: cli('serve', '--simulate') },
    );
    running.push(p);
    await until200(`${p.base}/healthz`, START_MS, p);
    const stat = (await (await fetch(`${p.base}/api/stat/network-coverage`)).json()) as Stat;
    expect(stat.source).toBe(`${p.base}/methodology#harness`);
  }, 120_000);
});
