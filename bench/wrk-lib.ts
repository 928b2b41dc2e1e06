/**
 * Helpers for the wrk benchmarks: load comes from wrk (its own process), the service and the bare
 * baseline run in their own processes, and every child and temp dir is removed on the way out
 * (normal end, error, SIGINT or SIGTERM).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../test/helpers/service-process.ts';

export const WRK = process.env.WRK_BIN ?? '/usr/bin/wrk';

// ---------------------------------------------------------------------------------------------
// Children and temp dirs

const children = new Set<ChildProcess>();
const tempDirs = new Set<string>();

/**
 * CPU pinning for ratio measurements: the server under test (service or bare) on CPU 0 and wrk on
 * CPU 1, through `taskset` (which execs, so the pid stays the program's). On this 2-core VM,
 * unpinned runs of one URL swung between 28k and 54k req/s; pinned, the spread within a round is a
 * few percent, and both servers get the same core. Off unless a script turns it on.
 */
let PIN = false;

/** Turns pinning on (when taskset and two CPUs exist); returns whether it is on. */
export function pinCpus(on: boolean): boolean {
  PIN = on && existsSync('/usr/bin/taskset') && cpus().length >= 2;
  return PIN;
}
export const SERVER_CPU = 0;
export const WRK_CPU = 1;

/** Spawns a tracked child: it is killed by `cleanup()` and on exit if still running. */
export function spawnTracked(
  command: string,
  args: readonly string[],
  opts: {
    env?: Record<string, string>;
    stdout?: 'ignore' | 'pipe';
    stderr?: 'ignore' | 'pipe' | 'inherit';
    /** Pins the child to this CPU when PIN is on. */
    cpu?: number;
  } = {},
): ChildProcess {
  if (PIN && opts.cpu !== undefined) {
    return spawnTracked('/usr/bin/taskset', ['-c', String(opts.cpu), command, ...args], {
      ...opts,
      cpu: undefined,
    });
  }
  const child = spawn(command, args, {
    env: { ...process.env, ...(opts.env ?? {}) },
    stdio: ['ignore', opts.stdout ?? 'ignore', opts.stderr ?? 'inherit'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** A process the current node runs with tsx loaded, so the spawned pid IS the program (no launcher). */
export function spawnTsx(
  script: string,
  args: readonly string[],
  opts: Parameters<typeof spawnTracked>[2] = {},
): ChildProcess {
  return spawnTracked(process.execPath, ['--import', 'tsx', script, ...args], opts);
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the child has exited. */
export function stopChild(child: ChildProcess, graceMs = 15_000): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

export async function makeTempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

function removeTempDirs(): void {
  for (const dir of tempDirs) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // best effort
    }
    tempDirs.delete(dir);
  }
}

/** Stops every tracked child (gracefully, bounded) and removes the temp dirs. */
export async function cleanup(): Promise<void> {
  await Promise.all([...children].map((c) => stopChild(c, 10_000)));
  removeTempDirs();
}

let installed = false;

/**
 * Children and temp dirs go away however the script ends: signals stop them gracefully (bounded)
 * and exit 130/143; the synchronous exit hook SIGKILLs whatever is left.
 */
export function installCleanup(): void {
  if (installed) return;
  installed = true;
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals, code: number) => {
    if (stopping) process.exit(code);
    stopping = true;
    process.stderr.write(`\n${signal}: stopping children …\n`);
    void cleanup().finally(() => process.exit(code));
  };
  process.on('SIGINT', () => onSignal('SIGINT', 130));
  process.on('SIGTERM', () => onSignal('SIGTERM', 143));
  process.on('exit', () => {
    for (const c of children) {
      if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    }
    removeTempDirs();
  });
}

/** Runs `main` with cleanup installed; cleans up and exits 1 on an error. */
export async function runMain(main: () => Promise<void>): Promise<void> {
  installCleanup();
  try {
    await main();
    await cleanup();
  } catch (e) {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    await cleanup();
    process.exit(1);
  }
}

// ---------------------------------------------------------------------------------------------
// Small utilities

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** VmRSS of a process in MB, from /proc/<pid>/status (null once it is gone). */
export function rssMb(pid: number): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /VmRSS:\s+(\d+)\s*kB/.exec(status)?.[1];
    return kb === undefined ? null : Number(kb) / 1024;
  } catch {
    return null;
  }
}

/** User + system CPU ticks of a process, from /proc/<pid>/stat. */
export function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // "pid (comm) state ppid …": comm may hold spaces, so split after the last ')'.
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]);
}

/** Seconds in a wrk duration ("5s", "2m", "1h", "300"). */
export function durationSeconds(d: string): number {
  const m = /^(\d+(?:\.\d+)?)([smh]?)$/.exec(d.trim());
  if (!m) throw new Error(`not a wrk duration: ${d} (e.g. 5s, 2m)`);
  const n = Number(m[1]);
  return m[2] === 'm' ? n * 60 : m[2] === 'h' ? n * 3600 : n;
}

export function machine(): {
  cpuModel: string;
  cpus: number;
  node: string;
  loadAverage: number[];
  wrk: string;
} {
  // `wrk -v` prints its version line (and exits 1).
  const v = spawnSync(WRK, ['-v'], { encoding: 'utf8', timeout: 5_000 });
  const wrk = `${v.stdout ?? ''}${v.stderr ?? ''}`.split('\n')[0]?.trim() || 'wrk';
  return {
    cpuModel: cpus()[0]?.model ?? 'cpu',
    cpus: cpus().length,
    node: process.version,
    loadAverage: loadavg().map((x) => Math.round(x * 100) / 100),
    wrk,
  };
}

export function machineLine(m: ReturnType<typeof machine>): string {
  return `machine: ${m.cpus} × ${m.cpuModel}, node ${m.node}, ${m.wrk}; load average at start ${m.loadAverage.join(' ')}`;
}

// ---------------------------------------------------------------------------------------------
// HTTP

export interface Captured {
  readonly status: number;
  /** Lower-cased names; repeated headers as arrays. */
  readonly headers: Record<string, string | string[]>;
  readonly body: Buffer;
}

/** Hop-by-hop and per-response headers the bare server's node:http sets itself. */
const DROP = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

/**
 * One GET the way wrk sends it (no Accept-Encoding, no conditional headers): the status, every
 * header but the hop-by-hop ones, and the body bytes.
 */
export function capture(url: string, timeoutMs = 30_000): Promise<Captured> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', agent: false, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const headers: Record<string, string | string[]> = {};
        const raw = res.rawHeaders;
        for (let i = 0; i + 1 < raw.length; i += 2) {
          const name = (raw[i] as string).toLowerCase();
          const value = raw[i + 1] as string;
          if (DROP.has(name)) continue;
          const prev = headers[name];
          headers[name] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
        }
        resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks) });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url} timed out after ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}

export async function getJson<T>(url: string, timeoutMs?: number): Promise<T> {
  const c = await capture(url, timeoutMs);
  if (c.status !== 200)
    throw new Error(`GET ${url} answered ${c.status}: ${c.body.toString().slice(0, 200)}`);
  return JSON.parse(c.body.toString('utf8')) as T;
}

/** Polls until `url` answers 200 (or any status with `anyStatus`); the ms it took. */
export async function waitFor200(
  url: string,
  timeoutMs: number,
  isAlive?: () => boolean,
  anyStatus = false,
): Promise<number> {
  const start = performance.now();
  while (performance.now() - start < timeoutMs) {
    if (isAlive && !isAlive()) throw new Error(`the process serving ${url} exited`);
    try {
      const c = await capture(url, 10_000);
      if (c.status === 200 || anyStatus) return performance.now() - start;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`);
}

// ---------------------------------------------------------------------------------------------
// wrk

export interface WrkResult {
  readonly rps: number;
  readonly p50Ms: number;
  readonly p75Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  readonly avgMs: number;
  readonly maxMs: number;
  readonly requests: number;
  readonly seconds: number;
  /** Socket errors: connect + read + write + timeout. */
  readonly errors: number;
  /** wrk's "Non-2xx or 3xx responses" (it counts statuses >= 400). */
  readonly non2xx: number;
}

function ms(value: string, unit: string): number {
  const n = Number(value);
  switch (unit) {
    case 'us':
      return n / 1000;
    case 'ms':
      return n;
    case 's':
      return n * 1000;
    case 'm':
      return n * 60_000;
    case 'h':
      return n * 3_600_000;
    default:
      throw new Error(`unknown wrk time unit "${unit}"`);
  }
}

/** Parses `wrk --latency` output. */
export function parseWrk(out: string): WrkResult {
  const num = (re: RegExp): number | undefined => {
    const m = re.exec(out);
    return m ? Number(m[1]) : undefined;
  };
  const time = (re: RegExp): number | undefined => {
    const m = re.exec(out);
    return m ? ms(m[1] as string, m[2] as string) : undefined;
  };
  const rps = num(/Requests\/sec:\s+([\d.]+)/);
  if (rps === undefined) throw new Error(`unexpected wrk output:\n${out}`);
  const latency = /Latency\s+([\d.]+)(us|ms|s|m|h)\s+([\d.]+)(us|ms|s|m|h)\s+([\d.]+)(us|ms|s|m|h)/.exec(out);
  const done = /(\d+) requests in ([\d.]+)(us|ms|s|m|h)/.exec(out);
  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  return {
    rps,
    p50Ms: time(/^\s+50%\s+([\d.]+)(us|ms|s|m|h)/m) ?? Number.NaN,
    p75Ms: time(/^\s+75%\s+([\d.]+)(us|ms|s|m|h)/m) ?? Number.NaN,
    p90Ms: time(/^\s+90%\s+([\d.]+)(us|ms|s|m|h)/m) ?? Number.NaN,
    p99Ms: time(/^\s+99%\s+([\d.]+)(us|ms|s|m|h)/m) ?? Number.NaN,
    avgMs: latency ? ms(latency[1] as string, latency[2] as string) : Number.NaN,
    maxMs: latency ? ms(latency[5] as string, latency[6] as string) : Number.NaN,
    requests: done ? Number(done[1]) : 0,
    seconds: done ? ms(done[2] as string, done[3] as string) / 1000 : 0,
    errors: sock ? sock.slice(1, 5).reduce((a, b) => a + Number(b), 0) : 0,
    non2xx: num(/Non-2xx or 3xx responses:\s+(\d+)/) ?? 0,
  };
}

export interface WrkOptions {
  readonly url: string;
  readonly duration: string;
  readonly connections: number;
  readonly threads?: number;
  /** A Lua script (-s) and the arguments after `--` it receives in init(args). */
  readonly script?: string;
  readonly scriptArgs?: readonly string[];
  /** wrk's socket/request timeout (--timeout), default 10s. */
  readonly timeout?: string;
}

/** Runs wrk with --latency and parses its report; killed if it overruns its duration by 30 s. */
export async function runWrk(o: WrkOptions): Promise<WrkResult & { raw: string }> {
  const args = [
    `-t${o.threads ?? 1}`,
    `-c${o.connections}`,
    `-d${o.duration}`,
    `--timeout`,
    o.timeout ?? '10s',
    '--latency',
    ...(o.script ? ['-s', o.script] : []),
    o.url,
    ...(o.scriptArgs?.length ? ['--', ...o.scriptArgs] : []),
  ];
  const child = spawnTracked(WRK, args, { stdout: 'pipe', stderr: 'pipe', cpu: WRK_CPU });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const limit = setTimeout(() => child.kill('SIGKILL'), (durationSeconds(o.duration) + 30) * 1000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  clearTimeout(limit);
  if (code !== 0) throw new Error(`wrk exited with ${code}: ${args.join(' ')}\n${out}`);
  return { ...parseWrk(out), raw: out };
}

// ---------------------------------------------------------------------------------------------
// The demo service in its own process

export interface DemoService {
  readonly child: ChildProcess;
  /** The server's own pid (node runs tsx as a loader, so there is no launcher in between). */
  readonly pid: number;
  readonly base: string;
  readonly dataDir: string;
  /** Seconds from spawn to the first 200 on /api/citable (includes a fresh DATA_DIR's backfill). */
  readonly readySeconds: number;
  /** Seconds from ready until idle (past days frozen, CPU quiet). */
  readonly settleSeconds: number;
  /** The last lines the service wrote to stderr. */
  logTail(): string[];
}

export function utcDay(offsetDays: number, now = Date.now()): string {
  return new Date(now + offsetDays * 86_400_000).toISOString().slice(0, 10);
}

/**
 * `npm run demo` as a child: `node --import tsx src/demo/main.ts`, with a fresh temp DATA_DIR
 * (backfilled with 3 days on start) unless `dataDir` is given. Resolves once it answers 200 on
 * /api/citable and is idle: every closed day frozen (/api/citable/<yesterday> answers 200 and
 * /api/dataset marks the closed days frozen), then CPU below 10% for a second (bounded), then 2 s.
 */
export async function startDemo(opts: {
  readonly speed: number;
  readonly dataDir?: string;
  readonly seed?: number;
  readonly readyTimeoutMs?: number;
  /** How long to wait for a quiet CPU once the past days are frozen (default 60 s). */
  readonly quietTimeoutMs?: number;
  readonly verbose?: boolean;
  /**
   * Data that holds still: once the demo has backfilled and frozen its days it is stopped and the
   * same DATA_DIR is served by `citebench serve --simulate` with HARNESS_ENABLED=false, so no live
   * harness cycle (with its simulator, in the same process) competes with the measured requests.
   */
  readonly still?: boolean;
}): Promise<DemoService> {
  const dataDir = opts.dataDir ?? (await makeTempDir('citebench-wrk-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const t0 = performance.now();
  const tail: string[] = [];
  /** `node <args>`: the spawned pid is the service itself (no npm or tsx launcher in between). */
  const launch = (args: readonly string[], env: Record<string, string>) => {
    const child = spawnTracked(process.execPath, args, {
      env: { PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info', ...env },
      stdout: 'ignore',
      stderr: 'pipe',
      cpu: SERVER_CPU,
    });
    let partial = '';
    child.stderr?.on('data', (d: Buffer) => {
      const text = partial + d.toString();
      const lines = text.split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        tail.push(line);
        if (tail.length > 40) tail.shift();
        if (opts.verbose) process.stderr.write(`  [service] ${line}\n`);
      }
    });
    const pid = child.pid;
    if (pid === undefined) throw new Error(`could not spawn node ${args.join(' ')}`);
    return { child, pid, alive: () => child.exitCode === null && child.signalCode === null };
  };
  const ready = async (p: ReturnType<typeof launch>) => {
    try {
      await waitFor200(`${base}/api/citable`, opts.readyTimeoutMs ?? 300_000, p.alive);
    } catch (e) {
      throw new Error(`${e instanceof Error ? e.message : String(e)}\nservice log:\n${tail.join('\n')}`);
    }
  };
  const idle = async (p: ReturnType<typeof launch>) => {
    await waitFor200(`${base}/api/citable/${utcDay(-1)}`, 300_000, p.alive);
    const today = utcDay(0);
    for (const deadline = Date.now() + 300_000; Date.now() < deadline; await sleep(250)) {
      const ds = await getJson<{ days: { date: string; frozen: boolean }[] }>(`${base}/api/dataset`);
      if (ds.days.every((d) => d.date >= today || d.frozen)) break;
    }
    // Quiet CPU: < 10% of one core over a second, bounded (a fast DEMO_SPEED is never quiet).
    const hz = 100;
    for (const deadline = Date.now() + (opts.quietTimeoutMs ?? 60_000); Date.now() < deadline; ) {
      const before = cpuTicks(p.pid);
      await sleep(1000);
      if (cpuTicks(p.pid) - before < hz * 0.1) break;
    }
    await sleep(2000);
  };

  let svc = launch(['--import', 'tsx', 'src/demo/main.ts'], {
    DEMO_SPEED: String(opts.speed),
    ...(opts.seed !== undefined ? { DEMO_SEED: String(opts.seed) } : {}),
  });
  process.stderr.write(`starting the demo (DEMO_SPEED=${opts.speed}, DATA_DIR=${dataDir}) on ${base} …\n`);
  await ready(svc);
  const readySeconds = (performance.now() - t0) / 1000;
  process.stderr.write(`demo answering after ${readySeconds.toFixed(1)} s; waiting for it to be idle …\n`);
  const t1 = performance.now();
  await idle(svc);
  if (opts.still) {
    await stopChild(svc.child);
    svc = launch(['bin/citebench.mjs', 'serve', '--simulate'], { HARNESS_ENABLED: 'false' });
    process.stderr.write('serving the same data with the harness off (citebench serve --simulate) …\n');
    await ready(svc);
    await idle(svc);
  }
  const settleSeconds = (performance.now() - t1) / 1000;
  process.stderr.write(`service idle after another ${settleSeconds.toFixed(1)} s\n`);
  return {
    child: svc.child,
    pid: svc.pid,
    base,
    dataDir,
    readySeconds,
    settleSeconds,
    logTail: () => [...tail],
  };
}

// ---------------------------------------------------------------------------------------------
// Concrete URLs from the live service

interface StatBody {
  readonly rankings?: readonly { readonly slug: string }[];
  readonly bestPerChain?: Readonly<Record<string, unknown>> | null;
}

/** Concrete values for route templates, taken from the live service. */
export interface Values {
  readonly slugs: readonly string[];
  readonly providers: ReadonlyMap<string, readonly string[]>;
  readonly chain: { slug: string; value: string } | undefined;
  readonly day: string;
  readonly pair: readonly [string, string];
}

export async function liveValues(base: string): Promise<Values> {
  const citable = await getJson<{ benchmarks: { slug: string }[] }>(`${base}/api/citable`);
  const slugs = citable.benchmarks.map((b) => b.slug);
  if (slugs.length === 0) throw new Error('/api/citable lists no benchmark');
  const providers = new Map<string, string[]>();
  let chain: Values['chain'];
  for (const slug of slugs) {
    const stat = await getJson<StatBody>(`${base}/api/stat/${slug}`);
    providers.set(
      slug,
      (stat.rankings ?? []).map((r) => r.slug),
    );
    const firstChain = Object.keys(stat.bestPerChain ?? {})[0];
    if (!chain && firstChain) chain = { slug, value: firstChain };
  }
  const ds = await getJson<{ days: { date: string; frozen: boolean }[] }>(`${base}/api/dataset`);
  const day = ds.days.filter((d) => d.frozen).at(-1)?.date ?? utcDay(-1);
  // Two providers found in the most benchmarks (a compare page is richer with shared benchmarks).
  const seen = new Map<string, number>();
  for (const list of providers.values()) for (const p of list) seen.set(p, (seen.get(p) ?? 0) + 1);
  const ranked = [...seen.entries()].sort((a, b) => b[1] - a[1]).map(([p]) => p);
  const first = ranked[0];
  const partner = [...providers.values()].find((l) => first && l.includes(first))?.find((p) => p !== first);
  if (!first || !partner) throw new Error('no two providers share a benchmark');
  return { slugs, providers, chain, day, pair: [first, partner] };
}

// ---------------------------------------------------------------------------------------------
// Output

export function markdownTable(rows: readonly (readonly (string | number)[])[]): string {
  const fmt = (c: string | number) =>
    typeof c === 'number'
      ? Number.isFinite(c)
        ? c.toFixed(Number.isInteger(c) || Math.abs(c) >= 100 ? 0 : 2)
        : '—'
      : c;
  const [head, ...body] = rows.map((r) => r.map(fmt));
  if (!head) return '';
  return [
    `| ${head.join(' | ')} |`,
    `| ${head.map(() => '---').join(' | ')} |`,
    ...body.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}

/** Least-squares slope of y over x. */
export function slope(points: readonly { x: number; y: number }[]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((a, p) => a + p.x, 0) / n;
  const my = points.reduce((a, p) => a + p.y, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.x - mx) * (p.y - my);
    den += (p.x - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

export { freePort };

/** Writes a script's results to bench/results/<name>.json (gitignored) and says so on stderr. */
export async function writeResults(name: string, data: unknown): Promise<void> {
  const dir = join(import.meta.dirname, 'results');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, `${name}.json`), `${JSON.stringify(data, null, 2)}\n`);
  process.stderr.write(`wrote bench/results/${name}.json\n`);
}
