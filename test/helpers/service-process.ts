import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');

/** The SOURCE_URL a real `serve` needs to start (src/main.ts); the demo and --simulate default it. */
export const TEST_SOURCE_URL =
  'https://github.com/citebench/citebench/tree/main/src/harness/families/{family}';

export interface ServiceProcess {
  readonly child: ChildProcess;
  readonly port: number;
  readonly base: string;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code (null when killed by a signal) and the signal. */
  exited(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /**
   * Resolves once the process has exited and its stdout and stderr are closed: every process that
   * shares them (a launcher's children: npm's shell, tsx's node) is gone too.
   */
  closed(): Promise<void>;
  /** Resolves when the output matches `re` (checked on every chunk); rejects on exit or timeout. */
  waitFor(re: RegExp, ms: number): Promise<RegExpMatchArray>;
}

/** A free loopback port (the OS picks; a race with another process is possible but unlikely). */
export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      s.close(() => res(port));
    });
  });
}

/**
 * Spawns the real service: `node --import tsx <entry>` (default the demo) in the repo, with the
 * given environment on top of this one. vitest exports BASE_URL=/ (Vite's), so it is set here, and
 * SOURCE_URL, which a real `serve` needs (a test of its absence sets it empty).
 */
export async function spawnService(
  env: Record<string, string>,
  opts: { entry?: string; command?: readonly string[]; port?: number } = {},
): Promise<ServiceProcess> {
  const port = opts.port ?? (await freePort());
  const base = `http://127.0.0.1:${port}`;
  const argv = opts.command ?? [process.execPath, '--import', 'tsx', opts.entry ?? 'src/demo/main.ts'];
  const child = spawn(argv[0] as string, argv.slice(1), {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      BASE_URL: base,
      SOURCE_URL: TEST_SOURCE_URL,
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const watchers = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString();
    for (const w of watchers) w();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.once('exit', (code, signal) => {
      r({ code, signal });
      for (const w of watchers) w();
    }),
  );
  const closed = new Promise<void>((r) => child.once('close', () => r()));
  return {
    child,
    port,
    base,
    output: () => out,
    exited: () => exit,
    closed: () => closed,
    waitFor(re, ms) {
      return new Promise((res, rej) => {
        const check = () => {
          const m = re.exec(out);
          if (m) {
            done();
            res(m);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            done();
            rej(new Error(`exited before ${re}:\n${out.slice(-3000)}`));
          }
        };
        const timer = setTimeout(() => {
          done();
          rej(new Error(`no ${re} within ${ms} ms:\n${out.slice(-3000)}`));
        }, ms);
        const done = () => {
          clearTimeout(timer);
          watchers.delete(check);
        };
        watchers.add(check);
        check();
      });
    },
  };
}

export async function until200(url: string, ms: number, p: ServiceProcess): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (p.child.exitCode !== null)
      throw new Error(`exited with ${p.child.exitCode}:\n${p.output().slice(-3000)}`);
    try {
      const r = await fetch(url);
      await r.arrayBuffer();
      if (r.status === 200) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} not up within ${ms} ms:\n${p.output().slice(-3000)}`);
}
