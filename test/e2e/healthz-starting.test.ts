import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { benchmarksWithout } from '../helpers/benchmarks-dir.ts';
import { openApiValidator, type ResponseValidator } from '../helpers/openapi.ts';
import { type Running, startServer } from '../helpers/server.ts';
import { type ServiceProcess, spawnService } from '../helpers/service-process.ts';

/**
 * Issue 26: the port is bound before the backfill, the freeze and the first measurements, and
 * the service says when it is ready. /healthz answers 503 {"status":"starting"} (with the demo's
 * backfill {done, total}) until the first views can be served, then 200 {"status":"ok"}; every
 * other route, MCP included, answers 503 `starting` with Retry-After meanwhile.
 */

const running: ServiceProcess[] = [];
afterEach(() => {
  for (const p of running.splice(0)) p.child.kill('SIGKILL');
});

// The 503s are checked against the service's own OpenAPI document (served by an in-process server).
let api: ResponseValidator;
let docServer: Running;
beforeAll(async () => {
  docServer = await startServer({ samples: [] });
  api = await openApiValidator(await (await docServer.get('/api/openapi.json')).json());
});
afterAll(() => docServer.close());

interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/**
 * Outer bounds, never budgets: quiet, a demo backfill of network-coverage is ready in ~5 s and
 * `src/main.ts` in 2–3 s; these allow 20 times that, and the tests' own timeouts (180 s) are above
 * them, so a slow start fails with /healthz's last answer and the service's output.
 */
const READY_MS = 120_000;

async function healthz(base: string): Promise<Answer | null> {
  try {
    // Against a connection that never answers; a bound port answers /healthz at once.
    const r = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(30_000) });
    return { status: r.status, body: (await r.json()) as Record<string, unknown> };
  } catch {
    return null; // not bound yet
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls /healthz every 25 ms until `done` says stop; every answer, in order. */
async function pollHealthz(
  p: ServiceProcess,
  done: (a: Answer, all: readonly Answer[]) => boolean,
  ms: number,
): Promise<Answer[]> {
  const seen: Answer[] = [];
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (p.child.exitCode !== null) throw new Error(`exited ${p.child.exitCode}:\n${p.output().slice(-3000)}`);
    const a = await healthz(p.base);
    if (a) {
      seen.push(a);
      if (done(a, seen)) return seen;
    }
    await sleep(25);
  }
  throw new Error(
    `gave up after ${ms} ms; /healthz said ${JSON.stringify(seen.at(-1))}:\n${p.output().slice(-3000)}`,
  );
}

function expectStartingHealth(a: Answer): void {
  expect(a.status).toBe(503);
  expect(a.body.status).toBe('starting');
  const keys = Object.keys(a.body).sort();
  expect(keys).toEqual(a.body.backfill === undefined ? ['status'] : ['backfill', 'status']);
  if (a.body.backfill !== undefined) {
    const b = a.body.backfill as { done: number; total: number };
    expect(Object.keys(b).sort()).toEqual(['done', 'total']);
    expect(Number.isInteger(b.done) && Number.isInteger(b.total)).toBe(true);
    expect(b.done).toBeGreaterThanOrEqual(0);
    expect(b.done).toBeLessThanOrEqual(b.total);
  }
}

/** A route's answer while starting: 503, the error body with code `starting`, Retry-After, not cached. */
async function expectStarting(res: Response, template: string, method: string): Promise<void> {
  const body = await res.text();
  expect(res.status, body).toBe(503);
  expect(res.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
  expect(res.headers.get('cache-control')).toBe('no-store');
  if (method === 'head') {
    expect(body).toBe('');
    return;
  }
  const json = JSON.parse(body) as { error: string; message: string };
  expect(json.error).toBe('starting');
  expect(json.message).toMatch(/starting/);
  // Declared in the route's responses: the document shows the 503 and its body validates.
  api.check(template, method, res, body);
}

describe('/healthz and every route while starting', () => {
  it('during the demo backfill: 503 starting with {done, total}; routes and MCP 503 starting; SIGTERM stops it cleanly', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cb-starting-'));
    const p = await spawnService({ DATA_DIR: dir });
    running.push(p);
    // Observe the first seconds only (the whole backfill takes about a minute on 2 cores).
    const seen = await pollHealthz(
      p,
      (a) => {
        const b = a.body.backfill as { done: number } | undefined;
        return a.status !== 503 || (b !== undefined && b.done >= 2);
      },
      READY_MS,
    );
    for (const a of seen) expectStartingHealth(a);
    // The progress only grows.
    const dones = seen.flatMap((a) => (a.body.backfill ? [(a.body.backfill as { done: number }).done] : []));
    expect(dones).toEqual([...dones].sort((x, y) => x - y));

    await expectStarting(await fetch(`${p.base}/api/citable`), '/api/citable', 'get');
    await expectStarting(
      await fetch(`${p.base}/api/stat/network-coverage?chain=ethereum`),
      '/api/stat/{slug}',
      'get',
    );
    await expectStarting(
      await fetch(`${p.base}/api/stat/network-coverage`, { method: 'HEAD' }),
      '/api/stat/{slug}',
      'head',
    );
    await expectStarting(
      await fetch(`${p.base}/api/mcp/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      }),
      '/api/mcp/mcp',
      'post',
    );
    // Not ready, so nothing says it is: bound and starting, no welcome yet.
    expect(p.output()).toMatch(/ listening .*status="starting"/);
    expect(p.output()).not.toMatch(/Citebench is running| ready /);

    // Shutdown during start-up still works: exit 0, the database checkpointed.
    p.child.kill('SIGTERM');
    expect(await p.exited()).toEqual({ code: 0, signal: null });
    expect(p.output()).toMatch(/ stopped signal="SIGTERM"/);
    expect(p.output()).not.toMatch(/cannot start|snapshot freeze failed/);
    expect(existsSync(join(dir, 'citebench.duckdb.wal'))).toBe(false);
  }, 180_000);

  it('a small demo backfill (network-coverage only): 503 starting, then 200 ok for good', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cb-ready-'));
    const p = await spawnService({
      DATA_DIR: dir,
      BENCHMARKS_DIR: benchmarksWithout(['json-rpc', 'trade-capture']),
    });
    running.push(p);
    const seen = await pollHealthz(p, (a) => a.status === 200, READY_MS);
    const ok = seen.at(-1) as Answer;
    const before = seen.slice(0, -1);
    // The port answers before the service is ready, and says so.
    expect(before.length).toBeGreaterThan(0);
    for (const a of before) expectStartingHealth(a);
    expect(ok.body).toEqual({ status: 'ok', benchmarks: 1 });
    // In this order: bound (starting), the backfill (12 six-hour cycles of 3 days), ready.
    const out = p.output();
    const at = [/ listening .*status="starting"/, /backfilling 3 days: 12\/12 cycles/, / ready url=/].map(
      (re) => out.search(re),
    );
    expect(
      at.every((i) => i >= 0),
      out,
    ).toBe(true);
    expect(at, out).toEqual([...at].sort((x, y) => x - y));
    // Ready is for good, and the routes answer.
    for (let i = 0; i < 5; i++) expect((await healthz(p.base))?.status).toBe(200);
    expect((await fetch(`${p.base}/api/citable`)).status).toBe(200);
    expect((await fetch(`${p.base}/api/stat/network-coverage`)).status).toBe(200);
    expect(p.output()).toMatch(/Citebench is running on SIMULATED demo data/);
    p.child.kill('SIGTERM');
    expect((await p.exited()).code).toBe(0);
  }, 180_000);

  it('serve without a harness: 503 starting from the bind, then 200 ok once the store is open and the first freeze pass done', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cb-serve-ready-'));
    const p = await spawnService({ DATA_DIR: dir, HARNESS_ENABLED: 'false' }, { entry: 'src/main.ts' });
    running.push(p);
    const seen = await pollHealthz(p, (a) => a.status === 200, READY_MS);
    expect(seen.length).toBeGreaterThan(1);
    for (const a of seen.slice(0, -1)) expectStartingHealth(a);
    expect(seen.at(-1)?.body).toEqual({ status: 'ok', benchmarks: 5 });
    expect((await fetch(`${p.base}/api/citable`)).status).toBe(200);
    p.child.kill('SIGTERM');
    expect((await p.exited()).code).toBe(0);
  }, 180_000);

  it('SIGTERM at the first 503, while the app is still loading: exit 0, the store closed cleanly', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cb-early-stop-'));
    const p = await spawnService({ DATA_DIR: dir, HARNESS_ENABLED: 'false' }, { entry: 'src/main.ts' });
    running.push(p);
    const seen = await pollHealthz(p, () => true, READY_MS);
    expectStartingHealth(seen[0] as Answer);
    p.child.kill('SIGTERM');
    expect(await p.exited()).toEqual({ code: 0, signal: null });
    expect(p.output()).toMatch(/ stopped signal="SIGTERM"/);
    expect(p.output()).not.toMatch(/cannot start|Citebench is running/);
    expect(existsSync(join(dir, 'citebench.duckdb'))).toBe(true);
    expect(existsSync(join(dir, 'citebench.duckdb.wal'))).toBe(false);
  }, 180_000);
});
