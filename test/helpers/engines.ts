import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './service-process.ts';

/** A real Prometheus-compatible engine on a loopback port, with its own temporary data folder. */
export interface Engine {
  readonly kind: EngineKind;
  /** Query side, e.g. http://127.0.0.1:PORT. */
  readonly url: string;
  readonly writeUrl: string;
  readonly dataDir: string;
  /** Stops the process; the data folder is kept so `start` can reopen it. */
  stop(): Promise<void>;
  /** SIGKILL: a crash, nothing flushed by the engine itself (`start` reopens the folder). */
  kill(): Promise<void>;
  /** Starts again on the same port and data folder (after `stop`). */
  start(): Promise<void>;
  /**
   * SIGSTOP: a hung engine, not a dead one. The kernel still accepts connections on its port (the
   * listen backlog), so a client connects and then waits for an answer that never comes.
   */
  pause(): Promise<void>;
  /** SIGCONT after `pause`: the engine answers again, nothing lost. */
  resume(): Promise<void>;
  /** Stops and removes the data folder. */
  destroy(): Promise<void>;
}

export type EngineKind = 'prometheus' | 'victoria-metrics';

const BINARIES: Record<EngineKind, { path: string; apt: string }> = {
  prometheus: { path: '/usr/bin/prometheus', apt: 'prometheus' },
  'victoria-metrics': { path: '/usr/bin/victoria-metrics', apt: 'victoria-metrics' },
};

/** Throws (never skips) when the engine's binary is missing, naming the Debian package. */
export function requireBinary(kind: EngineKind): string {
  const b = BINARIES[kind];
  if (!existsSync(b.path)) {
    throw new Error(
      `${b.path} not found: install it with \`apt-get install -y ${b.apt}\` (scripts/test.sh does)`,
    );
  }
  return b.path;
}

// Backfill writes days-old samples: Prometheus accepts them only inside the out-of-order window,
// and keeps them only inside the retention (15 d by default), so both are set wide.
export const PROMETHEUS_CONFIG = `global: {}
storage:
  tsdb:
    out_of_order_time_window: 3650d
`;

export function engineArgs(kind: EngineKind, dataDir: string, port: number): string[] {
  if (kind === 'prometheus') {
    return [
      `--config.file=${join(dataDir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dataDir, 'tsdb')}`,
      '--storage.tsdb.retention.time=100y',
      `--web.listen-address=127.0.0.1:${port}`,
      '--web.enable-remote-write-receiver',
      '--log.level=warn',
    ];
  }
  return [
    `-storageDataPath=${join(dataDir, 'vm')}`,
    `-httpListenAddr=127.0.0.1:${port}`,
    '-retentionPeriod=100y',
    // Default 30 s: queries near "now" would not see samples written in the last 30 s.
    '-search.latencyOffset=0s',
    '-loggerLevel=ERROR',
  ];
}

/**
 * Quiet, an engine answers its first query within 1–2 s of its start; the bound (against a hang,
 * never a budget) allows 30 times that.
 */
const READY_MS = 60_000;

async function waitReady(url: string, proc: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + READY_MS;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`engine exited with ${proc.exitCode}: ${log()}`);
    try {
      const r = await fetch(`${url}/api/v1/query?query=1`, { signal: AbortSignal.timeout(1000) });
      if (r.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`engine at ${url} not ready after ${READY_MS} ms: ${log()}`);
}

export async function startEngine(kind: EngineKind): Promise<Engine> {
  const bin = requireBinary(kind);
  const dataDir = await mkdtemp(join(tmpdir(), `citebench-${kind}-`));
  if (kind === 'prometheus') await writeFile(join(dataDir, 'prometheus.yml'), PROMETHEUS_CONFIG);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let proc: ChildProcess | null = null;
  let paused = false;
  let output = '';

  const start = async (): Promise<void> => {
    output = '';
    const p = spawn(bin, engineArgs(kind, dataDir, port), { stdio: ['ignore', 'pipe', 'pipe'] });
    proc = p;
    const keep = (b: Buffer) => {
      output = (output + b.toString()).slice(-4000);
    };
    p.stdout?.on('data', keep);
    p.stderr?.on('data', keep);
    await waitReady(url, p, () => output);
  };
  /** Ends the process: SIGTERM (SIGKILL after 10 s), or SIGKILL at once for a crash. */
  const end = async (signal: 'SIGTERM' | 'SIGKILL'): Promise<void> => {
    const p = proc;
    proc = null;
    if (!p || p.exitCode !== null) return;
    const exited = new Promise<void>((r) => p.once('exit', () => r()));
    p.kill(signal);
    // A stopped process keeps a SIGTERM pending until it is continued (SIGKILL needs no SIGCONT).
    if (paused) p.kill('SIGCONT');
    paused = false;
    const timer = setTimeout(() => p.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  const stop = () => end('SIGTERM');
  const kill = () => end('SIGKILL');
  const signal = async (sig: 'SIGSTOP' | 'SIGCONT'): Promise<void> => {
    const p = proc;
    if (!p || p.exitCode !== null || p.signalCode !== null)
      throw new Error(`engine at ${url} is not running: cannot ${sig} it`);
    p.kill(sig);
    paused = sig === 'SIGSTOP';
  };

  await start();
  return {
    kind,
    url,
    writeUrl: `${url}/api/v1/write`,
    dataDir,
    start,
    stop,
    kill,
    pause: () => signal('SIGSTOP'),
    resume: () => signal('SIGCONT'),
    async destroy() {
      await stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
