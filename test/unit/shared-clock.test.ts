/**
 * A split demo's one clock (src/demo/shared-clock.ts): the writer publishes its anchor to
 * SNAPSHOT_DIR/demo-clock.json, a `serve --simulate` replica follows it from start and again when
 * it changes (a writer restarted at another DEMO_SPEED re-anchors), and keeps its own until then.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { demoClock } from '../../src/demo/demo-clock.ts';
import { followSharedClock, publishClock } from '../../src/demo/shared-clock.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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
      expect(Math.abs(followed.now() - own.now())).toBeLessThan(2000);
      const writer = demoClock({ anchor: Date.UTC(2026, 2, 10, 23, 50), anchorWall: Date.now(), speed: 60 });
      await publishClock(dir, writer.anchor);
      for (let i = 0; i < 100 && changes.length === 0; i++) await sleep(20);
      expect(Math.abs(followed.now() - writer.now())).toBeLessThan(2000);
      // Published again unchanged: not a change.
      await publishClock(dir, writer.anchor);
      const again = demoClock({ anchor: writer.now(), anchorWall: Date.now(), speed: 600 });
      await publishClock(dir, again.anchor);
      for (let i = 0; i < 100 && changes.length < 2; i++) await sleep(20);
      expect(changes).toEqual([60, 600]);
      expect(Math.abs(followed.now() - again.now())).toBeLessThan(2000);
    } finally {
      followed.stop();
    }
  });

  it('a file that is not an anchor is reported once and the clock kept', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cb-shared-clock-'));
    await writeFile(join(dir, 'demo-clock.json'), 'nonsense');
    const own = demoClock({ anchor: 0, anchorWall: Date.now(), speed: 1 });
    const problems: string[] = [];
    const followed = await followSharedClock({
      snapshotDir: dir,
      own,
      pollMs: 20,
      onProblem: (m) => problems.push(m),
    });
    await sleep(100);
    followed.stop();
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/demo-clock\.json is not a demo clock anchor/);
    expect(Math.abs(followed.now() - own.now())).toBeLessThan(2000);
  });
});
