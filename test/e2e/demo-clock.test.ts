import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { DEMO_CLOCK_FILE, openDemoClock } from '../../src/demo/demo-clock.ts';
import { FREEZE_GRACE_MS } from '../../src/publication/day-freezer.ts';
import { benchmarksWithout } from '../helpers/benchmarks-dir.ts';
import { type ServiceProcess, spawnService, until200 } from '../helpers/service-process.ts';

const running: ServiceProcess[] = [];
afterEach(() => {
  for (const p of running.splice(0)) p.child.kill('SIGKILL');
});

/**
 * Each wait is for its event (/healthz, the simulated midnight, the frozen day), bounded only
 * against a hang: quiet, each comes within 10 s; the bound allows 6 times that.
 */
const STEP_MS = 150_000;

describe('the demo clock: simulated = anchor + (wall − anchorWall) × DEMO_SPEED, kept in DATA_DIR', () => {
  it('starts at DEMO_START (or the wall clock), continues after a restart, and re-anchors when DEMO_SPEED changes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cb-clock-'));
    let wall = Date.UTC(2026, 10, 28, 12, 0);
    const start = Date.UTC(2026, 2, 10, 23, 50);
    const fresh = await openDemoClock({ dataDir: dir, speed: 600, start, wall: () => wall });
    expect(fresh.origin).toBe('new');
    expect(fresh.clock.now()).toBe(start);
    wall += 1_000;
    expect(fresh.clock.now()).toBe(start + 600_000);
    expect(fresh.clock.rate).toBe(600);
    await fresh.save();
    // A restart 10 s (wall) later: the same simulated time kept running while it was down.
    wall += 10_000;
    const again = await openDemoClock({ dataDir: dir, speed: 600, start: 0, wall: () => wall });
    expect(again.origin).toBe('resumed');
    expect(again.clock.now()).toBe(start + 11 * 600_000);
    // Another speed: time is continuous at the switch, then runs at the new rate.
    const slower = await openDemoClock({ dataDir: dir, speed: 1, wall: () => wall });
    expect(slower.origin).toBe('speed-changed');
    expect(slower.clock.now()).toBe(start + 11 * 600_000);
    wall += 1_000;
    expect(slower.clock.now()).toBe(start + 11 * 600_000 + 1_000);
    // DEMO_SPEED=1 on a fresh DATA_DIR is the wall clock.
    const plain = await openDemoClock({ dataDir: mkdtempSync(join(tmpdir(), 'cb-clock-')), speed: 1 });
    // Read between two readings of the wall clock: the 50 ms allow for the anchor, never for the
    // machine's pace between the calls.
    const wallBefore = Date.now();
    const plainNow = plain.clock.now();
    const wallAfter = Date.now();
    expect(plainNow).toBeGreaterThan(wallBefore - 50);
    expect(plainNow).toBeLessThan(wallAfter + 50);
    // A file that is not an anchor is refused with what to do, not silently replaced.
    writeFileSync(join(dir, DEMO_CLOCK_FILE), '{"nope":1}');
    await expect(openDemoClock({ dataDir: dir, speed: 1 })).rejects.toThrow(/delete it/);
  });

  it('DEMO_START and DEMO_DAYS are validated with the configuration: a bad value is one clear line', () => {
    expect(loadConfig({ DEMO_START: '2026-03-10T23:50:00Z', DEMO_DAYS: '0.05' })).toMatchObject({
      demoStart: Date.UTC(2026, 2, 10, 23, 50),
      demoDays: 0.05,
    });
    expect(loadConfig({})).toMatchObject({ demoStart: null, demoDays: 3 });
    for (const [name, value, why] of [
      ['DEMO_START', 'yesterday', 'is not an ISO 8601 UTC date-time'],
      ['DEMO_START', '2026-02-30T00:00:00Z', 'is not an ISO 8601 UTC date-time'],
      ['DEMO_DAYS', '0', 'is not a number of days from 0.01 to 90'],
      ['DEMO_DAYS', '1e3', 'is not a number of days from 0.01 to 90'],
    ] as const) {
      expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
      expect(() => loadConfig({ [name]: value })).toThrow(`${name}=${value} ${why}`);
    }
  });

  it('at DEMO_SPEED=600: the service, the harness and the freeze read it; samples are at most 50 ms × 600 after now; a simulated day closes and is frozen', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cb-clock-600-'));
    // 90 simulated minutes before midnight: ~9 s of wall time at 600. A small backfill (0.05
    // days: three trade slots) and no json-rpc family keep the start-up short.
    const p = await spawnService({
      DATA_DIR: dir,
      DEMO_SPEED: '600',
      DEMO_START: '2026-03-10T22:30:00Z',
      DEMO_DAYS: '0.05',
      BENCHMARKS_DIR: benchmarksWithout(['json-rpc']),
    });
    running.push(p);
    await until200(`${p.base}/healthz`, STEP_MS, p);
    const anchor = JSON.parse(readFileSync(join(dir, DEMO_CLOCK_FILE), 'utf8'));
    expect(anchor).toMatchObject({ anchor: '2026-03-10T22:30:00.000Z', speed: 600 });
    const simulated = (wall: number) =>
      Date.parse(anchor.anchor) + (wall - Date.parse(anchor.anchorWall)) * 600;
    const tolerance = 50 * 600;
    const closed = Date.UTC(2026, 2, 11) + FREEZE_GRACE_MS;
    type Freshness = {
      now: number;
      status: Record<string, { lastSampleAt: string | null; ageSeconds: number | null }>;
    };
    let polls = 0;
    let now = 0;
    // Quiet, the simulated midnight and its freeze grace pass ~10 s after the start.
    const end = Date.now() + 2 * STEP_MS;
    // At least ten polls: on a busy machine the start-up alone can take the clock past the close.
    while ((now < closed + 60_000 || polls < 10) && Date.now() < end) {
      const before = simulated(Date.now());
      const f = (await (await fetch(`${p.base}/api/freshness`)).json()) as Freshness;
      const after = simulated(Date.now());
      now = f.now;
      // The service's now is the demo clock's (not the wall clock, months later).
      expect(now).toBeGreaterThanOrEqual(before - 1_000);
      expect(now).toBeLessThanOrEqual(after + 1_000);
      for (const [slug, s] of Object.entries(f.status)) {
        if (s.lastSampleAt === null) continue;
        // Against the demo clock when the answer was back: a sample appended while it was built is
        // stamped after its `now` by the answer's own time (× 600), which a busy machine stretches.
        expect(Date.parse(s.lastSampleAt) - after, `${slug} sampled after now`).toBeLessThanOrEqual(
          tolerance,
        );
        expect(s.ageSeconds).toBe(Math.max(0, Math.floor((now - Date.parse(s.lastSampleAt)) / 1000)));
      }
      polls++;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(polls).toBeGreaterThanOrEqual(10);
    expect(now).toBeGreaterThanOrEqual(closed);
    // The day closed on the demo clock and was frozen: its snapshot and a Stat pinned to it.
    await until200(`${p.base}/api/citable/2026-03-10`, STEP_MS, p);
    const snap = (await (await fetch(`${p.base}/api/citable/2026-03-10`)).json()) as {
      site: { snapshotDate: string };
      benchmarks: Array<{ slug: string; asOf: string | null }>;
    };
    expect(snap.site.snapshotDate).toBe('2026-03-10');
    const trade = snap.benchmarks.find((b) => b.slug === 'token-trade-coverage');
    expect(trade?.asOf?.slice(0, 10)).toBe('2026-03-10');
    const stat = await fetch(`${p.base}/api/stat/token-trade-coverage?date=2026-03-10`);
    expect(stat.status).toBe(200);
  }, 600_000);
});
