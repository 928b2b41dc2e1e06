import { existsSync, mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { testConfig } from '../../src/config.ts';
import { createLogger } from '../../src/log.ts';
import { createService, type Service } from '../../src/service.ts';
import { scaledBudget } from '../helpers/calibration.ts';
import { BENCHMARKS_DIR } from '../helpers/fixture.ts';
import { ROOT, type ServiceProcess, spawnService, until200 } from '../helpers/service-process.ts';
import { until } from '../helpers/until.ts';

const running: ServiceProcess[] = [];
const services: Service[] = [];
afterEach(async () => {
  for (const p of running.splice(0)) p.child.kill('SIGKILL');
  for (const s of services.splice(0)) await s.close().catch(() => undefined);
});

/**
 * Outer bounds against a hang, never budgets: quiet, `src/main.ts` answers in 2–3 s (npm start adds
 * ~0.5 s) and stops in well under 1 s; these allow 15 times that. The tests' own timeouts (120 s)
 * are above them, so a slow start fails with the service's output.
 */
const UP_MS = 45_000;
const STOP_MS = 30_000;

/** A request that has reached a route: `reached` resolves on its arrival, `release` lets it answer. */
interface Held {
  readonly reached: Promise<void>;
  release(): void;
}

function held(): Held & { arrive(): void; released: Promise<void> } {
  let arrive = () => {};
  let release = () => {};
  const reached = new Promise<void>((r) => {
    arrive = r;
  });
  const released = new Promise<void>((r) => {
    release = r;
  });
  return { reached, released, arrive, release };
}

/**
 * An in-memory service with a route that answers when the test releases it and a route that never
 * answers on its own; each says when its request has arrived, so a test acts on a request that is
 * in flight, not on one it hopes has got there.
 */
async function serviceWithHeldRoutes(): Promise<{ service: Service; base: string; slow: Held; hang: Held }> {
  const slow = held();
  const hang = held();
  const service = await createService({
    config: testConfig({ port: 0, benchmarksDir: BENCHMARKS_DIR, logLevel: 'silent' }),
    log: createLogger('silent'),
    inMemory: true,
    routes: [
      (app) => {
        app.get('/test/slow', async (c) => {
          slow.arrive();
          await slow.released;
          return c.text('done');
        });
        app.get('/test/hang', () => {
          hang.arrive();
          return new Promise<Response>(() => {});
        });
      },
    ],
  });
  services.push(service);
  const port = await service.listen();
  return { service, base: `http://127.0.0.1:${port}`, slow, hang };
}

function refused(base: string): Promise<boolean> {
  return fetch(`${base}/healthz`).then(
    () => false,
    () => true,
  );
}

describe('drain: stop accepting, finish in-flight requests within a bound', () => {
  it('a request in flight completes; new connections are refused meanwhile', async () => {
    const { service, base, slow } = await serviceWithHeldRoutes();
    const answer = fetch(`${base}/test/slow`).then(async (r) => [r.status, await r.text()]);
    await slow.reached;
    // The bound only has to outlast the test's own refused() request: nothing is cut before it.
    const drained = service.drain(STOP_MS);
    // close() stops listening at once: the next connection is refused while the request is held.
    expect(await refused(base)).toBe(true);
    slow.release();
    expect(await answer).toEqual([200, 'done']);
    expect(await drained).toBe(0);
  });

  it('a request past the bound is cut and counted, at the bound', async () => {
    const { service, base, hang } = await serviceWithHeldRoutes();
    const answer = fetch(`${base}/test/hang`).then(
      () => 'answered',
      () => 'cut',
    );
    await hang.reached;
    const BOUND_MS = 300;
    const t0 = performance.now();
    expect(await service.drain(BOUND_MS)).toBe(1);
    // The drain's own bound plus a margin: quiet, it returns ~2 ms after the bound; the margin
    // allows 250 ms, × the calibration's factor (a drain that waited for the request never returns).
    expect(performance.now() - t0).toBeLessThan(BOUND_MS + scaledBudget(250));
    expect(await answer).toBe('cut');
  });
});

describe('signals to the real process', () => {
  const api = (dir: string) => ({ DATA_DIR: dir, HARNESS_ENABLED: 'false' });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal}: exit 0 with the database checkpointed (no WAL left)`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'cb-sig-'));
      const p = await spawnService(api(dir), { entry: 'src/main.ts' });
      running.push(p);
      await until200(`${p.base}/api/citable`, UP_MS, p);
      p.child.kill(signal);
      expect(await p.exited()).toEqual({ code: 0, signal: null });
      expect(p.output()).toMatch(new RegExp(`shutting down signal="${signal}"`));
      expect(p.output()).toMatch(/ stopped /);
      expect(existsSync(join(dir, 'citebench.duckdb.wal'))).toBe(false);
    }, 120_000);
  }

  it('a second signal exits at once while a request holds the first shutdown open', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cb-sig2-'));
    const p = await spawnService(api(dir), { entry: 'src/main.ts' });
    running.push(p);
    await until200(`${p.base}/healthz`, UP_MS, p);
    // An MCP request whose body never finishes arriving: in flight until the drain bound.
    const sock = connect(p.port, '127.0.0.1');
    sock.on('error', () => undefined);
    sock.write(
      `POST /api/mcp/mcp HTTP/1.1\r\nhost: 127.0.0.1:${p.port}\r\ncontent-type: application/json\r\ncontent-length: 500\r\n\r\n{"jsonrpc"`,
    );
    // In flight once the service reads its body (it counts it in /metrics, before any lane).
    await until(
      async () => /http_lane_reading_body 1/.test(await (await fetch(`${p.base}/metrics`)).text()),
      UP_MS,
      'MCP request in flight',
    );
    p.child.kill('SIGTERM');
    await p.waitFor(/shutting down/, STOP_MS);
    // Held by the request (the drain's bound is 5 s): had the first signal not waited, the second
    // would find the process gone with exit 0 and no "again" line.
    expect(p.child.exitCode).toBeNull();
    const t0 = performance.now();
    p.child.kill('SIGTERM');
    const r = await p.exited();
    // "At once": quiet, the exit is seen 20–80 ms after the signal; the budget allows 1 s × the
    // calibration's factor, still well under the 5 s drain a missed second signal would wait for.
    expect(performance.now() - t0).toBeLessThan(scaledBudget(1000));
    expect(r.code).toBe(143);
    expect(p.output()).toMatch(/SIGTERM again: exiting now/);
    sock.destroy();
  }, 120_000);

  it('SIGTERM to the tsx parent only: tsx relays it and both exit 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cb-tsx-'));
    const p = await spawnService(api(dir), {
      command: [process.execPath, join(ROOT, 'node_modules/tsx/dist/cli.mjs'), 'src/main.ts'],
    });
    running.push(p);
    await until200(`${p.base}/healthz`, UP_MS, p);
    p.child.kill('SIGTERM');
    expect((await p.exited()).code).toBe(0);
    expect(p.output()).toMatch(/ stopped /);
    expect(await refused(p.base)).toBe(true);
  }, 120_000);

  it('SIGTERM to `npm start` only: the service notices its launcher is gone and stops cleanly', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cb-npm-'));
    const p = await spawnService(api(dir), { command: ['npm', 'start', '--silent'] });
    running.push(p);
    await until200(`${p.base}/healthz`, UP_MS, p);
    p.child.kill('SIGTERM');
    await p.exited();
    // npm is gone at once; the service (its grandchild) writes to the same pipe as it stops, and
    // the pipe closes when the last process holding it has exited.
    await p.closed();
    expect(p.output()).toMatch(/shutting down signal="launcher's parent exited"/);
    expect(p.output()).toMatch(/ stopped /);
    expect(await refused(p.base)).toBe(true);
    expect(existsSync(join(dir, 'citebench.duckdb.wal'))).toBe(false);
  }, 120_000);
});
