/**
 * An API replica restarted while its engine is away answers what SNAPSHOT_DIR holds from its first
 * answer: the frozen day (the index, each Stat `?date=`, the dataset files) 200 with the bytes it
 * served before, never 503 `starting` while it waits for the engine; live routes 503
 * `engine_unavailable` with Retry-After. Two outages: the engine stopped (connections refused) and
 * the engine hung (SIGSTOP: connections accepted, never answered). The day is frozen by a writer
 * in this process on a real Prometheus, as `citebench harness` freezes it on a split deployment.
 */
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS } from '../../src/core/dates.ts';
import { buildDataset } from '../../src/demo/dataset.ts';
import { loadSpecs } from '../../src/publication/load-specs.ts';
import { createPublication } from '../../src/publication/publication.ts';
import { writeDeploymentRecord } from '../../src/store/deployment-record.ts';
import { FileSnapshotStore } from '../../src/store/file-snapshot-store.ts';
import { engineStore } from '../../src/store/open-store.ts';
import { openPrometheusStore } from '../../src/store/prometheus-store.ts';
import { type Engine, startEngine } from '../helpers/engines.ts';
import { BENCHMARKS_DIR } from '../helpers/fixture.ts';
import { type ServiceProcess, spawnService } from '../helpers/service-process.ts';

const MIN = 60_000;
const HALF_HOUR = 30 * MIN;
const TRADE = 'token-trade-coverage';
const NETWORK = 'network-coverage';
const SITE_URL = 'https://bench.example.org';
// The writer's "now": a 30-minute slot an hour back (every sample in the engine's past), never
// 00:00 itself (yesterday would still be inside its freeze grace), so yesterday is closed and frozen.
const SLOT = Math.floor((Date.now() - 60 * MIN) / HALF_HOUR) * HALF_HOUR;
const NOW = SLOT % DAY_MS === 0 ? SLOT - HALF_HOUR : SLOT;
const FROZEN = new Date(Math.floor(NOW / DAY_MS) * DAY_MS - DAY_MS).toISOString().slice(0, 10);
/** What a replica serves from SNAPSHOT_DIR alone. The first is asked from the spawn on. */
const FROZEN_PATHS = [
  `/api/citable/${FROZEN}`,
  `/api/stat/${TRADE}?date=${FROZEN}`,
  `/api/stat/${NETWORK}?date=${FROZEN}`,
  `/api/dataset/${FROZEN}.json`,
  `/api/dataset/${FROZEN}.csv`,
  `/api/dataset/${FROZEN}.parquet`,
] as const;
/** Outer bound on a replica's start (module loading on a busy 2-core machine), never a budget. */
const START_BOUND_MS = 60_000;
/** Outer bound on one answer: a replica's engine reads have 3 s. */
const ANSWER_BOUND_MS = 10_000;

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly bytes: Buffer;
}

async function get(base: string, path: string): Promise<Answer> {
  const r = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(ANSWER_BOUND_MS) });
  return { status: r.status, headers: r.headers, bytes: Buffer.from(await r.arrayBuffer()) };
}

const text = (a: Answer) => a.bytes.toString('utf8');

/** Statuses in order, runs counted: "503×612, 200". */
function runs(statuses: readonly number[]): string {
  const out: Array<[number, number]> = [];
  for (const s of statuses) {
    const last = out.at(-1);
    if (last?.[0] === s) last[1]++;
    else out.push([s, 1]);
  }
  return out.map(([s, n]) => (n > 1 ? `${s}×${n}` : String(s))).join(', ');
}

let engine: Engine;
let bench: string;
let snapshotDir: string;
let replicaDataDir: string;
const dirs: string[] = [];
const started: ServiceProcess[] = [];

async function tempDir(prefix: string): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}

/** `citebench serve` as an API replica of the engine (HARNESS_ENABLED=false), reading SNAPSHOT_DIR. */
async function startReplica(): Promise<ServiceProcess> {
  const p = await spawnService(
    {
      STORE: 'prometheus',
      PROMETHEUS_URL: engine.url,
      PROMETHEUS_TIMEOUT_MS: '2000',
      HARNESS_ENABLED: 'false',
      SNAPSHOT_DIR: snapshotDir,
      DATA_DIR: replicaDataDir,
      BENCHMARKS_DIR: bench,
      BASE_URL: SITE_URL,
      REPLICA_POLL_MS: '500',
    },
    { command: [process.execPath, 'bin/citebench.mjs', 'serve'] },
  );
  started.push(p);
  return p;
}

async function stopReplica(p: ServiceProcess): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.child.kill('SIGTERM');
  const timer = setTimeout(() => p.child.kill('SIGKILL'), 15_000);
  await p.exited();
  clearTimeout(timer);
}

interface FirstAnswer {
  /** The first HTTP answer the port gave to FROZEN_PATHS[0], after connections were refused. */
  readonly first: Answer;
  /** Every status seen until the first 200, in order (one per attempt that got an answer). */
  readonly statuses: readonly number[];
  /** From the spawn to the first answer, and to the first 200. */
  readonly firstMs: number;
  readonly first200Ms: number;
  readonly body200: Buffer;
}

/**
 * Spawns a replica and asks for the frozen day from then on: each attempt waits for its own answer
 * (or the refused connection) before the next, so the first answer is the port's first.
 */
async function restartAndAsk(): Promise<{ p: ServiceProcess; seen: FirstAnswer }> {
  const t0 = performance.now();
  const p = await startReplica();
  const statuses: number[] = [];
  let first: Answer | undefined;
  let firstMs = 0;
  const end = Date.now() + START_BOUND_MS;
  while (Date.now() < end) {
    if (p.child.exitCode !== null || p.child.signalCode !== null)
      throw new Error(`replica exited before answering:\n${p.output().slice(-3000)}`);
    let a: Answer;
    try {
      a = await get(p.base, FROZEN_PATHS[0]);
    } catch {
      // Not bound yet: the connection is refused.
      await new Promise((r) => setTimeout(r, 20));
      continue;
    }
    if (first === undefined) {
      first = a;
      firstMs = performance.now() - t0;
    }
    statuses.push(a.status);
    if (a.status === 200) {
      return {
        p,
        seen: { first, statuses, firstMs, first200Ms: performance.now() - t0, body200: a.bytes },
      };
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no 200 for ${FROZEN_PATHS[0]} within ${START_BOUND_MS} ms (statuses ${runs(statuses)})`);
}

beforeAll(async () => {
  bench = await tempDir('cb-restart-bench-');
  // The trade and listing families only: the json-rpc family's demo chains are not needed here.
  for (const f of ['providers.yml', `${NETWORK}.yml`, `${TRADE}.yml`])
    await copyFile(join(BENCHMARKS_DIR, f), join(bench, f));
  snapshotDir = await tempDir('cb-restart-snap-');
  replicaDataDir = await tempDir('cb-restart-replica-');
  engine = await startEngine('prometheus');
  // The writer: two days of cycles into the engine, then yesterday frozen into SNAPSHOT_DIR.
  const prom = await openPrometheusStore({ url: engine.url, retries: 1, retryBaseMs: 50 });
  const store = engineStore(prom, new FileSnapshotStore(snapshotDir));
  try {
    await prom.append(buildDataset({ seed: 7, days: 2, end: NOW, markers: true }));
    expect(await prom.flush()).toBe(true);
    const writer = createPublication({
      specs: await loadSpecs(bench),
      store,
      site: { name: 'Citebench', baseUrl: SITE_URL },
      clock: () => NOW,
    });
    try {
      expect(await writer.freezeClosedDays()).toBeGreaterThanOrEqual(1);
      await writer.dataset.freezeClosedDays(Math.floor(NOW / DAY_MS) * DAY_MS);
    } finally {
      writer.close();
    }
    await writeDeploymentRecord(snapshotDir, { baseUrl: SITE_URL });
  } finally {
    await store.close();
  }
}, 120_000);

afterAll(async () => {
  await Promise.all(started.map((p) => stopReplica(p)));
  await engine?.destroy();
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
}, 60_000);

describe('a replica restarted while its engine is away', () => {
  /** What the replica served for each frozen path while the engine was up. */
  const before = new Map<string, Answer>();
  let replica: ServiceProcess | undefined;

  it('with the engine up, a replica serves the frozen day from SNAPSHOT_DIR', async () => {
    const { p } = await restartAndAsk();
    replica = p;
    for (const path of FROZEN_PATHS) {
      const a = await get(p.base, path);
      expect(a.status, `${path}: ${text(a).slice(0, 300)}`).toBe(200);
      before.set(path, a);
    }
    expect(JSON.parse(text(before.get(FROZEN_PATHS[0]) as Answer)).site.snapshotDate).toBe(FROZEN);
  }, 120_000);

  for (const outage of ['stopped', 'hung'] as const) {
    it(`engine ${outage}: from its first answer the restarted replica serves the frozen day byte for byte, live routes 503 engine_unavailable`, async () => {
      if (replica === undefined || before.size === 0) throw new Error('the first case did not run');
      await stopReplica(replica);
      if (outage === 'stopped') await engine.stop();
      else {
        await engine.start();
        await engine.pause();
      }
      try {
        const { p, seen } = await restartAndAsk();
        replica = p;
        // Measured from the spawn (module loading included), for the report.
        console.info(
          `engine ${outage}: first answer ${seen.first.status} after ${Math.round(seen.firstMs)} ms, first 200 after ${Math.round(seen.first200Ms)} ms (statuses until then: ${runs(seen.statuses)})`,
        );
        expect(
          seen.first.status,
          `the first answer was ${seen.first.status} ${text(seen.first).slice(0, 200)}; the first 200 came ${Math.round(seen.first200Ms)} ms after the spawn (statuses: ${runs(seen.statuses)})`,
        ).toBe(200);
        expect(seen.body200.equals((before.get(FROZEN_PATHS[0]) as Answer).bytes)).toBe(true);
        for (const path of FROZEN_PATHS) {
          const a = await get(p.base, path);
          const was = before.get(path) as Answer;
          expect(a.status, `${path}: ${text(a).slice(0, 300)}`).toBe(200);
          expect(a.bytes.equals(was.bytes), `${path}: not the bytes served before`).toBe(true);
          expect(a.headers.get('etag'), path).toBe(was.headers.get('etag'));
        }
        for (const path of [`/api/stat/${TRADE}`, '/api/citable']) {
          const live = await get(p.base, path);
          expect(live.status, `${path}: ${text(live).slice(0, 300)}`).toBe(503);
          expect(JSON.parse(text(live)).error, path).toBe('engine_unavailable');
          expect(live.headers.get('retry-after'), path).toMatch(/^\d+$/);
        }
        const health = await get(p.base, '/healthz');
        expect(health.status).toBe(200);
        expect(JSON.parse(text(health)).status).toBe('degraded');
        expect(p.output()).not.toMatch(/ ERROR /);
      } finally {
        if (outage === 'hung') await engine.resume();
      }
    }, 120_000);
  }
});
