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
  /** When the task ran on its thread, epoch ms. */
  readonly from: number;
  readonly to: number;
}

/** The most tasks that ran at one instant. */
function mostAtOnce(answers: readonly Answer[]): number {
  // Ends before starts at the same instant: touching intervals did not overlap.
  const edges = answers
    .flatMap((a) => [
      [a.from, 1],
      [a.to, -1],
    ])
    .sort((x, y) => (x[0] as number) - (y[0] as number) || (x[1] as number) - (y[1] as number));
  let now = 0;
  let most = 0;
  for (const [, d] of edges) {
    now += d as number;
    most = Math.max(most, now);
  }
  return most;
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
    const answers = await Promise.all(
      [1, 2, 3, 4].map((i) => p.run<Answer>('a', { ms: 300, tag: `t${i}` }, { timeoutMs: 20_000 })),
    );
    // Two at a time, as the tasks' own times on their threads say: not one (serial) nor four
    // (a thread each), however slow the machine.
    expect(mostAtOnce(answers)).toBe(2);
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
    // A start longer than the task's timeout; the timeout is 1,000 times the task's quiet 1 ms.
    process.env.POOL_TEST_BOOT_MS = '2000';
    const p = pool(1);
    try {
      // Sent while the worker starts (tsx, then 2 s of its entry): timed only once it is ready.
      const first = await p.run<Answer>('a', { ms: 1, tag: 'first' }, { timeoutMs: 1_000 });
      expect(first.tag).toBe('first');
      expect(p.starts).toBe(1);
    } finally {
      delete process.env.POOL_TEST_BOOT_MS;
    }
  }, 30_000);

  it('closing waits for a running task only up to its grace, then stops the worker', async () => {
    const p = pool(1);
    await p.run('a', { ms: 1, tag: 'warm' }, { timeoutMs: 20_000 });
    // A task that would outlast the test: close() returns only because its grace ends.
    const stuck = p.run('a', { ms: 600_000, tag: 'long' }, { timeoutMs: 900_000 }).catch((x: unknown) => x);
    await p.close(300);
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
