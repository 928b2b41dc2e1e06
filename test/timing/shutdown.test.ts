import { existsSync, mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { testConfig } from '../../src/config.ts';
import { createLogger } from '../../src/log.ts';
import { createService, type Service } from '../../src/service.ts';
import { BENCHMARKS_DIR } from '../helpers/fixture.ts';
import { ROOT, type ServiceProcess, spawnService, until200 } from '../helpers/service-process.ts';

const running: ServiceProcess[] = [];
const services: Service[] = [];
afterEach(async () => {
  for (const p of running.splice(0)) p.child.kill('SIGKILL');
  for (const s of services.splice(0)) await s.close().catch(() => undefined);
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An in-memory service with a slow route and a route that never answers on its own. */
async function serviceWithSlowRoutes(): Promise<{ service: Service; base: string }> {
  const service = await createService({
    config: testConfig({ port: 0, benchmarksDir: BENCHMARKS_DIR, logLevel: 'silent' }),
    log: createLogger('silent'),
    inMemory: true,
    routes: [
      (app) => {
        app.get('/test/slow', async (c) => {
          await sleep(400);
          return c.text('done');
        });
        app.get('/test/hang', () => new Promise<Response>(() => {}));
      },
    ],
  });
  services.push(service);
  const port = await service.listen();
  return { service, base: `http://127.0.0.1:${port}` };
}

function refused(base: string): Promise<boolean> {
  return fetch(`${base}/healthz`).then(
    () => false,
    () => true,
  );
}

describe('drain: stop accepting, finish in-flight requests within a bound', () => {
  it('a request in flight completes; new connections are refused meanwhile', async () => {
    const { service, base } = await serviceWithSlowRoutes();
    const slow = fetch(`${base}/test/slow`).then(async (r) => [r.status, await r.text()]);
    await sleep(50);
    const drained = service.drain(3000);
    await sleep(20);
    expect(await refused(base)).toBe(true);
    expect(await slow).toEqual([200, 'done']);
    expect(await drained).toBe(0);
  });

  it('a request past the bound is cut and counted', async () => {
    const { service, base } = await serviceWithSlowRoutes();
    const hang = fetch(`${base}/test/hang`).then(
      () => 'answered',
      () => 'cut',
    );
    await sleep(50);
    const t0 = performance.now();
    expect(await service.drain(300)).toBe(1);
    expect(performance.now() - t0).toBeLessThan(1500);
    expect(await hang).toBe('cut');
  });
});

describe('signals to the real process', () => {
  const api = (dir: string) => ({ DATA_DIR: dir, HARNESS_ENABLED: 'false' });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal}: exit 0 with the database checkpointed (no WAL left)`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'cb-sig-'));
      const p = await spawnService(api(dir), { entry: 'src/main.ts' });
      running.push(p);
      await until200(`${p.base}/api/citable`, 20_000, p);
      p.child.kill(signal);
      expect(await p.exited()).toEqual({ code: 0, signal: null });
      expect(p.output()).toMatch(new RegExp(`shutting down signal="${signal}"`));
      expect(p.output()).toMatch(/ stopped /);
      expect(existsSync(join(dir, 'citebench.duckdb.wal'))).toBe(false);
    }, 30_000);
  }

  it('a second signal exits at once while a request holds the first shutdown open', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cb-sig2-'));
    const p = await spawnService(api(dir), { entry: 'src/main.ts' });
    running.push(p);
    await until200(`${p.base}/healthz`, 20_000, p);
    // An MCP request whose body never finishes arriving: in flight until the drain bound.
    const sock = connect(p.port, '127.0.0.1');
    sock.on('error', () => undefined);
    sock.write(
      `POST /api/mcp/mcp HTTP/1.1\r\nhost: 127.0.0.1:${p.port}\r\ncontent-type: application/json\r\ncontent-length: 500\r\n\r\n{"jsonrpc"`,
    );
    await sleep(200);
    p.child.kill('SIGTERM');
    await p.waitFor(/shutting down/, 5000);
    await sleep(200);
    expect(p.child.exitCode).toBeNull();
    const t0 = performance.now();
    p.child.kill('SIGTERM');
    const r = await p.exited();
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(r.code).toBe(143);
    expect(p.output()).toMatch(/SIGTERM again: exiting now/);
    sock.destroy();
  }, 30_000);

  it('SIGTERM to the tsx parent only: tsx relays it and both exit 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cb-tsx-'));
    const p = await spawnService(api(dir), {
      command: [process.execPath, join(ROOT, 'node_modules/tsx/dist/cli.mjs'), 'src/main.ts'],
    });
    running.push(p);
    await until200(`${p.base}/healthz`, 20_000, p);
    p.child.kill('SIGTERM');
    expect((await p.exited()).code).toBe(0);
    expect(p.output()).toMatch(/ stopped /);
    expect(await refused(p.base)).toBe(true);
  }, 30_000);

  it('SIGTERM to `npm start` only: the service notices its launcher is gone and stops cleanly', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cb-npm-'));
    const p = await spawnService(api(dir), { command: ['npm', 'start', '--silent'] });
    running.push(p);
    await until200(`${p.base}/healthz`, 30_000, p);
    p.child.kill('SIGTERM');
    await p.exited();
    // npm is gone at once; the service (its grandchild) writes to the same pipe as it stops.
    for (let i = 0; i < 100 && !/ stopped /.test(p.output()); i++) await sleep(100);
    expect(p.output()).toMatch(/shutting down signal="launcher's parent exited"/);
    expect(p.output()).toMatch(/ stopped /);
    await sleep(200);
    expect(await refused(p.base)).toBe(true);
    expect(existsSync(join(dir, 'citebench.duckdb.wal'))).toBe(false);
  }, 40_000);
});
