/**
 * A split demo's one clock (src/demo/shared-clock.ts): the writer publishes its anchor to
 * SNAPSHOT_DIR/demo-clock.json, a `serve --simulate` replica follows it from start and again when
 * it changes (a writer restarted at another DEMO_SPEED re-anchors), and keeps its own until then.
 */
import type * as FsPromises from 'node:fs/promises';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { type DemoClock, demoClock } from '../../src/demo/demo-clock.ts';
import { type FollowedClock, followSharedClock, publishClock } from '../../src/demo/shared-clock.ts';
import { until } from '../helpers/until.ts';

/** Every read of a demo-clock.json: each of the follower's looks is one. */
const reads = vi.hoisted(() => ({ anchors: 0 }));

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof FsPromises>();
  const readFile = ((...args: Parameters<typeof real.readFile>) => {
    if (String(args[0]).endsWith('demo-clock.json')) reads.anchors++;
    return real.readFile(...args);
  }) as typeof real.readFile;
  return { ...real, default: { ...real, readFile }, readFile };
});

/** Quiet, a change is seen within one 50 ms poll; the bound (against a hang only) allows 600 of them. */
const SEEN_MS = 30_000;

/**
 * The followed clock reads `clock`'s now, within 2 s (simulated): read between two readings of
 * `clock`, so however long the machine takes between the calls, the allowance stays 2 s.
 */
function expectSameNow(followed: FollowedClock, clock: DemoClock): void {
  const before = clock.now();
  const got = followed.now();
  const after = clock.now();
  expect(got).toBeGreaterThan(before - 2000);
  expect(got).toBeLessThan(after + 2000);
}

describe('the writer’s clock, followed by a replica', () => {
  it('the same now (within 2 s) from start and after the writer re-anchors; its own before the file exists', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cb-shared-clock-'));
    const own = demoClock({ anchor: Date.now(), anchorWall: Date.now(), speed: 60 });
    const changes: number[] = [];
    const followed = await followSharedClock({
      snapshotDir: dir,
      own,
      pollMs: 50,
      onChange: (a) => changes.push(a.speed),
    });
    try {
      expectSameNow(followed, own);
      const writer = demoClock({ anchor: Date.UTC(2026, 2, 10, 23, 50), anchorWall: Date.now(), speed: 60 });
      await publishClock(dir, writer.anchor);
      await until(() => changes.length === 1, SEEN_MS, 'the first anchor followed');
      expectSameNow(followed, writer);
      // Published again unchanged: not a change.
      await publishClock(dir, writer.anchor);
      const again = demoClock({ anchor: writer.now(), anchorWall: Date.now(), speed: 600 });
      await publishClock(dir, again.anchor);
      await until(() => changes.length === 2, SEEN_MS, 'the new anchor followed');
      expect(changes).toEqual([60, 600]);
      expectSameNow(followed, again);
    } finally {
      followed.stop();
    }
  });

  it('a file that is not an anchor is reported once and the clock kept', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cb-shared-clock-'));
    await writeFile(join(dir, 'demo-clock.json'), 'nonsense');
    const own = demoClock({ anchor: 0, anchorWall: Date.now(), speed: 1 });
    const problems: string[] = [];
    const before = reads.anchors;
    const followed = await followSharedClock({
      snapshotDir: dir,
      own,
      pollMs: 20,
      onProblem: (m) => problems.push(m),
    });
    // The look at start and four more polls, all finding the same bad text.
    await until(() => reads.anchors - before >= 5, SEEN_MS, 'five looks at the file');
    followed.stop();
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/demo-clock\.json is not a demo clock anchor/);
    expectSameNow(followed, own);
  });
});
