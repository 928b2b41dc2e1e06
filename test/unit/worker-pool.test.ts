/**
 * Issue 26 item 1: the service's worker pool (src/concurrency/worker-pool.ts). Tasks wait in one
 * queue per class and a freed worker takes the classes in turn; a full class queue refuses only
 * that class; a task past its timeout kills its worker and fails alone.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  PoolBusyError,
  PoolTaskError,
  PoolTimeoutError,
  WorkerPool,
} from '../../src/concurrency/worker-pool.ts';

interface Answer {
  readonly tag: string;
  readonly thread: number;
}

const pools: WorkerPool[] = [];
function pool(size: number, maxQueued = 16): WorkerPool {
  const p = new WorkerPool({ size, from: import.meta.url, name: '../helpers/pool-test-entry', maxQueued });
  pools.push(p);
  return p;
}
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

describe('worker pool', () => {
  it('runs tasks on `size` threads at once, none on the event loop', async () => {
    const p = pool(2);
    // Warm both threads (a tsx worker takes a while to start).
    await Promise.all([
      p.run('a', { ms: 1, tag: 'w1' }, { timeoutMs: 20_000 }),
      p.run('a', { ms: 1, tag: 'w2' }, { timeoutMs: 20_000 }),
    ]);
    const t0 = Date.now();
    const answers = await Promise.all(
      [1, 2, 3, 4].map((i) => p.run<Answer>('a', { ms: 300, tag: `t${i}` }, { timeoutMs: 20_000 })),
    );
    const ms = Date.now() - t0;
    // Two at a time: about 600 ms, not 1,200 (serial) nor 300 (four threads).
    expect(ms).toBeGreaterThanOrEqual(590);
    expect(ms).toBeLessThan(1_150);
    expect(new Set(answers.map((a) => a.thread)).size).toBe(2);
    expect(answers.every((a) => a.thread !== 0)).toBe(true);
    expect(p.starts).toBe(2);
  }, 30_000);

  it('a freed worker takes the next class in turn, so a backlog of one class does not hold up another', async () => {
    const p = pool(1);
    await p.run('slow', { ms: 1, tag: 'warm' }, { timeoutMs: 20_000 });
    const order: string[] = [];
    const note = (x: Promise<Answer>) => x.then((a) => order.push(a.tag));
    const all = [
      ...[1, 2, 3, 4].map((i) =>
        note(p.run<Answer>('slow', { ms: 50, tag: `slow${i}` }, { timeoutMs: 20_000 })),
      ),
      note(p.run<Answer>('quick', { ms: 1, tag: 'quick' }, { timeoutMs: 20_000 })),
    ];
    await Promise.all(all);
    // slow1 was running; the next turn is the quick class's, before slow2..4 (FIFO would put it last).
    expect(order.indexOf('quick')).toBe(1);
  }, 30_000);

  it('a full class queue refuses that class only, at once', async () => {
    const p = pool(1, 2);
    await p.run('a', { ms: 1, tag: 'warm' }, { timeoutMs: 20_000 });
    const running = p.run('a', { ms: 200, tag: 'r' }, { timeoutMs: 20_000 });
    const waiting = [
      p.run('a', { ms: 1, tag: 'w1' }, { timeoutMs: 20_000 }),
      p.run('a', { ms: 1, tag: 'w2' }, { timeoutMs: 20_000 }),
    ];
    expect(p.waiting('a')).toBe(2);
    await expect(p.run('a', { ms: 1, tag: 'x' }, { timeoutMs: 20_000 })).rejects.toBeInstanceOf(
      PoolBusyError,
    );
    const other = p.run<Answer>('b', { ms: 1, tag: 'b' }, { timeoutMs: 20_000 });
    await Promise.all([running, ...waiting]);
    expect((await other).tag).toBe('b');
  }, 30_000);

  it('a task past its timeout fails alone: its worker is replaced and the tasks behind it run', async () => {
    const p = pool(1);
    await p.run('a', { ms: 1, tag: 'warm' }, { timeoutMs: 20_000 });
    const stuck = p.run('a', { ms: 5_000, tag: 'stuck' }, { timeoutMs: 200 });
    const behind = p.run<Answer>('a', { ms: 1, tag: 'behind' }, { timeoutMs: 20_000 });
    await expect(stuck).rejects.toBeInstanceOf(PoolTimeoutError);
    expect((await behind).tag).toBe('behind');
    expect(p.starts).toBe(2);
  }, 30_000);

  it("a worker's start is not its first task's time: a slow start does not time the task out", async () => {
    process.env.POOL_TEST_BOOT_MS = '800';
    const p = pool(1);
    try {
      // Sent while the worker starts (tsx, then 800 ms of its entry): timed only once it is ready.
      const first = await p.run<Answer>('a', { ms: 1, tag: 'first' }, { timeoutMs: 300 });
      expect(first.tag).toBe('first');
      expect(p.starts).toBe(1);
    } finally {
      delete process.env.POOL_TEST_BOOT_MS;
    }
  }, 30_000);

  it('closing waits for a running task only up to its grace, then stops the worker', async () => {
    const p = pool(1);
    await p.run('a', { ms: 1, tag: 'warm' }, { timeoutMs: 20_000 });
    const stuck = p.run('a', { ms: 5_000, tag: 'long' }, { timeoutMs: 20_000 }).catch((x: unknown) => x);
    const t0 = Date.now();
    await p.close(300);
    expect(Date.now() - t0).toBeLessThan(2_000);
    expect(String(await stuck)).toMatch(/terminated/);
  }, 30_000);

  it("a task's error comes back with its name, message and kind; closing rejects what waits", async () => {
    const p = pool(1);
    const e = await p.run('fail', {}, { timeoutMs: 20_000 }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(PoolTaskError);
    expect((e as PoolTaskError).message).toBe('it failed');
    expect((e as PoolTaskError).remoteKind).toBe('refused');
    const running = p.run('a', { ms: 100, tag: 'r' }, { timeoutMs: 20_000 }).catch((x: unknown) => x);
    const queued = p.run('a', { ms: 1, tag: 'q' }, { timeoutMs: 20_000 }).catch((x: unknown) => x);
    await p.close();
    expect(String(await queued)).toMatch(/closed/);
    // The running task ends first: a worker stopped inside a native call aborts the process.
    expect(await running).toMatchObject({ tag: 'r' });
    await expect(p.run('a', {}, { timeoutMs: 1_000 })).rejects.toThrow(/closed/);
  }, 30_000);
});
