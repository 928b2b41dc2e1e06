/**
 * Issue 26 item 1 (admission): expensive requests wait in their class's bounded queue and share the
 * loop by class, not by connection, so cached reads keep their share of the loop under a burst.
 */
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { FairLanes, type LaneJob } from '../../src/concurrency/fair-lanes.ts';
import { laneOf } from '../../src/http/lane-table.ts';
import { startServer } from '../helpers/server.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const spin = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // Holds the loop, as a render or an evaluation would.
  }
};
const opts = { share: 0.25, contendedMs: 50, maxCreditMs: 5 };

/** Resolves once every job submitted so far has started (or `ms` passed). */
async function until(cond: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await sleep(2);
}

describe('FairLanes', () => {
  it('starts jobs round-robin over the classes, one per loop turn', async () => {
    const lanes = new FairLanes({ a: { running: 4, queued: 10 }, b: { running: 4, queued: 10 } }, opts);
    const order: string[] = [];
    const turns: number[] = [];
    let turn = 0;
    const ticker = setInterval(() => turn++, 0);
    const job =
      (name: string): LaneJob =>
      (done) => {
        order.push(name);
        turns.push(turn);
        done();
      };
    for (let i = 0; i < 3; i++) lanes.submit('a', job('a'));
    for (let i = 0; i < 3; i++) lanes.submit('b', job('b'));
    await until(() => order.length === 6);
    clearInterval(ticker);
    expect(order).toEqual(['a', 'b', 'a', 'b', 'a', 'b']);
  });

  it('refuses a job when its queue is full, and only that class', () => {
    const lanes = new FairLanes({ a: { running: 1, queued: 2 }, b: { running: 1, queued: 2 } }, opts);
    const never: LaneJob = () => {};
    expect(lanes.submit('a', never)).toBe(true);
    expect(lanes.submit('a', never)).toBe(true);
    expect(lanes.submit('a', never)).toBe(false);
    expect(lanes.submit('b', never)).toBe(true);
    expect(lanes.stats().find((s) => s.name === 'a')).toMatchObject({ queued: 2, refused: 1 });
  });

  it('runs at most `running` jobs of a class at once; the next starts when one is done', async () => {
    const lanes = new FairLanes({ a: { running: 2, queued: 10 } }, opts);
    const dones: (() => void)[] = [];
    for (let i = 0; i < 5; i++) lanes.submit('a', (done) => dones.push(done));
    await sleep(20);
    expect(dones).toHaveLength(2);
    dones[0]?.();
    await sleep(20);
    expect(dones).toHaveLength(3);
    expect(lanes.stats()[0]).toMatchObject({ running: 2, queued: 2, started: 3 });
  });

  it('while other requests come, the lanes keep to their share of the loop; alone, they take it all', async () => {
    const run = async (contended: boolean) => {
      const lanes = new FairLanes({ a: { running: 1, queued: 1_000 } }, opts);
      let measuring = true;
      for (let i = 0; i < 1_000; i++)
        lanes.submit('a', (done) => {
          if (measuring) spin(2);
          done();
        });
      const keepAlive = setInterval(() => {
        if (contended) lanes.noteOutside();
      }, 5);
      const t0 = performance.now();
      await sleep(400);
      const wall = performance.now() - t0;
      clearInterval(keepAlive);
      const share = lanes.meteredMs / wall;
      measuring = false;
      await until(() => lanes.stats()[0]?.queued === 0);
      return share;
    };
    const contended = await run(true);
    const alone = await run(false);
    // The credit is capped at 5 ms and a job may overdraw it by one job (2 ms).
    expect(contended).toBeLessThan(opts.share + (5 + 2) / 400 + 0.03);
    expect(contended).toBeGreaterThan(opts.share / 2);
    expect(alone).toBeGreaterThan(0.6);
  }, 30_000);

  it('each job is charged its unmetered cost as well: jobs quick to start are still held to the share', async () => {
    const run = async (contended: boolean) => {
      const lanes = new FairLanes({ a: { running: 1, queued: 10_000 } }, { ...opts, unmeteredMs: 2 });
      if (contended) lanes.noteOutside();
      // Jobs whose metered part is ~0, as a stored answer's or a worker-bound request's start is.
      for (let i = 0; i < 10_000; i++) lanes.submit('a', (done) => done());
      const keepAlive = setInterval(() => {
        if (contended) lanes.noteOutside();
      }, 5);
      await sleep(400);
      clearInterval(keepAlive);
      const started = lanes.stats()[0]?.started ?? 0;
      lanes.noteOutside();
      return started;
    };
    const contended = await run(true);
    const alone = await run(false);
    // 25% of 400 ms plus the 5 ms cap, at 2 ms a job: ~53 (without the charge, one per loop turn).
    expect(contended).toBeLessThanOrEqual(Math.ceil((0.25 * 400 + 5) / 2) + 3);
    expect(contended).toBeGreaterThan(10);
    expect(alone).toBeGreaterThan(4 * contended);
  }, 30_000);

  it('learns what its jobs cost unmetered while they run alone, and charges that under contention', async () => {
    const learn = { windowMs: 100, minJobs: 5, minMs: 0.05, maxMs: 5 };
    // Each job ends at once (its metered part ~0) and then costs the loop ~1.5 ms in a later
    // turn, as an answer built after a store read or a worker's reply does.
    const deferred = (done: () => void) => {
      done();
      setImmediate(() => spin(1.5));
    };
    const lanes = new FairLanes(
      { a: { running: 1, queued: 100_000 } },
      { ...opts, unmeteredMs: 0, learnUnmeteredMs: learn },
    );
    expect(lanes.unmeteredMs).toBe(0);
    for (let i = 0; i < 100_000; i++) lanes.submit('a', deferred);
    await sleep(700);
    const learnt = lanes.unmeteredMs;
    expect(learnt).toBeGreaterThan(0.8);
    expect(learnt).toBeLessThan(5);
    // Contended, the learnt charge holds the starts to ~share / charge.
    lanes.noteOutside();
    const before = lanes.stats()[0]?.started ?? 0;
    const keepAlive = setInterval(() => lanes.noteOutside(), 5);
    await sleep(400);
    clearInterval(keepAlive);
    const started = (lanes.stats()[0]?.started ?? 0) - before;
    // Not learnt while other requests come.
    expect(lanes.unmeteredMs).toBe(learnt);
    expect(started).toBeLessThanOrEqual(Math.ceil((0.25 * 400 + 5) / learnt) + 3);
    expect(started).toBeGreaterThan(10);
  }, 30_000);
});

describe('lane table', () => {
  it.each([
    ['POST', '/api/mcp/mcp', 'mcp'],
    ['GET', '/api/og/lat?chain=eth', 'og'],
    ['GET', '/api/sparkline/lat?w=10', 'svg'],
    ['HEAD', '/api/series/lat?range=90d', 'series'],
    ['GET', '/api/dataset/2026-11-26.csv', 'dataset'],
    ['GET', '/api/citable/2026-11-26', 'frozen'],
    ['GET', '/api/stat/lat?date=2026-11-26', 'frozen'],
    ['GET', '/api/audit/lat/alchemy', 'audit'],
    ['GET', '/compare/a-vs-b', 'compare'],
    ['GET', '/', 'page'],
    ['GET', '/benchmarks/lat', 'page'],
    ['GET', '/metrics', 'metrics'],
  ])('%s %s waits in %s', (method, url, lane) => {
    expect(laneOf(method, url)).toBe(lane);
  });

  it.each([
    ['GET', '/api/stat/lat'],
    ['GET', '/api/stat/lat?chain=eth'],
    ['GET', '/api/citable'],
    ['GET', '/api/freshness'],
    ['GET', '/healthz'],
    ['GET', '/api/llm-context'],
    ['GET', '/assets/site.css'],
    ['GET', '/api/mcp/mcp'],
    ['POST', '/api/og/lat'],
  ])('%s %s is served at once', (method, url) => {
    expect(laneOf(method, url)).toBeNull();
  });
});

/** test/helpers/gated-server.ts in a child process, with or without the gate. */
async function gatedServer(gate: boolean): Promise<{ url: string; close: () => void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/gated-server.ts'], {
    env: { ...process.env, LANE_TEST_GATE: gate ? '1' : '0', LANE_TEST_SPIN_MS: '20' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout?.once('data', (d: Buffer) => resolve(d.toString().trim()));
    child.once('exit', (code) => reject(new Error(`gated server exited ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, close: () => child.kill('SIGKILL') };
}

/** An open connection that sends one GET when asked; resolves when the answer's head arrives (or its end, with `whole`). */
async function connection(
  port: number,
  whole = false,
): Promise<(path: string) => Promise<{ status: number; at: number; retry: string | null; body: string }>> {
  const socket = connect(port, '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  return (path) =>
    new Promise((resolve) => {
      let text = '';
      const settle = () => {
        const head = text.slice(0, Math.max(0, text.indexOf('\r\n\r\n')));
        resolve({
          status: Number(text.slice(9, 12)),
          at: performance.now(),
          retry: /\r\nretry-after: *([^\r]*)/i.exec(head)?.[1] ?? null,
          body: text.slice(head.length + 4),
        });
      };
      socket.on('data', (d: Buffer) => {
        text += d.toString('latin1');
        if (!whole) {
          socket.destroy();
          settle();
        }
      });
      socket.once('end', () => whole && settle());
      socket.write(`GET ${path} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`);
    });
}

/**
 * When a cached read sent 40 ms after 30 expensive requests (each on its own connection, all open
 * and accepted beforehand, so the requests are written within a millisecond) is answered: how many
 * of them end after it.
 */
async function readAmidBurst(url: string): Promise<number> {
  const port = Number(new URL(url).port);
  const conns = await Promise.all(Array.from({ length: 31 }, () => connection(port)));
  const read = conns.pop() as Awaited<ReturnType<typeof connection>>;
  // Until the server has accepted every connection (else the read's may be accepted late).
  await sleep(300);
  const og = conns.map((send, i) => send(`/api/og/x?i=${i}`));
  await sleep(40);
  const stat = await read('/api/stat/x');
  expect(stat.status).toBe(200);
  const ends = await Promise.all(og);
  return ends.filter((r) => r.at > stat.at).length;
}

describe('the lane gate over HTTP', () => {
  it('a cached read is answered while 30 expensive requests wait, not after them; a full lane is 503 + Retry-After', async () => {
    // 30 × 20 ms of loop. Without the gate the read waits behind the requests already read.
    const bare = await gatedServer(false);
    try {
      expect(await readAmidBurst(bare.url)).toBeLessThan(5);
    } finally {
      bare.close();
    }
    const s = await gatedServer(true);
    try {
      expect(await readAmidBurst(s.url)).toBeGreaterThan(20);
      // The og lane holds 2 running and 32 waiting: what arrives beyond is refused at once. The 60
      // requests are written at once on connections opened (and accepted) beforehand.
      const port = Number(new URL(s.url).port);
      const conns = await Promise.all(Array.from({ length: 60 }, () => connection(port, true)));
      await sleep(300);
      const flood = await Promise.all(conns.map((send, i) => send(`/api/og/y?i=${i}`)));
      const refused = flood.filter((r) => r.status === 503);
      expect(refused.length).toBeGreaterThan(0);
      expect(flood.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(32);
      for (const r of refused) {
        expect(r.retry).toBe('1');
        expect(JSON.parse(r.body)).toMatchObject({ error: 'busy' });
      }
    } finally {
      s.close();
    }
  }, 60_000);

  it('the service puts its expensive routes in lanes (counted in /metrics)', async () => {
    const srv = await startServer({ samples: [] });
    try {
      expect((await srv.get('/')).status).toBe(200);
      const text = await (await srv.get('/metrics')).text();
      expect(text).toMatch(/^http_lane_started_total\{lane="page"\} [1-9]/m);
    } finally {
      await srv.close();
    }
  });
});
