import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

export interface LoadResult {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly errors: number;
  readonly non2xx: number;
}

/** Closed-loop load: `connections` keep-alive clients for `seconds`. */
export async function load(url: string, connections: number, seconds: number): Promise<LoadResult> {
  const r = await autocannon({ url, connections, duration: seconds, pipelining: 1 });
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
  };
}

export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

export async function waitFor200(url: string, timeoutMs: number): Promise<number> {
  const start = performance.now();
  while (performance.now() - start < timeoutMs) {
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.status === 200) return performance.now() - start;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`);
}

/** A real `serve` needs SOURCE_URL to start (src/main.ts); the repository's own harness folders. */
const SOURCE_URL = 'https://github.com/citebench/citebench/tree/main/src/harness/families/{family}';

export function spawnNode(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, args, {
    env: { SOURCE_URL, ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

export function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

export function table(rows: readonly (readonly (string | number)[])[]): string {
  const cells = rows.map((r) => r.map((c) => (typeof c === 'number' ? c.toFixed(c >= 100 ? 0 : 2) : c)));
  const widths = cells[0]?.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length))) ?? [];
  return cells.map((r) => r.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ')).join('\n');
}
