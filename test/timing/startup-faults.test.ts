import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { openDuckDbStore } from '../../src/store/duckdb-store.ts';
import { MIGRATIONS } from '../../src/store/migrations.ts';
import { type ServiceProcess, spawnService, until200 } from '../helpers/service-process.ts';
import {
  ENTRIES,
  type Entry,
  FAULTS,
  nodeEntry,
  type TimedRun,
  timedRun,
  tsxBaseline,
  unmountAll,
} from '../helpers/startup-fault.ts';

const running: ServiceProcess[] = [];
const mounts: string[] = [];
afterEach(() => {
  for (const p of running.splice(0)) p.child.kill('SIGKILL');
});
afterAll(() => {
  unmountAll();
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
  const { code } = await Promise.race([
    p.exited(),
    new Promise<never>((_, rej) => setTimeout(() => rej(new Error(`still running:\n${p.output()}`)), 20_000)),
  ]);
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
  }, 30_000);

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
  }, 30_000);

  it('a database already open in another process (DuckDB lock)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cb-lock-'));
    const first = await spawnService({ DATA_DIR: dir, HARNESS_ENABLED: 'false' }, { entry: 'src/main.ts' });
    running.push(first);
    await until200(`${first.base}/healthz`, 20_000, first);
    const r = await startExpectingFailure(dir);
    expect(r.code).not.toBe(0);
    expectOneClearLine(r.stderr, new RegExp(`already open in another process \\(PID ${first.child.pid}`));
    // The holder is unaffected and still closes cleanly.
    expect((await fetch(`${first.base}/api/citable`)).status).toBe(200);
    first.child.kill('SIGTERM');
    expect((await first.exited()).code).toBe(0);
  }, 40_000);

  it('a file in DATA_DIR that is not a DuckDB database is left as it is', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cb-garbage-'));
    writeFileSync(join(dir, 'citebench.duckdb'), 'not a database\n');
    const r = await startExpectingFailure(dir);
    expect(r.code).not.toBe(0);
    expectOneClearLine(r.stderr, /is not a DuckDB database/);
  }, 30_000);

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
    30_000,
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
    30_000,
  );
});

/**
 * Issue 26: a fault is reported before anything else happens. Validate every variable, take
 * DATA_DIR's lock and open the store, bind the port; only then import the app, backfill, freeze.
 * Time is "our own": process start to exit less what Node and tsx alone take to start and exit.
 * The issue asks for < 1 s of it (bench/startup-faults.ts: ~0.3 s on a loaded 2-core VM); on a
 * shared CI machine these allow 1.5 s, and, independent of the machine's load, less than half of
 * what importing the app alone takes (measured beside it: 1–4 s here). b7b957c imported the whole
 * app first (0.65–1.6 of it), backfilled before it found a busy port, and bound HOST only then.
 */
describe('fail fast: one line naming the fault, nothing else, a non-zero exit', () => {
  const OWN_MS = 1_500;
  const WALL_MS = 5_000;
  const OF_APP_IMPORT = 0.5;

  /** Our own time to import the app (the service and every route module), as start-up once did first. */
  async function appImportMs(): Promise<number> {
    const base = await tsxBaseline();
    const r = await timedRun(
      [
        process.execPath,
        '--import',
        'tsx',
        '-e',
        "await import('./src/service.ts'); await import('./src/routes.ts')",
      ],
      {},
    );
    expect(r.code, r.output).toBe(0);
    return r.ms - base.ms;
  }

  /**
   * Runs each entry against one fault, with node+tsx's own start just before it: every run must be
   * one clean line; the time is that of the best of up to 3 runs (noise only ever adds time).
   */
  async function against(name: string, entries: readonly (Entry | 'npm')[]): Promise<void> {
    const fault = FAULTS.find((f) => f.name === name);
    const app = await appImportMs();
    for (const entry of entries) {
      const times: string[] = [];
      let ok = false;
      for (let attempt = 1; attempt <= 3 && !ok; attempt++) {
        const f = await fault?.setup();
        if (!f) throw new Error(`cannot set up ${name}`);
        try {
          const as = f.uid !== undefined ? { uid: f.uid } : {};
          const base = await tsxBaseline(as);
          const r: TimedRun =
            entry === 'npm'
              ? await timedRun(['npm', 'run', '--silent', 'demo'], f.env, { ...as, timeoutMs: 30_000 })
              : await timedRun(
                  nodeEntry(entry),
                  { ...ENTRIES[entry].env, ...f.env },
                  { ...as, timeoutMs: 30_000 },
                );
          const took = `${Math.round(r.ms)} ms (node+tsx ${Math.round(base.ms)} ms)`;
          const what = `${name} / ${entry}: ${took}\n${r.output}`;
          expect(r.code, what).toBe(2);
          // Nothing but the line: no log line, no welcome, no backfill progress, no stack.
          const lines = r.output.split('\n').filter((l) => l.trim() !== '');
          expect(lines, what).toHaveLength(1);
          expect(lines[0], what).toMatch(/^cannot start: /);
          expect(lines[0], what).toMatch(f.names);
          times.push(took);
          // npm's own start (~0.3–1 s) is not ours: only the 5 s bound applies to it.
          const own = entry === 'npm' ? 0 : r.ms - base.ms;
          ok = r.ms < WALL_MS && own < OWN_MS && own < OF_APP_IMPORT * app;
        } finally {
          await f.release();
        }
      }
      if (!ok) {
        throw new Error(
          `${name} / ${entry}: not within ${WALL_MS} ms, ${OWN_MS} ms of our own and ${OF_APP_IMPORT} of the app's import (${Math.round(app)} ms) in 3 runs: ${times.join(', ')}`,
        );
      }
    }
  }

  it('a busy port: before any backfill, from node, the demo entry and npm run demo', async () => {
    await against('busy port', ['serve', 'demo', 'npm']);
  }, 30_000);

  it('a DATA_DIR locked by another process (DuckDB lock)', async () => {
    await against('locked DATA_DIR', ['serve', 'demo']);
  }, 30_000);

  it('an unwritable DATA_DIR (0555; run as nobody when the tests run as root)', async () => {
    await against('unwritable DATA_DIR', ['serve', 'demo']);
  }, 30_000);

  it.runIf(canMount)(
    'a full DATA_DIR (a filled 1 MiB tmpfs: ENOSPC on the first write)',
    async () => {
      await against('full DATA_DIR', ['serve', 'demo']);
    },
    30_000,
  );

  it('a bad variable: malformed, or well-formed but not usable here (HOST not an address of this machine)', async () => {
    for (const f of FAULTS.filter((x) => x.name.startsWith('bad variable'))) {
      await against(f.name, ['serve', 'demo']);
    }
  }, 30_000);
});

describe('HOST is checked with the other variables', () => {
  it('a host name or an IP address; a URL, a port or a path is refused naming HOST', () => {
    for (const h of ['127.0.0.1', '0.0.0.0', '::', '::1', 'localhost', 'bench-1.internal.example'])
      expect(loadConfig({ HOST: h }).host, h).toBe(h);
    for (const h of ['http://0.0.0.0', 'localhost:8080', '0.0.0.0/24', '', ' ', '-bad.example']) {
      expect(() => loadConfig({ HOST: h }), h).toThrow(ConfigError);
      expect(() => loadConfig({ HOST: h }), h).toThrow(/HOST=.* is not a host name or IP address/);
    }
  });
});
