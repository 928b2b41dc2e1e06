/**
 * Issue 26 item 1 (admission): expensive requests wait in their class's bounded queue and share the
 * loop by class, not by connection, so cached reads keep their share of the loop under a burst.
 * In the timing layer: the shares are measured over windows of wall time (400 ms), and the burst
 * is a race between a read and 30 requests that hold the loop. Which route waits in which lane is
 * test/unit/lane-table.test.ts.
 */
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { FairLanes, type LaneJob } from '../../src/concurrency/fair-lanes.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const spin = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // Holds the loop, as a render or an evaluation would.
  }
};
const opts = { share: 0.25, contendedMs: 50, maxCreditMs: 5 };

/**
 * Resolves once `cond` holds, polled every 2 ms. Quiet, within a few ms; the bound (against a hang
 * only) allows 30 s.
 */
async function until(cond: () => boolean, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`not ${what} within ${ms} ms`);
    await sleep(2);
  }
}

/** A few turns of the loop: what would start in them (a job past its lane's limit) has started. */
async function turns(n = 10): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
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
    await until(() => order.length === 6, 'six jobs started');
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
    await until(() => dones.length >= 2, 'two jobs started');
    await turns();
    expect(dones).toHaveLength(2);
    dones[0]?.();
    await until(() => dones.length >= 3, 'the third job started');
    await turns();
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
      // The measurement window: the share is of the wall time the lanes ran in.
      const t0 = performance.now();
      await sleep(400);
      const wall = performance.now() - t0;
      clearInterval(keepAlive);
      const share = lanes.meteredMs / wall;
      measuring = false;
      await until(() => lanes.stats()[0]?.queued === 0, 'the queue drained');
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

  it('with idle time on the loop, requests outside the lanes do not hold them: the share applies from busyAbove', async () => {
    const run = async (utilization: number) => {
      const loop = { utilization: () => utilization };
      const lanes = new FairLanes(
        { a: { running: 1, queued: 10_000 } },
        { ...opts, unmeteredMs: 2, busyAbove: 0.85, loop },
      );
      lanes.noteOutside();
      for (let i = 0; i < 10_000; i++) lanes.submit('a', (done) => done());
      const keepAlive = setInterval(() => lanes.noteOutside(), 5);
      await sleep(400);
      clearInterval(keepAlive);
      const started = lanes.stats()[0]?.started ?? 0;
      lanes.noteOutside();
      return started;
    };
    const idle = await run(0.3);
    const busy = await run(0.95);
    // Busy: held to the share as before (25% of 400 ms plus the 5 ms cap, at 2 ms a job: ~53).
    expect(busy).toBeLessThanOrEqual(Math.ceil((0.25 * 400 + 5) / 2) + 3);
    // Idle: one job per loop turn, as with no request outside the lanes at all.
    expect(idle).toBeGreaterThan(4 * busy);
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
    // Learnt over a 100 ms window with at least 5 jobs; then a few windows more to settle.
    await until(() => lanes.unmeteredMs > 0, 'an unmetered cost learnt');
    await sleep(3 * learn.windowMs);
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

interface GatedServer {
  readonly url: string;
  /** Connections the server has accepted so far (it says so on stdout). */
  accepted(): number;
  close(): void;
}

/** test/helpers/gated-server.ts in a child process, with or without the gate. */
async function gatedServer(gate: boolean): Promise<GatedServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/gated-server.ts'], {
    env: { ...process.env, LANE_TEST_GATE: gate ? '1' : '0', LANE_TEST_SPIN_MS: '20' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const port = await new Promise<string>((resolve, reject) => {
    const seen = () => {
      const m = /^port (\d+)$/m.exec(out);
      if (m?.[1]) resolve(m[1]);
    };
    child.stdout?.on('data', seen);
    child.once('exit', (code) => reject(new Error(`gated server exited ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    accepted: () => Number([...out.matchAll(/^accepted (\d+)$/gm)].at(-1)?.[1] ?? 0),
    close: () => child.kill('SIGKILL'),
  };
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
 * When a cached read sent once the first of 30 expensive requests has been answered (each on its
 * own connection, all open and accepted beforehand, so the requests are written within a
 * millisecond and the server is busy with them) is answered: how many of them end after it.
 */
async function readAmidBurst(server: GatedServer): Promise<number> {
  const port = Number(new URL(server.url).port);
  const before = server.accepted();
  const conns = await Promise.all(Array.from({ length: 31 }, () => connection(port)));
  const read = conns.pop() as Awaited<ReturnType<typeof connection>>;
  // Until the server has accepted every connection (else the read's may be accepted late).
  await until(() => server.accepted() >= before + 31, 'every connection accepted');
  const og = conns.map((send, i) => send(`/api/og/x?i=${i}`));
  // The server is in the burst once it has answered one: 29 are still to come.
  await Promise.race(og);
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
      expect(await readAmidBurst(bare)).toBeLessThan(5);
    } finally {
      bare.close();
    }
    const s = await gatedServer(true);
    try {
      expect(await readAmidBurst(s)).toBeGreaterThan(20);
      // The og lane holds 2 running and 32 waiting: what arrives beyond is refused at once. The 60
      // requests are written at once on connections opened (and accepted) beforehand.
      const port = Number(new URL(s.url).port);
      const before = s.accepted();
      const conns = await Promise.all(Array.from({ length: 60 }, () => connection(port, true)));
      await until(() => s.accepted() >= before + 60, 'every connection accepted');
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
});
