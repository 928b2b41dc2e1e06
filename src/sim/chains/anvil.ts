import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The platform package `@foundry-rs/anvil` would pick; its postinstall (blocked here) normally links it. */
function platformPackage(): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  return `@foundry-rs/anvil-${process.platform}-${arch}`;
}

/** Path of the anvil binary inside @foundry-rs/anvil-<platform>-<arch>; throws naming the package if missing. */
export function anvilBinary(): string {
  const pkg = platformPackage();
  let dir: string;
  try {
    dir = dirname(createRequire(import.meta.url).resolve(`${pkg}/package.json`));
  } catch {
    throw new Error(`anvil binary not found: install ${pkg} (npm install @foundry-rs/anvil)`);
  }
  const bin = join(dir, 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil');
  if (!existsSync(bin)) throw new Error(`anvil binary not found in ${pkg} (expected ${bin})`);
  return bin;
}

export interface AnvilNode {
  readonly url: string;
  readonly chainId: number;
  readonly pid: number;
  /** Stops anvil (SIGTERM, so it dumps `--state`); resolves once the process has exited. */
  stop(): Promise<void>;
}

export interface StartAnvilOptions {
  readonly chainId: number;
  /** Loaded at start when it exists, dumped on stop (`--state`). */
  readonly stateFile?: string;
  readonly genesisTimestampSec?: number;
  readonly startupTimeoutMs?: number;
  /** Another executable in place of anvilBinary(): tests use it for the start-up failure path. */
  readonly binary?: string;
}

/**
 * `sh` forks a watcher, then execs anvil, so anvil keeps the pid we spawned ($$) and the watcher
 * sees both ends: it exits with anvil, and kills anvil (TERM, then KILL after 5 s) once our Node
 * process ($PPID) is gone, even after a SIGKILL that runs none of our exit handlers. Polling
 * `kill -0` every second is the portable way: Linux's PR_SET_PDEATHSIG is not reachable from Node.
 */
const WATCHDOG = [
  'P=$PPID',
  '( while kill -0 $$ 2>/dev/null; do',
  '    if ! kill -0 $P 2>/dev/null; then',
  '      kill -TERM $$ 2>/dev/null; i=0',
  '      while [ $i -lt 10 ] && kill -0 $$ 2>/dev/null; do sleep 0.5; i=$((i+1)); done',
  '      kill -0 $$ 2>/dev/null && kill -KILL $$ 2>/dev/null; exit 0',
  '    fi; sleep 1',
  '  done ) </dev/null >/dev/null 2>&1 &',
  'exec "$@"',
].join('\n');

/**
 * Blocks whose transactions and logs anvil keeps (`--transaction-block-keeper`): 9 h of 12 s
 * blocks. The truth reader and the simulated providers read the last 7 h; anvil silently omits
 * logs of older blocks, so the margin keeps a window that starts 7 h back whole while the head moves.
 * Memory follows: anvil keeps each transaction's call trace (~70 % of its 10 KB in a state dump,
 * no flag turns it off). 7 h of ethereum (10.8k swaps, 4.2k transfers) held 200 MB RSS once
 * built, 437 MB resumed from its 142 MB state file (bsc: 140 / 255 MB; base: 152 / 313 MB).
 */
export const KEPT_BLOCKS = 2_700;
/**
 * Block 1 deploys the DEX (Router02 4.8M gas, five pairs 2.5M each: ~24M used, ~34M of
 * fixed limits); anvil fills a block only up to this, so the default 30M would split the setup.
 */
export const BLOCK_GAS_LIMIT = 60_000_000;

const LISTENING = /Listening on (?:127\.0\.0\.1|\[::1\]|localhost):(\d+)/;
const STOP_GRACE_MS = 5_000;

function anvilArgs(opts: StartAnvilOptions): string[] {
  const args = ['--host', '127.0.0.1', '--port', '0', '--chain-id', String(opts.chainId), '--no-mining'];
  // States kept in memory: 24 covers every read the probes pin (10 behind the head, plus the
  // blocks mined while a slot's series run). Measured on 8,000 blocks of transfers: 64 states held
  // 235 MB, 24 held 141 MB; without pruning anvil writes every state to ~/.foundry (3.3 GB).
  args.push('--prune-history', '24', '--transaction-block-keeper', String(KEPT_BLOCKS));
  args.push('--gas-limit', String(BLOCK_GAS_LIMIT));
  // Without --preserve-historical-states: a resumed node answers state queries only from its
  // load head on, but keeping the 64 states made each 7 h dump 29 MB (vs 7.3) and a resumed anvil
  // 170 MB RSS (vs 50), over the 150 MB budget.
  if (opts.stateFile !== undefined) args.push('--state', opts.stateFile);
  if (opts.genesisTimestampSec !== undefined) args.push('--timestamp', String(opts.genesisTimestampSec));
  return args;
}

/** Where the pid of the anvil that loads and dumps a state file is kept, beside it. */
const pidFileOf = (stateFile: string): string => `${stateFile}.pid`;

/** A watchdog's TERM, its 5 s grace, then KILL, plus its 1 s poll: the previous anvil is gone by then. */
const PREVIOUS_WRITER_WAIT_MS = STOP_GRACE_MS + 2_000;

/** The anvil process that last wrote this state file, while it still runs (null on another OS or pid). */
function previousWriter(stateFile: string): number | null {
  try {
    const pid = Number(readFileSync(pidFileOf(stateFile), 'utf8'));
    if (!Number.isInteger(pid) || pid <= 0) return null;
    // A reused pid is not waited for: only an anvil's command line names anvil.
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('anvil') ? pid : null;
  } catch {
    return null;
  }
}

/**
 * After a kill -9 of our process the watchdog's SIGTERM makes the old anvil dump its state while a
 * restarted service may already be starting its successor on the same file: that one would load
 * the older state, or a half-written one. It waits for the old process to exit, bounded.
 */
async function previousWriterGone(stateFile: string): Promise<void> {
  const pid = previousWriter(stateFile);
  if (pid === null) return;
  const end = Date.now() + PREVIOUS_WRITER_WAIT_MS;
  // Not our child: no exit event to wait on, so its pid is polled.
  while (Date.now() < end && previousWriter(stateFile) === pid) await new Promise((r) => setTimeout(r, 50));
}

/** anvil starts fine with a state path it cannot write and fails only when dumping on exit. */
function ensureStateDir(stateFile: string): void {
  try {
    mkdirSync(dirname(stateFile), { recursive: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'error';
    throw new Error(`anvil: cannot create the state directory ${dirname(stateFile)} (${code})`);
  }
}

/** The line that says why anvil failed: its `error:` line, else the last line it printed. */
function reasonOf(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  return lines.find((l) => l.startsWith('error')) ?? lines.at(-1) ?? 'no output';
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * Starts one anvil on a free loopback port. The start-up wait is bounded (default 10 s); any
 * failure is one Error line (exit code and anvil's own reason), never a hang or a stray process.
 */
export async function startAnvil(opts: StartAnvilOptions): Promise<AnvilNode> {
  const binary = opts.binary ?? anvilBinary();
  if (opts.stateFile !== undefined) {
    ensureStateDir(opts.stateFile);
    await previousWriterGone(opts.stateFile);
  }
  const timeoutMs = opts.startupTimeoutMs ?? 10_000;
  const child = spawn('/bin/sh', ['-c', WATCHDOG, 'anvil-watchdog', binary, ...anvilArgs(opts)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pid = child.pid;
  let stderr = '';
  let stdout = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`anvil (chain ${opts.chainId}) did not start within ${timeoutMs} ms`));
    }, timeoutMs);
    const done = (err: Error | null, p = 0): void => {
      clearTimeout(timer);
      child.stdout?.removeListener('data', onStdout);
      if (err) reject(err);
      else resolve(p);
    };
    const onStdout = (chunk: Buffer): void => {
      // Only the banner is kept; afterwards anvil's per-request log lines are drained unread.
      stdout = (stdout + chunk.toString('utf8')).slice(-4096);
      const m = LISTENING.exec(stdout);
      if (m?.[1]) done(null, Number(m[1]));
    };
    child.stdout?.on('data', onStdout);
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-4096);
    });
    child.once('error', (e) =>
      done(new Error(`anvil (chain ${opts.chainId}) could not start: ${e.message}`)),
    );
    child.once('exit', (code, signal) => {
      const how = code !== null ? `code ${code}` : `signal ${signal}`;
      done(new Error(`anvil (chain ${opts.chainId}) exited with ${how}: ${reasonOf(stderr || stdout)}`));
    });
  });
  child.stdout?.resume();
  child.removeAllListeners('exit');
  if (pid === undefined) throw new Error(`anvil (chain ${opts.chainId}) has no pid`);
  if (opts.stateFile !== undefined) writeFileSync(pidFileOf(opts.stateFile), String(pid));
  let stopping: Promise<void> | null = null;
  return {
    url: `http://127.0.0.1:${port}`,
    chainId: opts.chainId,
    pid,
    stop: () => {
      stopping ??= (async () => {
        const gone = exited(child);
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
        await gone;
        clearTimeout(timer);
      })();
      return stopping;
    },
  };
}
