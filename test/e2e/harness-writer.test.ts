/**
 * The writer of a split deployment (issue 27, item 2), `citebench harness` on STORE=prometheus,
 * against a real Prometheus: it reads where each benchmark stopped (a bounded read; one at
 * Number.MAX_SAFE_INTEGER was refused with 400 "duration out of range" and swallowed), logs it,
 * retries a failed read before planning; BASE_URL is required and recorded for the API replicas,
 * which warn when theirs differs; SIGTERM to `npx citebench harness` stops it. Also the harness
 * usage (item 1) and the origin refusal naming the engine (item 7).
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BenchmarkSpec } from '../../src/core/spec-schema.ts';
import { loadHarnessConfig } from '../../src/harness/config.ts';
import { lastCycle, startHarness } from '../../src/harness/service.ts';
import { loadSpecs } from '../../src/publication/load-specs.ts';
import { FileSnapshotStore } from '../../src/store/file-snapshot-store.ts';
import { engineStore } from '../../src/store/open-store.ts';
import { openPrometheusStore } from '../../src/store/prometheus-store.ts';
import { type Engine, startEngine } from '../helpers/engines.ts';
import { BENCHMARKS_DIR } from '../helpers/fixture.ts';
import {
  freePort,
  ROOT,
  type ServiceProcess,
  spawnService,
  TEST_SOURCE_URL,
} from '../helpers/service-process.ts';
import { until } from '../helpers/until.ts';

const MIN = 60_000;
const HALF_HOUR = 30 * MIN;
// A past 30-minute slot for the trade family, and an older time for the listing family.
const SLOT = Math.floor((Date.now() - HALF_HOUR) / HALF_HOUR) * HALF_HOUR;
const LISTED = SLOT - 2 * 60 * MIN;
const iso = (t: number) => new Date(t).toISOString();

/**
 * Outer bounds, never budgets. Quiet, a CLI run takes 0.5–1 s, the writer logs where it resumes
 * within ~5 s of its start (a replica listens within ~3 s), and a failed resume read is retried 5 s
 * later; the bounds allow 10 times that or more, and each test's timeout is above its bounds.
 */
const CLI_MS = 30_000;
const EVENT_MS = 60_000;

let specs: BenchmarkSpec[];
let engine: Engine;
const running: ServiceProcess[] = [];
const engines: Engine[] = [];

async function markers(e: Engine, origin?: string): Promise<void> {
  const store = await openPrometheusStore({ url: e.url, retries: 1, retryBaseMs: 50 });
  const labels = (benchmark: string) => ({ benchmark, ...(origin ? { origin } : {}) });
  await store.append([
    { metric: 'harness_cycle', labels: labels('token-trade-coverage'), t: SLOT, v: 1 },
    { metric: 'harness_cycle', labels: labels('network-coverage'), t: LISTED, v: 1 },
  ]);
  await store.flush();
  await store.close();
}

beforeAll(async () => {
  specs = await loadSpecs(BENCHMARKS_DIR);
  engine = await startEngine('prometheus');
  engines.push(engine);
  await markers(engine);
});
afterEach(() => {
  for (const p of running.splice(0)) p.child.kill('SIGKILL');
});
afterAll(async () => {
  for (const e of engines) await e.destroy();
});

function cli(args: string[], env: Record<string, string | undefined> = {}) {
  const r = spawnSync(process.execPath, ['bin/citebench.mjs', ...args], {
    cwd: ROOT,
    env: { ...process.env, SOURCE_URL: TEST_SOURCE_URL, ...env },
    encoding: 'utf8',
    timeout: CLI_MS,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('citebench harness: usage and BASE_URL', () => {
  it('`harness --help` and `help harness` print the harness usage, naming its variables and `harness run`', () => {
    for (const args of [
      ['harness', '--help'],
      ['help', 'harness'],
      ['harness', 'start', '--help'],
    ]) {
      const r = cli(args);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.out, args.join(' ')).toMatch(/^usage: citebench harness \[start\]/);
      for (const v of [
        'BASE_URL',
        'HARNESS_REGION',
        'SNAPSHOT_DIR',
        'STORE',
        'PROMETHEUS_URL',
        'harness run',
      ]) {
        expect(r.out, `${args.join(' ')}: ${v}`).toContain(v);
      }
    }
    expect(cli(['harness', 'run', '--help']).out).toMatch(/^usage: harness run <benchmark>/);
  }, 120_000);

  it('with STORE=prometheus, BASE_URL is required: exit 2, one line naming it', async () => {
    const r = cli(['harness'], {
      BASE_URL: undefined,
      STORE: 'prometheus',
      PROMETHEUS_URL: engine.url,
      DATA_DIR: await mkdtemp(join(tmpdir(), 'cb-writer-')),
      HARNESS_METRICS_PORT: '0',
    });
    expect(r.code).toBe(2);
    const lines = r.err.split('\n').filter((l) => l.trim());
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^cannot start: BASE_URL is required with STORE=prometheus/);
  }, 60_000);
});

describe('the resume read', () => {
  it('lastCycle reads a bounded window on Prometheus and finds each benchmark’s marker', async () => {
    const store = await openPrometheusStore({ url: engine.url, retries: 1, retryBaseMs: 50 });
    expect(await lastCycle(store, 'token-trade-coverage', { now: Date.now() })).toBe(SLOT);
    expect(await lastCycle(store, 'network-coverage', { now: Date.now() })).toBe(LISTED);
    expect(await lastCycle(store, 'network-coverage', { now: Date.now(), region: 'eu-west' })).toBeNull();
    await store.close();
  });

  it('a failed read is a WARN, retried before planning; then each benchmark logs where it resumes', async () => {
    const own = await startEngine('prometheus');
    engines.push(own);
    await markers(own);
    await own.stop();
    const prom = await openPrometheusStore({
      url: own.url,
      retries: 0,
      timeoutMs: 1000,
      skipStartupCheck: true,
    });
    const store = engineStore(prom, new FileSnapshotStore(await mkdtemp(join(tmpdir(), 'cb-snap-'))));
    const lines: string[] = [];
    const h = startHarness({
      store,
      specs,
      metrics: new Registry(),
      harnessConfig: loadHarnessConfig({}),
      log: (level, msg) => lines.push(`${level} ${msg}`),
    });
    try {
      const failed = () => lines.find((l) => l.includes('cannot read its last cycle'));
      await until(() => failed() !== undefined, EVENT_MS, 'the failed read logged');
      expect(failed()).toMatch(
        /^warn [\w-]+: cannot read its last cycle from the store, retrying in 5 s before planning: /,
      );
      expect(lines.some((l) => l.includes('resuming'))).toBe(false);
      await own.start();
      const both = () =>
        ['network-coverage', 'token-trade-coverage'].every((b) =>
          lines.some((l) => l.includes(`${b}: resuming`)),
        );
      await until(both, EVENT_MS, 'both benchmarks resuming');
      const resumed = lines.filter((l) => l.includes('resuming'));
      expect(resumed).toContainEqual(
        expect.stringMatching(`^info token-trade-coverage: resuming lastSlot=${iso(SLOT)} next=`),
      );
      expect(resumed).toContainEqual(
        expect.stringMatching(`^info network-coverage: resuming lastSlot=${iso(LISTED)} next=`),
      );
    } finally {
      await h.stop();
      await store.close();
    }
  }, 180_000);
});

describe('the writer and a replica, as processes', () => {
  it('`npx citebench harness` logs where each benchmark resumes, records BASE_URL, and stops on SIGTERM to npx', async () => {
    const snap = await mkdtemp(join(tmpdir(), 'cb-shared-'));
    const metricsPort = await freePort();
    const p = await spawnService(
      {
        STORE: 'prometheus',
        PROMETHEUS_URL: engine.url,
        SNAPSHOT_DIR: snap,
        DATA_DIR: await mkdtemp(join(tmpdir(), 'cb-writer-')),
        BASE_URL: 'https://bench.example.org',
        HARNESS_METRICS_PORT: String(metricsPort),
      },
      { command: ['npx', 'citebench', 'harness'] },
    );
    running.push(p);
    const m = await p.waitFor(/token-trade-coverage: resuming lastSlot=(\S+) next=(\S+)/, EVENT_MS);
    expect(m[1]).toBe(iso(SLOT));
    expect(Date.parse(m[2] ?? '')).toBeGreaterThan(SLOT);
    await p.waitFor(new RegExp(`network-coverage: resuming lastSlot=${iso(LISTED)} next=`), EVENT_MS);
    expect(JSON.parse(await readFile(join(snap, 'deployment.json'), 'utf8'))).toEqual({
      baseUrl: 'https://bench.example.org',
    });
    await p.waitFor(/ harness running /, EVENT_MS);
    const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(metrics.status).toBe(200);
    await metrics.text();
    // SIGTERM to npm alone: npm exits, the daemon under its `sh -c` must notice and stop.
    p.child.kill('SIGTERM');
    await p.exited();
    // The daemon writes to npm's pipe as it stops; the pipe closes once the last process on it is gone.
    await p.closed();
    // npm takes its `sh -c` with it, or leaves it orphaned: either way the chain broke.
    expect(p.output()).toMatch(/harness stopping signal="launcher('s parent)? exited"/);
    expect(p.output()).toMatch(/harness stopped/);
    const gone = await fetch(`http://127.0.0.1:${metricsPort}/metrics`).then(
      () => false,
      () => true,
    );
    expect(gone).toBe(true);

    // An API replica on the same SNAPSHOT_DIR: another BASE_URL is one WARN naming both.
    const replica = await spawnService(
      { STORE: 'prometheus', PROMETHEUS_URL: engine.url, SNAPSHOT_DIR: snap, HARNESS_ENABLED: 'false' },
      { entry: 'src/main.ts' },
    );
    running.push(replica);
    await replica.waitFor(/ listening /, EVENT_MS);
    const warns = replica
      .output()
      .split('\n')
      .filter((l) => / WARN /.test(l) && l.includes('BASE_URL'));
    expect(warns).toHaveLength(1);
    expect(warns[0]).toContain(`BASE_URL=${replica.base}`);
    expect(warns[0]).toContain('BASE_URL=https://bench.example.org');
  }, 300_000);

  it('serve on an engine holding simulated samples names the engine at PROMETHEUS_URL', async () => {
    const sim = await startEngine('prometheus');
    engines.push(sim);
    await markers(sim, 'simulated');
    const p = await spawnService(
      { STORE: 'prometheus', PROMETHEUS_URL: sim.url, HARNESS_ENABLED: 'false' },
      { entry: 'src/main.ts' },
    );
    running.push(p);
    expect((await p.exited()).code).toBe(2);
    const lines = p
      .output()
      .split('\n')
      .filter((l) => l.trim());
    expect(lines).toEqual([
      `cannot start: the engine at PROMETHEUS_URL=${sim.url} holds simulated samples (from the demo); serve them with \`citebench serve --simulate\`, or point PROMETHEUS_URL at another engine (or tenant) for real measurements`,
    ]);
  }, 120_000);
});
