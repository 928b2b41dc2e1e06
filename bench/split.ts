/**
 * Issue 27, a split deployment (`npm run bench:split`): one writer, `citebench harness --simulate`,
 * fills a real Prometheus by remote write; one API replica, `citebench serve --simulate` with
 * STORE=prometheus and HARNESS_ENABLED=false, follows it by polling the engine every
 * REPLICA_POLL_MS. Both share SNAPSHOT_DIR (the replica follows the writer's demo clock there),
 * BENCHMARKS_DIR and BASE_URL. Everything listens on 127.0.0.1. Three figures:
 *
 * 1. Commit → replica, per writer cycle: from the engine's 2xx to the writer's remote write (stamped
 *    by a pass-through proxy between writer and engine) until the replica's /api/freshness, polled
 *    every 50 ms, first shows the benchmark's newest sample time at or after that cycle's newest
 *    sample. Target: p99 < REPLICA_POLL_MS + 1 s.
 * 2. Queries per poll: a counting pass-through proxy is the replica's PROMETHEUS_URL. A poll is
 *    recognised by its marker read's `count_over_time({__name__="harness_cycle"}[…])` (sent once
 *    per `latest()` call on the marker, beside the raw read of the last 7 days); every request from
 *    1 s before one marker read to 1 s before the next is that poll's (polls start every
 *    REPLICA_POLL_MS and one poll's reads take well under a second, so none reaches into the next).
 * 3. Replica RSS: VmRSS of the replica's own node process (spawned directly, no npm or sh between),
 *    sampled every second while measuring and read once more at the end.
 *
 * Which cycle a write carries: the writer's proxy decodes the remote-write body itself (snappy, then
 * the four fields of prompb.WriteRequest), rather than querying the engine after each
 * acknowledgement as the issue suggested: two families write at nearly the same slot, and a query
 * sent after the first write's 2xx could already see the second write, pinning the second cycle to
 * the first one's (earlier) acknowledgement. The body says exactly which samples the 2xx covers.
 * A cycle's target is its newest sample of the benchmark's own metrics (specMetrics, what
 * /api/freshness reports), not its harness_cycle marker time.
 *
 * The engine's flags come from test/helpers/engines.ts (engineArgs, PROMETHEUS_CONFIG,
 * requireBinary), imported rather than copied so the bench runs the engine the tests run; the
 * engine is spawned here, not through startEngine, so the bench's own cleanup (wrk-lib.ts: normal
 * end, failure, SIGINT, SIGTERM, exit) stops it with the writer and the replica.
 *
 * The demo clock runs DEMO_SPEED times the wall clock from the writer's start, so its samples lie
 * ever further ahead of the wall clock (599 h per wall hour at 600×). The engine store searches up
 * to two days past the service's clock (the replica follows the writer's), so they stay found; the
 * report still prints each cycle's lead and a note when cycles went unpublished (before that fix,
 * every cycle more than ~34 h ahead was never published, ~200 s after the writer started).
 *
 * Settings (environment): SPLIT_CYCLES (50), SPLIT_SPEED (DEMO_SPEED, 600), SPLIT_POLL_MS
 * (REPLICA_POLL_MS, unset: the service's default 5000), SPLIT_DEMO_DAYS (0.25). Only
 * providers.yml, network-coverage.yml and token-trade-coverage.yml are copied from benchmarks/: the
 * json-rpc family's anvil chains take a minute to build.
 */
import type { ChildProcess } from 'node:child_process';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, writeFile } from 'node:fs/promises';
import { Agent, createServer, type IncomingHttpHeaders, request } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { uncompress } from 'snappyjs';
import { specMetrics } from '../src/publication/compute.ts';
import { loadSpecs } from '../src/publication/load-specs.ts';
import { engineArgs, PROMETHEUS_CONFIG, requireBinary } from '../test/helpers/engines.ts';
import {
  freePort,
  makeTempDir,
  markdownTable,
  rssMb,
  runMain,
  sleep,
  spawnTracked,
  waitFor200,
  writeResults,
} from './wrk-lib.ts';

const ROOT = resolve(import.meta.dirname, '..');
const CLI = join(ROOT, 'bin/citebench.mjs');
const BENCHMARK_FILES = ['providers.yml', 'network-coverage.yml', 'token-trade-coverage.yml'];

function intEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number (got "${raw}")`);
  return n;
}

const CYCLES = Math.trunc(intEnv('SPLIT_CYCLES', 50));
const SPEED = intEnv('SPLIT_SPEED', 600);
const POLL_SET = process.env.SPLIT_POLL_MS;
/** The service's default REPLICA_POLL_MS (src/store/prometheus-config.ts) when SPLIT_POLL_MS is unset. */
const POLL_MS = Math.trunc(intEnv('SPLIT_POLL_MS', 5_000));
const DEMO_DAYS = process.env.SPLIT_DEMO_DAYS ?? '0.25';
const TARGET_P99_MS = POLL_MS + 1_000;
/** How often the replica's /api/freshness is read: the latency's resolution. */
const FRESHNESS_EVERY_MS = 50;
/** A cycle the replica has not published after this long is recorded as timed out. */
const GIVE_UP_MS = 3 * POLL_MS + 20_000;
const BASE_URL = 'https://bench.example.org';
/** The replica's marker read (store-follower.ts → PrometheusReader.latest): once per poll. */
const MARKER_READ = /^count_over_time\(\{__name__="harness_cycle"\}\[\d+ms\]\)$/;

// ---------------------------------------------------------------------------------------------
// Remote write bodies: snappy block, then WriteRequest{ timeseries=1: TimeSeries{ labels=1:
// Label{name=1, value=2}, samples=2: Sample{value=1 (double), timestamp=2 (int64)} } }.

interface WrittenSeries {
  readonly labels: Record<string, string>;
  readonly samples: { t: number; v: number }[];
}

class ProtoReader {
  private pos = 0;
  constructor(private readonly buf: Uint8Array) {}

  get done(): boolean {
    return this.pos >= this.buf.length;
  }

  varint(): bigint {
    let x = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (this.pos >= this.buf.length) throw new Error('remote write body: truncated varint');
      const b = this.buf[this.pos++] as number;
      x |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return x;
    }
  }

  /** The next field's number and wire type. */
  field(): { no: number; wire: number } {
    const tag = Number(this.varint());
    return { no: tag >>> 3, wire: tag & 7 };
  }

  /** A length-delimited field's bytes. */
  bytes(): Uint8Array {
    const len = Number(this.varint());
    if (this.pos + len > this.buf.length) throw new Error('remote write body: truncated field');
    const b = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return b;
  }

  sub(): ProtoReader {
    return new ProtoReader(this.bytes());
  }

  double(): number {
    const v = new DataView(this.buf.buffer, this.buf.byteOffset + this.pos, 8).getFloat64(0, true);
    this.pos += 8;
    return v;
  }

  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) this.bytes();
    else if (wire === 5) this.pos += 4;
    else throw new Error(`remote write body: unknown wire type ${wire}`);
  }
}

function decodeWriteRequest(body: Buffer): WrittenSeries[] {
  const raw = uncompress(new Uint8Array(body.buffer, body.byteOffset, body.length));
  const req = new ProtoReader(raw);
  const out: WrittenSeries[] = [];
  const utf8 = new TextDecoder();
  while (!req.done) {
    const f = req.field();
    if (f.no !== 1 || f.wire !== 2) {
      req.skip(f.wire);
      continue;
    }
    const ts = req.sub();
    const series: WrittenSeries = { labels: {}, samples: [] };
    while (!ts.done) {
      const g = ts.field();
      if (g.wire !== 2) {
        ts.skip(g.wire);
        continue;
      }
      const m = ts.sub();
      if (g.no === 1) {
        let name = '';
        let value = '';
        while (!m.done) {
          const h = m.field();
          if (h.wire !== 2) {
            m.skip(h.wire);
            continue;
          }
          const text = utf8.decode(m.bytes());
          if (h.no === 1) name = text;
          else if (h.no === 2) value = text;
        }
        series.labels[name] = value;
      } else if (g.no === 2) {
        let v = Number.NaN;
        let t = Number.NaN;
        while (!m.done) {
          const h = m.field();
          if (h.no === 1 && h.wire === 1) v = m.double();
          else if (h.no === 2 && h.wire === 0) t = Number(BigInt.asIntN(64, m.varint()));
          else m.skip(h.wire);
        }
        series.samples.push({ t, v });
      }
    }
    out.push(series);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Pass-through proxies

interface Exchange {
  readonly method: string;
  readonly path: string;
  readonly body: Buffer;
  readonly status: number;
  /** performance.now() once the request's body had arrived (it is forwarded then). */
  readonly receivedAt: number;
  /** performance.now() when the engine's status line and headers came back. */
  readonly answeredAt: number;
}

interface Proxy {
  readonly port: number;
  readonly url: string;
  close(): Promise<void>;
}

/** A loopback HTTP proxy to the engine that reports each exchange before relaying the answer. */
async function startProxy(enginePort: number, onExchange: (e: Exchange) => void): Promise<Proxy> {
  const agent = new Agent({ keepAlive: true });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const receivedAt = performance.now();
      const headers: IncomingHttpHeaders = { ...req.headers, host: `127.0.0.1:${enginePort}` };
      delete headers['transfer-encoding'];
      if (body.length > 0 || req.method !== 'GET') headers['content-length'] = String(body.length);
      const method = req.method ?? 'GET';
      const path = req.url ?? '/';
      const up = request({ host: '127.0.0.1', port: enginePort, method, path, headers, agent }, (ur) => {
        const answeredAt = performance.now();
        const status = ur.statusCode ?? 0;
        try {
          onExchange({ method, path, body, status, receivedAt, answeredAt });
        } catch (e) {
          failures.push(`proxy: ${e instanceof Error ? e.message : String(e)}`);
        }
        res.writeHead(status, ur.headers);
        ur.pipe(res);
      });
      up.on('error', (e) => {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`proxy: ${e.message}`);
      });
      up.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const a = server.address();
  const port = typeof a === 'object' && a ? a.port : 0;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
        agent.destroy();
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// Child output

interface Watched {
  readonly child: ChildProcess;
  readonly pid: number;
  text(): string;
  alive(): boolean;
  /** Resolves with the first match of `re` in the output; rejects on exit or after `ms`. */
  waitFor(re: RegExp, ms: number): Promise<RegExpMatchArray>;
}

function watch(name: string, child: ChildProcess): Watched {
  let text = '';
  const keep = (d: Buffer) => {
    text += d.toString();
    // Bounded: the writer logs a line per cycle; 8 MB is far more than a run writes.
    if (text.length > 8_000_000) text = text.slice(-4_000_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not spawn the ${name}`);
  const alive = () => child.exitCode === null && child.signalCode === null;
  return {
    child,
    pid,
    text: () => text,
    alive,
    async waitFor(re, ms) {
      const end = performance.now() + ms;
      for (;;) {
        if (interrupted) {
          await sleep(100);
          continue;
        }
        const m = re.exec(text);
        if (m) return m;
        if (!alive())
          throw new Error(`the ${name} exited (${child.exitCode}) before ${re}:\n${text.slice(-3000)}`);
        if (performance.now() > end)
          throw new Error(`no ${re} from the ${name} within ${ms} ms:\n${text.slice(-3000)}`);
        await sleep(100);
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Measurement state

interface Cycle {
  readonly slug: string;
  /** The cycle's slot: its harness_cycle marker time (simulated epoch ms). */
  readonly slot: number;
  /** Its newest sample of the benchmark's own metrics: what /api/freshness must reach. */
  readonly newestSample: number;
  /** performance.now() of the engine's 2xx to the write. */
  readonly committedAt: number;
  /** How far the sample lies ahead of the wall clock at the commit (the demo clock runs fast). */
  readonly leadMs: number;
  /** performance.now() of the first /api/freshness answer showing it. */
  publishedAt?: number;
  /** performance.now() of the marker read of the poll that published it (the last before publishedAt). */
  pollAt?: number;
  timedOut?: boolean;
}

interface ReplicaRequest {
  readonly at: number;
  readonly path: string;
  readonly query: string;
  readonly status: number;
}

const failures: string[] = [];
/** Set by SIGINT or SIGTERM: wrk-lib.ts's handler stops the children and exits; nothing here fails. */
let interrupted = false;
const cycles: Cycle[] = [];
const replicaRequests: ReplicaRequest[] = [];
let measuring = false;
let writesMeasured = 0;
let failedMarkers = 0;
let cyclesWithoutSamples = 0;

function pct(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

const round = (x: number, d = 0) => (Number.isFinite(x) ? Math.round(x * 10 ** d) / 10 ** d : null);

/** "{__name__=\"x\"}[604800000ms]" → a shape with numbers folded, for the request breakdown. */
function shape(r: ReplicaRequest): string {
  const q = r.query.replace(/\d+(ms|s)?/g, 'N').replace(/\s+/g, ' ');
  return `${r.path.replace(/\?.*$/, '')} ${q.length > 110 ? `${q.slice(0, 107)}…` : q}`;
}

function queryOf(e: Exchange): string {
  const qs = e.path.indexOf('?');
  const params = new URLSearchParams(
    e.method === 'POST' ? e.body.toString('utf8') : qs >= 0 ? e.path.slice(qs + 1) : '',
  );
  return params.get('query') ?? params.getAll('match[]').join(' ');
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function getText(url: string, timeoutMs = 10_000): Promise<{ status: number; body: string }> {
  return new Promise((resolveGet, reject) => {
    const req = request(url, { agent, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () =>
        resolveGet({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url} timed out after ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}

interface FreshnessBody {
  readonly now: number;
  readonly freshness: Readonly<Record<string, number>>;
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  process.chdir(ROOT);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      interrupted = true;
    });
  }
  const runStart = performance.now();
  // The whole run is bounded, whatever hangs.
  setTimeout(() => {
    process.stderr.write('split: did not finish within 25 min; stopping\n');
    process.kill(process.pid, 'SIGTERM');
  }, 25 * 60_000).unref();

  const prometheusBin = requireBinary('prometheus');
  const promVersion =
    spawnSync(prometheusBin, ['--version'], { encoding: 'utf8', timeout: 10_000 })
      .stdout?.split('\n')[0]
      ?.replace(/\s*\(.*$/, '')
      .trim() ?? 'prometheus';
  const machine = {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'cpu',
    node: process.version,
    engine: promVersion,
    loadAverage: loadavg().map((x) => Math.round(x * 100) / 100),
  };
  const machineLine = `machine: ${machine.cpus} × ${machine.cpuModel}, node ${machine.node}, ${machine.engine}; load average at start ${machine.loadAverage.join(' ')}`;
  process.stderr.write(`${machineLine}\n`);
  const settings = {
    cycles: CYCLES,
    demoSpeed: SPEED,
    replicaPollMs: POLL_MS,
    replicaPollMsFrom: POLL_SET ? 'SPLIT_POLL_MS' : 'the service default (REPLICA_POLL_MS unset)',
    demoDays: DEMO_DAYS,
    freshnessReadEveryMs: FRESHNESS_EVERY_MS,
    giveUpMs: GIVE_UP_MS,
    benchmarks: BENCHMARK_FILES,
  };
  process.stderr.write(
    `settings: ${CYCLES} cycles, DEMO_SPEED=${SPEED}, REPLICA_POLL_MS=${POLL_MS} (${settings.replicaPollMsFrom}), DEMO_DAYS=${DEMO_DAYS}, /api/freshness read every ${FRESHNESS_EVERY_MS} ms\n`,
  );

  // The benchmarks: the trade and listing families only.
  const benchDir = await makeTempDir('cb-bench-split-bench-');
  for (const f of BENCHMARK_FILES) await copyFile(join(ROOT, 'benchmarks', f), join(benchDir, f));
  const specs = await loadSpecs(benchDir);
  const metricsOf = new Map(specs.map((s) => [s.slug, new Set(specMetrics(s))]));

  // The engine.
  const engineDir = await makeTempDir('cb-bench-split-prometheus-');
  await writeFile(join(engineDir, 'prometheus.yml'), PROMETHEUS_CONFIG);
  const enginePort = await freePort();
  const engineUrl = `http://127.0.0.1:${enginePort}`;
  const engine = watch(
    'engine',
    spawnTracked(prometheusBin, engineArgs('prometheus', engineDir, enginePort), {
      stdout: 'pipe',
      stderr: 'pipe',
    }),
  );
  await waitFor200(`${engineUrl}/-/ready`, 60_000, () => interrupted || engine.alive());

  // The writer's proxy: stamps each acknowledged remote write and reads which cycles it holds.
  const onWrite = (e: Exchange) => {
    if (e.method !== 'POST' || !e.path.startsWith('/api/v1/write') || e.status < 200 || e.status > 299)
      return;
    if (!measuring) return;
    writesMeasured++;
    const series = decodeWriteRequest(e.body);
    const markers = new Map<string, number>();
    for (const s of series) {
      if (s.labels.__name__ !== 'harness_cycle') continue;
      const slug = s.labels.benchmark;
      if (slug === undefined) continue;
      for (const x of s.samples) {
        if (s.labels.failure !== undefined || x.v !== 1) failedMarkers++;
        else markers.set(slug, Math.max(markers.get(slug) ?? x.t, x.t));
      }
    }
    for (const [slug, slot] of markers) {
      const metrics = metricsOf.get(slug);
      let newest = Number.NEGATIVE_INFINITY;
      for (const s of series) {
        if (!metrics?.has(s.labels.__name__ ?? '')) continue;
        for (const x of s.samples) newest = Math.max(newest, x.t);
      }
      if (!Number.isFinite(newest)) {
        cyclesWithoutSamples++;
        continue;
      }
      if (cycles.length >= CYCLES) continue;
      if (cycles.some((c) => c.slug === slug && c.slot === slot)) continue;
      cycles.push({
        slug,
        slot,
        newestSample: newest,
        committedAt: e.answeredAt,
        leadMs: newest - Date.now(),
      });
    }
  };
  const writerProxy = await startProxy(enginePort, onWrite);
  // The replica's proxy: counts every request (only while measuring).
  const replicaProxy = await startProxy(enginePort, (e) => {
    if (!measuring) return;
    replicaRequests.push({ at: e.receivedAt, path: e.path, query: queryOf(e), status: e.status });
  });

  try {
    // The writer.
    const snapshotDir = await makeTempDir('cb-bench-split-snap-');
    const writerData = await makeTempDir('cb-bench-split-writer-');
    const writerStart = performance.now();
    const writer = watch(
      'writer',
      spawnTracked(process.execPath, [CLI, 'harness', '--simulate'], {
        env: {
          STORE: 'prometheus',
          PROMETHEUS_URL: writerProxy.url,
          SNAPSHOT_DIR: snapshotDir,
          DATA_DIR: writerData,
          BENCHMARKS_DIR: benchDir,
          BASE_URL,
          HOST: '127.0.0.1',
          HARNESS_METRICS_PORT: String(await freePort()),
          DEMO_DAYS,
          DEMO_SPEED: String(SPEED),
          LOG_LEVEL: 'info',
        },
        stdout: 'pipe',
        stderr: 'pipe',
      }),
    );
    process.stderr.write(
      `writer pid ${writer.pid}: citebench harness --simulate (DEMO_DAYS=${DEMO_DAYS}) …\n`,
    );
    // The replica follows the writer's clock: start it once the writer has published it.
    const clockFile = join(snapshotDir, 'demo-clock.json');
    for (const end = performance.now() + 120_000; !existsSync(clockFile); await sleep(100)) {
      if (!interrupted && !writer.alive())
        throw new Error(`the writer exited:\n${writer.text().slice(-3000)}`);
      if (performance.now() > end)
        throw new Error(`no ${clockFile} within 120 s:\n${writer.text().slice(-3000)}`);
    }

    // The replica: its own DATA_DIR and PORT, the same SNAPSHOT_DIR, BENCHMARKS_DIR and BASE_URL.
    const replicaPort = await freePort();
    const replicaBase = `http://127.0.0.1:${replicaPort}`;
    const replica = watch(
      'replica',
      spawnTracked(process.execPath, [CLI, 'serve', '--simulate'], {
        env: {
          STORE: 'prometheus',
          PROMETHEUS_URL: replicaProxy.url,
          HARNESS_ENABLED: 'false',
          SNAPSHOT_DIR: snapshotDir,
          DATA_DIR: await makeTempDir('cb-bench-split-replica-'),
          BENCHMARKS_DIR: benchDir,
          BASE_URL,
          HOST: '127.0.0.1',
          PORT: String(replicaPort),
          DEMO_SPEED: String(SPEED),
          LOG_LEVEL: 'info',
          ...(POLL_SET ? { REPLICA_POLL_MS: String(POLL_MS) } : {}),
        },
        stdout: 'pipe',
        stderr: 'pipe',
      }),
    );
    process.stderr.write(`replica pid ${replica.pid}: citebench serve --simulate on ${replicaBase} …\n`);

    const [ready] = await Promise.all([
      writer.waitFor(/ harness ready backfilledCycles=(\d+)/, 600_000),
      waitFor200(`${replicaBase}/healthz`, 600_000, () => interrupted || replica.alive()),
    ]);
    const readySeconds = (performance.now() - writerStart) / 1000;
    process.stderr.write(
      `both ready after ${readySeconds.toFixed(1)} s (writer backfilled ${ready[1]} cycles); measuring ${CYCLES} cycles …\n`,
    );

    // Measure.
    measuring = true;
    const measureStart = performance.now();
    let rssMax = 0;
    let lastRss = 0;
    let lastFresh: FreshnessBody | null = null;
    let freshnessReads = 0;
    let freshnessErrors = 0;
    let reported = 0;
    // Bounded: the writer's cycles come every 30 simulated minutes (3 s at 600×); four times that.
    const measureEnd = measureStart + ((CYCLES * 1_800_000) / SPEED) * 4 + GIVE_UP_MS + 60_000;
    for (;;) {
      // A signal's cleanup (wrk-lib.ts) stops the children and exits: their exit is no failure.
      if (interrupted) {
        await sleep(1_000);
        continue;
      }
      if (!writer.alive())
        throw new Error(`the writer exited while measuring:\n${writer.text().slice(-3000)}`);
      if (!replica.alive())
        throw new Error(`the replica exited while measuring:\n${replica.text().slice(-3000)}`);
      const now = performance.now();
      if (now - lastRss >= 1_000) {
        lastRss = now;
        rssMax = Math.max(rssMax, rssMb(replica.pid) ?? 0);
      }
      try {
        const r = await getText(`${replicaBase}/api/freshness`);
        const at = performance.now();
        freshnessReads++;
        if (r.status !== 200) freshnessErrors++;
        else {
          const f = JSON.parse(r.body) as FreshnessBody;
          lastFresh = f;
          for (const c of cycles) {
            if (c.publishedAt !== undefined || c.timedOut) continue;
            const shown = f.freshness[c.slug];
            if (shown !== undefined && shown >= c.newestSample) c.publishedAt = at;
          }
        }
      } catch {
        freshnessErrors++;
      }
      const t = performance.now();
      for (const c of cycles) {
        if (c.publishedAt === undefined && !c.timedOut && t - c.committedAt > GIVE_UP_MS) c.timedOut = true;
      }
      const settled = cycles.filter((c) => c.publishedAt !== undefined || c.timedOut).length;
      if (settled >= reported + 10) {
        reported = settled - (settled % 10);
        process.stderr.write(`  ${settled}/${CYCLES} cycles settled\n`);
      }
      if (cycles.length >= CYCLES && settled === cycles.length) break;
      if (t > measureEnd) {
        failures.push(`only ${cycles.length} of ${CYCLES} cycles committed in the time allowed`);
        for (const c of cycles) if (c.publishedAt === undefined) c.timedOut = true;
        break;
      }
      await sleep(FRESHNESS_EVERY_MS);
    }
    measuring = false;
    const measuredEnd = performance.now();
    const rssEnd = rssMb(replica.pid);
    rssMax = Math.max(rssMax, rssEnd ?? 0);
    const demoLeadHours = lastFresh === null ? Number.NaN : (lastFresh.now - Date.now()) / 3_600_000;

    // Latency.
    const published = cycles.filter((c): c is Cycle & { publishedAt: number } => c.publishedAt !== undefined);
    const latency = published.map((c) => c.publishedAt - c.committedAt).sort((a, b) => a - b);
    const timedOut = cycles.filter((c) => c.timedOut).length;
    const p50 = pct(latency, 50);
    const p99 = pct(latency, 99);
    const max = latency.at(-1) ?? Number.NaN;

    // Polls: windows from 1 s before one marker read to 1 s before the next.
    const markerReads = replicaRequests.filter((r) => MARKER_READ.test(r.query)).map((r) => r.at);
    const windows = markerReads.map((at, i) => ({
      markerAt: at,
      from: at - 1_000,
      to: (markerReads[i + 1] ?? measuredEnd + 1_000) - 1_000,
      requests: [] as ReplicaRequest[],
    }));
    const beforeFirstPoll: ReplicaRequest[] = [];
    for (const r of replicaRequests) {
      const w = windows.find((x) => r.at >= x.from && r.at < x.to);
      if (w) w.requests.push(r);
      else beforeFirstPoll.push(r);
    }
    const perPoll = windows.map((w) => w.requests.length);
    const polls = perPoll.length;
    const meanPerPoll = polls === 0 ? Number.NaN : perPoll.reduce((a, b) => a + b, 0) / polls;
    const maxPerPoll = polls === 0 ? Number.NaN : Math.max(...perPoll);
    const measuredSeconds = (measuredEnd - measureStart) / 1000;
    const pollsByClock = (measuredSeconds * 1000) / POLL_MS;
    const polledMoved = windows.filter((w) => w.requests.length > 2).length;
    const shapes = new Map<string, number>();
    for (const r of replicaRequests) shapes.set(shape(r), (shapes.get(shape(r)) ?? 0) + 1);
    const non2xx = replicaRequests.filter((r) => r.status < 200 || r.status > 299).length;

    // Where each cycle's time went: waiting for the poll that published it, then that poll's work.
    const split = published.map((c) => {
      const poll = markerReads.filter((m) => m <= c.publishedAt).at(-1);
      c.pollAt = poll;
      return poll === undefined
        ? { wait: Number.NaN, work: Number.NaN }
        : { wait: poll - c.committedAt, work: c.publishedAt - poll };
    });
    const work = split
      .map((s) => s.work)
      .filter(Number.isFinite)
      .sort((a, b) => a - b);
    const slowest = [...published]
      .sort((a, b) => b.publishedAt - b.committedAt - (a.publishedAt - a.committedAt))
      .slice(0, 5);

    const replicaLog = replica.text();
    const oddLines = replicaLog.split('\n').filter((l) => / (WARN|ERROR) /.test(l));
    const writerOdd = writer
      .text()
      .split('\n')
      .filter((l) => / (WARN|ERROR) /.test(l) || /cycle failed/.test(l));
    const bySlug = [...new Set(cycles.map((c) => c.slug))].map((slug) => {
      const l = published
        .filter((c) => c.slug === slug)
        .map((c) => c.publishedAt - c.committedAt)
        .sort((a, b) => a - b);
      return {
        slug,
        cycles: cycles.filter((c) => c.slug === slug).length,
        p50: pct(l, 50),
        max: l.at(-1) ?? Number.NaN,
      };
    });

    const leadRange = (list: readonly Cycle[]) => {
      if (list.length === 0) return '—';
      const h = list.map((c) => c.leadMs / 3_600_000);
      return `${Math.min(...h).toFixed(1)} to ${Math.max(...h).toFixed(1)} h`;
    };
    const yes = (b: boolean) => (b ? 'yes' : '**NO**');
    const met = timedOut === 0 && published.length > 0 && p99 < TARGET_P99_MS;
    const out = [
      '',
      machineLine,
      `settings: DEMO_SPEED=${SPEED}, REPLICA_POLL_MS=${POLL_MS} (${settings.replicaPollMsFrom}), DEMO_DAYS=${DEMO_DAYS}, ${CYCLES} cycles, /api/freshness read every ${FRESHNESS_EVERY_MS} ms, benchmarks ${specs.map((s) => `${s.slug} (${s.cadence})`).join(', ')}`,
      `writer + replica ready after ${readySeconds.toFixed(1)} s; measured for ${measuredSeconds.toFixed(1)} s (${writesMeasured} acknowledged writes); demo clock ${Number.isFinite(demoLeadHours) ? demoLeadHours.toFixed(1) : '?'} h ahead of the wall clock at the end`,
      '',
      markdownTable([
        ['figure', 'measured', 'target', 'met?'],
        ['commit → replica, p50 (ms)', p50, '—', '—'],
        [
          `commit → replica, p99 (ms) (nearest rank of ${published.length})`,
          p99,
          `< ${TARGET_P99_MS}`,
          yes(met),
        ],
        ['commit → replica, max (ms)', max, '—', '—'],
        [`cycles not published within ${GIVE_UP_MS / 1000} s`, timedOut, '0', yes(timedOut === 0)],
        [
          'poll → published (the poll’s own work), p50 / max (ms)',
          `${round(pct(work, 50))} / ${round(work.at(-1) ?? Number.NaN)}`,
          '—',
          '—',
        ],
        [
          `queries per poll, mean (${polls} polls; ${pollsByClock.toFixed(1)} by the clock)`,
          meanPerPoll,
          '—',
          '—',
        ],
        ['queries per poll, max', maxPerPoll, '—', '—'],
        ['polls that found a moved marker (> 2 queries)', polledMoved, '—', '—'],
        ['replica RSS at the end (MB)', rssEnd ?? Number.NaN, '—', '—'],
        ['replica RSS, max over the run (MB, sampled each second)', rssMax, '—', '—'],
      ]),
      '',
      markdownTable([
        ['benchmark', 'cycles', 'p50 (ms)', 'max (ms)'],
        ...bySlug.map((b) => [b.slug, b.cycles, b.p50, b.max]),
      ]),
      '',
      `sample time ahead of the wall clock at commit (the demo clock runs ${SPEED}×): published cycles ${leadRange(published)}${
        timedOut > 0 ? `, unpublished cycles ${leadRange(cycles.filter((c) => c.timedOut))}` : ''
      }`,
      ...(timedOut > 0
        ? [
            'note: the replica finds new samples through PrometheusReader.timeBounds (src/store/prometheus-reads.ts), whose grid ends at the wall clock + 2 days on steps of ~16 h, so samples a fast demo clock stamps beyond its last grid point are never published',
          ]
        : []),
      '',
      `slowest cycles (slug, slot, commit → poll's marker read → published, ms):`,
      ...slowest.map((c) => {
        const wait = c.pollAt === undefined ? Number.NaN : c.pollAt - c.committedAt;
        const total = c.publishedAt - c.committedAt;
        return `  ${c.slug} ${new Date(c.slot).toISOString()}: ${round(total)} = ${round(wait)} waiting + ${round(total - wait)} in the poll`;
      }),
      '',
      `replica → engine requests while measuring, by shape (${replicaRequests.length}, ${non2xx} not 2xx, ${beforeFirstPoll.length} before the first marker read):`,
      ...[...shapes.entries()]
        .sort((a, b) => b[1] - a[1])
        .map(([s, n]) => `  ${String(n).padStart(5)}  ${s}`),
      '',
      `replica WARN/ERROR lines: ${oddLines.length}${
        oddLines.length
          ? `\n${oddLines
              .slice(0, 10)
              .map((l) => `  ${l}`)
              .join('\n')}`
          : ''
      }`,
      `writer WARN/ERROR/cycle failed lines: ${writerOdd.length}${
        writerOdd.length
          ? `\n${writerOdd
              .slice(0, 10)
              .map((l) => `  ${l}`)
              .join('\n')}`
          : ''
      }`,
      `failure markers seen: ${failedMarkers}; cycles whose write held no sample of their benchmark's metrics: ${cyclesWithoutSamples}; /api/freshness reads ${freshnessReads} (${freshnessErrors} failed)`,
      ...(failures.length ? [`problems: ${failures.join('; ')}`] : []),
      '',
    ].join('\n');
    process.stdout.write(out);

    const results = {
      bench: 'split',
      machine,
      settings,
      runSeconds: round((performance.now() - runStart) / 1000, 1),
      readySeconds: round(readySeconds, 1),
      measuredSeconds: round(measuredSeconds, 1),
      latencyMs: {
        n: published.length,
        p50: round(p50),
        p99: round(p99),
        max: round(max),
        timedOut,
        targetP99: TARGET_P99_MS,
        met,
        pollWorkP50: round(pct(work, 50)),
        pollWorkMax: round(work.at(-1) ?? Number.NaN),
      },
      queriesPerPoll: {
        mean: round(meanPerPoll, 2),
        max: maxPerPoll,
        polls,
        pollsByClock: round(pollsByClock, 1),
        requests: replicaRequests.length,
        pollsWithMovedMarker: polledMoved,
      },
      replicaRssMb: { end: round(rssEnd ?? Number.NaN, 1), max: round(rssMax, 1) },
      demoLeadHours: round(demoLeadHours, 1),
      replicaWarnings: oddLines.length,
      problems: failures,
    };
    await writeResults('split', {
      ...results,
      perCycle: cycles.map((c) => ({
        slug: c.slug,
        slot: new Date(c.slot).toISOString(),
        newestSample: new Date(c.newestSample).toISOString(),
        latencyMs: c.publishedAt === undefined ? null : round(c.publishedAt - c.committedAt),
        waitForPollMs: c.pollAt === undefined ? null : round(c.pollAt - c.committedAt),
        timedOut: c.timedOut === true,
        leadHours: round(c.leadMs / 3_600_000, 2),
      })),
      perPoll: windows.map((w) => ({
        secondsIn: round((w.markerAt - measureStart) / 1000, 2),
        requests: w.requests.map((r) => `${round(r.at - w.markerAt)} ms ${shape(r)}`),
      })),
      shapes: Object.fromEntries(shapes),
      replicaWarnLines: oddLines,
    });
    process.stdout.write(`${JSON.stringify(results)}\n`);
  } finally {
    measuring = false;
    agent.destroy();
    await Promise.all([writerProxy.close(), replicaProxy.close()]);
  }
}

await runMain(main);
