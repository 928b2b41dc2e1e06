import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { freePort, ROOT, TEST_SOURCE_URL } from './service-process.ts';

/**
 * The start-up faults of issue 26 (a busy port; a locked, unwritable or full DATA_DIR; a bad
 * variable), each set up for real, and a timed run of the service against one. Shared by
 * test/timing/startup-faults.test.ts and bench/startup-faults.ts.
 */

/** The service's two entries as a user starts them: `serve` (HARNESS_ENABLED=false: no harness) and the demo. */
export const ENTRIES = {
  serve: { file: 'src/main.ts', env: { HARNESS_ENABLED: 'false' } },
  demo: { file: 'src/demo/main.ts', env: {} },
} as const;
export type Entry = keyof typeof ENTRIES;

export interface FaultSetup {
  /** Variables on top of PORT, DATA_DIR and the rest (a bad one, or the busy port). */
  readonly env: Record<string, string>;
  /** The user to run as: root ignores file modes, so an unwritable DATA_DIR needs another one. */
  readonly uid?: number;
  /** What the one line must name. */
  readonly names: RegExp;
  release(): Promise<void>;
}

export interface Fault {
  readonly name: string;
  /** Null where this machine cannot set it up (a tmpfs needs root). */
  setup(): Promise<FaultSetup | null>;
}

const NOBODY = 65534;
const mounts: string[] = [];

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(port, '127.0.0.1', () => resolve(s));
  });
}

/** A fresh, empty directory. */
export function freshDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A 1 MiB tmpfs filled to the last byte (dd stops at ENOSPC), or null where mounting is not allowed. */
export function fullTmpfs(): string | null {
  const dir = freshDir('cb-full-');
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    return null;
  }
  mounts.push(dir);
  try {
    execFileSync('dd', ['if=/dev/zero', `of=${join(dir, 'filler')}`, 'bs=64k'], { stdio: 'ignore' });
  } catch {
    // expected: "No space left on device" once the 1 MiB are used
  }
  return dir;
}

/** Unmounts every tmpfs fullTmpfs mounted. */
export function unmountAll(): void {
  for (const m of mounts.splice(0)) {
    try {
      execFileSync('umount', [m], { stdio: 'ignore' });
    } catch {
      // already gone
    }
  }
}

export const FAULTS: readonly Fault[] = [
  {
    name: 'busy port',
    async setup() {
      const port = await freePort();
      const holder = await listen(port);
      return {
        env: { PORT: String(port), DATA_DIR: freshDir('cb-busy-') },
        names: new RegExp(`127\\.0\\.0\\.1:${port} is already in use`),
        release: () => new Promise<void>((r) => holder.close(() => r())),
      };
    },
  },
  {
    name: 'locked DATA_DIR',
    async setup() {
      // This process holds DuckDB's lock on the database, as a running service would.
      const dir = freshDir('cb-locked-');
      const db = await DuckDBInstance.create(join(dir, 'citebench.duckdb'));
      return {
        env: { DATA_DIR: dir },
        names: new RegExp(`DATA_DIR ${dir} is already open in another process \\(PID ${process.pid}`),
        release: async () => db.closeSync(),
      };
    },
  },
  {
    name: 'unwritable DATA_DIR',
    async setup() {
      const dir = freshDir('cb-unwritable-');
      chmodSync(dir, 0o555);
      return {
        env: { DATA_DIR: dir },
        ...(process.getuid?.() === 0 ? { uid: NOBODY } : {}),
        names: new RegExp(`DATA_DIR ${dir} is not writable by this user`),
        release: async () => undefined,
      };
    },
  },
  {
    name: 'full DATA_DIR',
    async setup() {
      const dir = fullTmpfs();
      if (dir === null) return null;
      return {
        env: { DATA_DIR: dir },
        names: new RegExp(`DATA_DIR ${dir} has no space left on its device`),
        release: async () => undefined,
      };
    },
  },
  ...(
    [
      ['DEMO_SEED', 'forty-two', /invalid configuration: DEMO_SEED=forty-two is not an integer/],
      // Malformed: refused with the other variables.
      [
        'HOST',
        'http://0.0.0.0',
        /invalid configuration: HOST=http:\/\/0\.0\.0\.0 is not a host name or IP address/,
      ],
      // Well-formed, but not an address of this machine (TEST-NET-1, never assigned): the bind says so.
      ['HOST', '192.0.2.1', /HOST=192\.0\.2\.1 is not an address of this machine/],
    ] as const
  ).map(
    ([name, value, names]): Fault => ({
      name: `bad variable ${name}=${value}`,
      async setup() {
        return {
          env: { [name]: value, DATA_DIR: freshDir('cb-badvar-') },
          names,
          release: async () => undefined,
        };
      },
    }),
  ),
];

export interface TimedRun {
  readonly code: number | null;
  /** stdout and stderr together, as a terminal shows them. */
  readonly output: string;
  /** From spawn to exit. */
  readonly ms: number;
}

/** Runs `argv` in the repository with `env` over this environment and times it from spawn to exit. */
export async function timedRun(
  argv: readonly string[],
  env: Record<string, string>,
  opts: { uid?: number; timeoutMs?: number } = {},
): Promise<TimedRun> {
  const port = env.PORT ?? String(await freePort());
  const t0 = performance.now();
  const child = spawn(argv[0] as string, argv.slice(1), {
    cwd: ROOT,
    env: {
      ...process.env,
      BASE_URL: `http://127.0.0.1:${port}`,
      SOURCE_URL: TEST_SOURCE_URL,
      LOG_LEVEL: 'info',
      ...env,
      PORT: port,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(opts.uid !== undefined ? { uid: opts.uid, gid: opts.uid } : {}),
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => {
    output += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    output += d.toString();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
  let ms = 0;
  child.once('exit', () => {
    ms = performance.now() - t0;
  });
  // 'close' comes after 'exit' once the pipes are drained, so the output is whole.
  const code = await new Promise<number | null>((r) => child.once('close', (c) => r(c)));
  clearTimeout(timer);
  return { code, output, ms };
}

/** `node --import tsx <entry>`, as the tests and `npm run demo`'s tsx start it. */
export function nodeEntry(entry: Entry): string[] {
  return [process.execPath, '--import', 'tsx', ENTRIES[entry].file];
}

/** Node and tsx starting and exiting with nothing of ours loaded: what every run costs before our code. */
export function tsxBaseline(opts: { uid?: number } = {}): Promise<TimedRun> {
  return timedRun([process.execPath, '--import', 'tsx', '-e', '0'], {}, opts);
}
