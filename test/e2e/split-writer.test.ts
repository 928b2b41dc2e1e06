/**
 * The writer of a split demo (issue 27): `citebench harness --simulate` as an OS process against a
 * real Prometheus. It backfills its region's plan, logs `harness ready`, writes live, publishes its
 * clock for the replicas and resumes from its markers; an engine that dies mid-backfill, or is not
 * there at start, costs no planned slot and no ERROR line (its cycles are buffered, not failed),
 * and the writer's /metrics says so (store_engine_up, store_buffered_samples).
 */
import { spawn } from 'node:child_process';
import { copyFile, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openPrometheusStore } from '../../src/store/prometheus-store.ts';
import { type Engine, startEngine } from '../helpers/engines.ts';
import { BENCHMARKS_DIR } from '../helpers/fixture.ts';
import { freePort, ROOT, type ServiceProcess, spawnService } from '../helpers/service-process.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Each step waits for its event (a log line, a gauge on /metrics, a marker in the engine), bounded
 * only against a hang: quiet, each comes within 1–10 s (the first backfill's 10–29% in ~5 s, ready
 * after the engine is back in ~15 s); beside another e2e file and a busy core, ready once took over
 * 60 s (the demo chains' build). STEP_MS allows 15 times the slowest quiet step, and each test's
 * timeout is above the sum of its quiet steps times 10.
 */
const STEP_MS = 150_000;
const running: ServiceProcess[] = [];
const engines: Engine[] = [];
/** The trade and listing families only: the json-rpc family's chains (anvil) take a minute to build. */
let bench: string;

beforeAll(async () => {
  bench = await mkdtemp(join(tmpdir(), 'cb-split-bench-'));
  for (const f of ['providers.yml', 'network-coverage.yml', 'token-trade-coverage.yml'])
    await copyFile(join(BENCHMARKS_DIR, f), join(bench, f));
});
afterEach(() => {
  for (const p of running.splice(0)) p.child.kill('SIGKILL');
});
afterAll(async () => {
  for (const e of engines) await e.destroy();
});

async function engine(): Promise<Engine> {
  const e = await startEngine('prometheus');
  engines.push(e);
  return e;
}

interface Writer {
  readonly p: ServiceProcess;
  readonly metricsPort: number;
  readonly dataDir: string;
  readonly snapshotDir: string;
}

async function writer(
  e: Engine,
  o: { dataDir?: string; snapshotDir?: string; days?: string; speed?: string } = {},
): Promise<Writer> {
  const metricsPort = await freePort();
  const dataDir = o.dataDir ?? (await mkdtemp(join(tmpdir(), 'cb-split-writer-')));
  const snapshotDir = o.snapshotDir ?? (await mkdtemp(join(tmpdir(), 'cb-split-snap-')));
  const p = await spawnService(
    {
      STORE: 'prometheus',
      PROMETHEUS_URL: e.url,
      // A killed engine refuses at once, whatever this bound; it bounds only a live engine's
      // answer, which a busy machine can slow to seconds (2 s here once counted as an outage).
      PROMETHEUS_TIMEOUT_MS: '10000',
      SNAPSHOT_DIR: snapshotDir,
      DATA_DIR: dataDir,
      BENCHMARKS_DIR: bench,
      BASE_URL: 'https://bench.example.org',
      HARNESS_METRICS_PORT: String(metricsPort),
      DEMO_DAYS: o.days ?? '0.25',
      DEMO_SPEED: o.speed ?? '1',
    },
    { command: [process.execPath, 'bin/citebench.mjs', 'harness', '--simulate'] },
  );
  running.push(p);
  return { p, metricsPort, dataDir, snapshotDir };
}

async function gauge(w: Writer, name: string): Promise<number | null> {
  const text = await fetch(`http://127.0.0.1:${w.metricsPort}/metrics`)
    .then((r) => r.text())
    .catch(() => '');
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : null;
}

async function until(what: string, ok: () => Promise<boolean>, ms: number, w?: Writer): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await ok()) return;
    await sleep(200);
  }
  throw new Error(`not ${what} within ${ms} ms${w ? `:\n${w.p.output().slice(-3000)}` : ''}`);
}

/** Planned slots (DATA_DIR/backfill-plan.json) without a successful cycle's harness_cycle marker in the engine. */
async function missingSlots(e: Engine, dataDir: string): Promise<string[]> {
  const plan = JSON.parse(await readFile(join(dataDir, 'backfill-plan.json'), 'utf8')) as {
    slots: { benchmark: string; region: string | null; slot: string }[];
  };
  const store = await openPrometheusStore({ url: e.url, retries: 1, retryBaseMs: 50 });
  const times = plan.slots.map((s) => Date.parse(s.slot));
  const markers = await store.select({
    metric: 'harness_cycle',
    after: Math.min(...times) - 1,
    until: Math.max(...times),
  });
  await store.close();
  // A cycle whose samples were buffered succeeded: its marker is 1, never the failure marker.
  const have = new Set(
    markers.filter((m) => m.v === 1 && !m.labels.failure).map((m) => `${m.labels.benchmark}@${m.t}`),
  );
  return plan.slots
    .filter((s) => !have.has(`${s.benchmark}@${Date.parse(s.slot)}`))
    .map((s) => `${s.benchmark}@${s.slot}`);
}

const noError = (w: Writer) => expect(w.p.output()).not.toMatch(/ ERROR /);

describe('citebench harness --simulate', () => {
  it('is in `harness --help` and `help harness`', async () => {
    const run = (args: string[]) =>
      new Promise<{ code: number | null; out: string }>((resolve) => {
        const c = spawn(process.execPath, ['bin/citebench.mjs', ...args], { cwd: ROOT });
        let out = '';
        c.stdout.on('data', (d: Buffer) => {
          out += d.toString();
        });
        c.on('exit', (code) => resolve({ code, out }));
      });
    // Both at once: each is a node start-up (seconds on a busy machine).
    for (const r of await Promise.all([run(['harness', '--help']), run(['help', 'harness'])])) {
      expect(r.code).toBe(0);
      expect(r.out).toMatch(/^usage: citebench harness \[start\] \[--simulate\]/);
      expect(r.out).toContain('store_engine_up');
    }
  }, 60_000);

  it('backfills with the demo’s progress, logs ready, writes live and shares its clock; the engine SIGKILLed mid-backfill and again live loses no slot, logs a WARN and an INFO each, never an ERROR; store_engine_up 0 then 1', async () => {
    const e = await engine();
    const w = await writer(e, { days: '1', speed: '600' });
    await w.p.waitFor(/^backfilling 1 days: \d+\/\d+ cycles \((1|2)\d%\)$/m, STEP_MS);
    await e.kill();
    await until('down on /metrics', async () => (await gauge(w, 'store_engine_up')) === 0, STEP_MS, w);
    await w.p.waitFor(/ WARN {2}sample store engine down/, STEP_MS);
    await e.start();
    const ready = await w.p.waitFor(/ INFO {2}harness ready backfilledCycles=(\d+) /, STEP_MS);
    expect(Number(ready[1])).toBeGreaterThan(0);
    expect(w.p.output()).toMatch(/^backfilling 1 days: \d+\/\d+ cycles \(100%\)$/m);
    await until('up on /metrics', async () => (await gauge(w, 'store_engine_up')) === 1, STEP_MS, w);
    await until('delivered', async () => (await gauge(w, 'store_buffered_samples')) === 0, STEP_MS, w);
    await until(
      'every planned slot stored',
      async () => (await missingSlots(e, w.dataDir)).length === 0,
      STEP_MS,
      w,
    );
    // Live (a 30-minute slot every 3 s at DEMO_SPEED=600): a cycle while the engine is away is
    // buffered and reported like any other, never `cycle failed`.
    await e.kill();
    const before = w.p.output().length;
    const live = /token-trade-coverage: cycle \S+ wrote \d+ samples/;
    await until(
      'a live cycle during the outage',
      async () => live.test(w.p.output().slice(before)),
      STEP_MS,
      w,
    );
    await e.start();
    await until(
      'delivered again',
      async () =>
        (await gauge(w, 'store_buffered_samples')) === 0 && (await gauge(w, 'store_engine_up')) === 1,
      STEP_MS,
      w,
    );
    expect(w.p.output().match(/sample store engine down/g)).toHaveLength(2);
    expect(w.p.output().match(/sample store engine back/g)).toHaveLength(2);
    noError(w);
    const store = await openPrometheusStore({ url: e.url });
    const markers = await store.select({
      metric: 'harness_cycle',
      after: Date.now() - 2 * 86_400_000,
      until: Date.now() + 30 * 86_400_000,
    });
    await store.close();
    expect(markers.length).toBeGreaterThan(0);
    expect(markers.every((m) => m.labels.origin === 'simulated')).toBe(true);
    // The clock `serve --simulate` replicas follow: the writer's DATA_DIR anchor, in SNAPSHOT_DIR.
    const shared = await readFile(join(w.snapshotDir, 'demo-clock.json'), 'utf8');
    expect(shared).toBe(await readFile(join(w.dataDir, 'demo-clock.json'), 'utf8'));
    expect(JSON.parse(shared)).toMatchObject({ version: 1, speed: 600 });
  }, 600_000);

  it('started with the engine down: plans, buffers, delivers once the engine is up; a restart resumes from its markers', async () => {
    const e = await engine();
    await e.stop();
    const w = await writer(e);
    await w.p.waitFor(/ INFO {2}harness ready backfilledCycles=/, STEP_MS);
    expect(await gauge(w, 'store_engine_up')).toBe(0);
    expect(await gauge(w, 'store_buffered_samples')).toBeGreaterThan(0);
    await e.start();
    await until(
      'delivered',
      async () =>
        (await gauge(w, 'store_buffered_samples')) === 0 && (await gauge(w, 'store_engine_up')) === 1,
      STEP_MS,
      w,
    );
    await until(
      'every planned slot stored',
      async () => (await missingSlots(e, w.dataDir)).length === 0,
      STEP_MS,
      w,
    );
    noError(w);
    w.p.child.kill('SIGTERM');
    expect((await w.p.exited()).code).toBe(0);

    const again = await writer(e, { dataDir: w.dataDir, snapshotDir: w.snapshotDir });
    const resumed = await again.p.waitFor(/backfill plan resumed resumed=true resumedSlots=(\d+) /, STEP_MS);
    expect(Number(resumed[1])).toBeGreaterThan(0);
    await again.p.waitFor(/token-trade-coverage: resuming lastSlot=\S+ next=/, STEP_MS);
    noError(again);
  }, 600_000);
});
