import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openDuckDbStore } from '../../src/store/duckdb-store.ts';
import { MIGRATIONS } from '../../src/store/migrations.ts';
import { type ServiceProcess, spawnService, until200 } from '../helpers/service-process.ts';

/**
 * What each start-up fault says and leaves behind; how fast it says it is test/timing/startup-faults.
 * No time budget here: each test waits for the process to exit (a fault must end it) or for the port
 * to answer, bounded only against a hang. Quiet, a faulty start exits in ~1 s and `src/main.ts`
 * answers /healthz in 2–3 s; the bounds allow 15 times that, and the tests' timeouts (60 s a start)
 * are above them, so a slow start fails with the service's output, not a bare timeout.
 */
const EXIT_BOUND_MS = 45_000;
const UP_BOUND_MS = 45_000;

const running: ServiceProcess[] = [];
const mounts: string[] = [];
afterEach(() => {
  for (const p of running.splice(0)) p.child.kill('SIGKILL');
});
afterAll(() => {
  for (const m of mounts.splice(0)) {
    try {
      execFileSync('umount', [m]);
    } catch {
      // already gone
    }
  }
});

/** A small tmpfs at a fresh directory (root only), or null where mounting is not allowed. */
function tmpfs(options: string): string | null {
  const dir = mkdtempSync(join(tmpdir(), 'cb-mnt-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    return null;
  }
  mounts.push(dir);
  return dir;
}

// Mounting needs root (CI and the dev machines run as root); elsewhere those two cases are skipped.
const canMount = tmpfs('size=64k') !== null;

/** Starts the API only (no harness) on `dataDir` and waits for it to exit. */
async function startExpectingFailure(dataDir: string): Promise<{ code: number | null; stderr: string }> {
  const p = await spawnService({ DATA_DIR: dataDir, HARNESS_ENABLED: 'false' }, { entry: 'src/main.ts' });
  running.push(p);
  let timer: NodeJS.Timeout | undefined;
  const { code } = await Promise.race([
    p.exited(),
    new Promise<never>((_, rej) => {
      timer = setTimeout(
        () => rej(new Error(`still running after ${EXIT_BOUND_MS} ms:\n${p.output()}`)),
        EXIT_BOUND_MS,
      );
    }),
  ]).finally(() => clearTimeout(timer));
  return { code, stderr: p.output() };
}

function expectOneClearLine(stderr: string, re: RegExp): void {
  const lines = stderr.split('\n').filter((l) => l.trim() !== '');
  expect(lines, stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^cannot start: /);
  expect(lines[0]).toMatch(re);
  // Never a stack trace.
  expect(stderr).not.toMatch(/\n\s+at /);
}

async function rawQuery(path: string, sql: string): Promise<unknown[][]> {
  const inst = await DuckDBInstance.create(path);
  const conn = await inst.connect();
  try {
    return (await conn.runAndReadAll(sql)).getRows() as unknown[][];
  } finally {
    conn.closeSync();
    inst.closeSync();
  }
}

describe('start-up faults: one clear line, a non-zero exit, the database untouched', () => {
  it('DATA_DIR whose parent does not exist (a typo, not a wish for a new tree)', async () => {
    const base = mkdtempSync(join(tmpdir(), 'cb-missing-'));
    const r = await startExpectingFailure(join(base, 'no', 'such', 'dir'));
    expect(r.code).not.toBe(0);
    expectOneClearLine(r.stderr, /does not exist/);
  }, 60_000);

  it('a database from a newer schema version is refused before any migration touches it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cb-newer-'));
    const path = join(dir, 'citebench.duckdb');
    const s = await openDuckDbStore({ path });
    await s.append([{ metric: 'networks_supported', labels: { provider: 'x' }, t: 1000, v: 7 }]);
    await s.close();
    const future = MIGRATIONS.length + 5;
    await rawQuery(path, `UPDATE meta SET value = '${future}' WHERE key = 'schema_version'`);
    const r = await startExpectingFailure(dir);
    expect(r.code).not.toBe(0);
    expectOneClearLine(r.stderr, new RegExp(`schema version ${future}, newer than this build`));
    expect(await rawQuery(path, "SELECT value FROM meta WHERE key = 'schema_version'")).toEqual([
      [String(future)],
    ]);
    expect(await rawQuery(path, 'SELECT count(*)::INTEGER FROM samples')).toEqual([[1]]);
  }, 60_000);

  it('a database already open in another process (DuckDB lock)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cb-lock-'));
    const first = await spawnService({ DATA_DIR: dir, HARNESS_ENABLED: 'false' }, { entry: 'src/main.ts' });
    running.push(first);
    await until200(`${first.base}/healthz`, UP_BOUND_MS, first);
    const r = await startExpectingFailure(dir);
    expect(r.code).not.toBe(0);
    expectOneClearLine(r.stderr, new RegExp(`already open in another process \\(PID ${first.child.pid}`));
    // The holder is unaffected and still closes cleanly.
    expect((await fetch(`${first.base}/api/citable`)).status).toBe(200);
    first.child.kill('SIGTERM');
    expect((await first.exited()).code).toBe(0);
  }, 120_000);

  it('a file in DATA_DIR that is not a DuckDB database is left as it is', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cb-garbage-'));
    writeFileSync(join(dir, 'citebench.duckdb'), 'not a database\n');
    const r = await startExpectingFailure(dir);
    expect(r.code).not.toBe(0);
    expectOneClearLine(r.stderr, /is not a DuckDB database/);
  }, 60_000);

  it.runIf(canMount)(
    'a read-only DATA_DIR (read-only mount)',
    async () => {
      const dir = tmpfs('size=4m');
      if (!dir) throw new Error('mount failed');
      mkdirSync(join(dir, 'data'));
      execFileSync('mount', ['-o', 'remount,ro', dir]);
      const r = await startExpectingFailure(join(dir, 'data'));
      expect(r.code).not.toBe(0);
      expectOneClearLine(r.stderr, /read-only file system/);
    },
    60_000,
  );

  it.runIf(canMount)(
    'a DATA_DIR on a full disk',
    async () => {
      const dir = tmpfs('size=1m');
      if (!dir) throw new Error('mount failed');
      // Fill it: dd stops with "No space left on device" once the 1 MiB are used.
      try {
        execFileSync('dd', ['if=/dev/zero', `of=${join(dir, 'filler')}`, 'bs=64k'], { stdio: 'ignore' });
      } catch {
        // expected: ENOSPC
      }
      const r = await startExpectingFailure(dir);
      expect(r.code).not.toBe(0);
      expectOneClearLine(r.stderr, /no space left/);
    },
    60_000,
  );
});
