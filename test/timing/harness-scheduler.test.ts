import { Registry } from 'prom-client';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BenchmarkSpec } from '../../src/core/spec-schema.ts';
import { loadHarnessConfig, simulatorEnv } from '../../src/harness/config.ts';
import { nextSlot, type ScheduledJob, Scheduler } from '../../src/harness/scheduler.ts';
import { lastCycle, startHarness } from '../../src/harness/service.ts';
import { REFERENCE_TOKENS } from '../../src/harness/tokens.ts';
import type { Clock } from '../../src/harness/types.ts';
import { loadSpecs } from '../../src/publication/load-specs.ts';
import { startSimulator } from '../../src/sim/server.ts';
import { scaledBudget } from '../helpers/calibration.ts';
import { createMemoryStore } from '../helpers/memory-store.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
const D = Date.UTC(2026, 6, 23, 10, 7, 0);

/** A manual clock: timers fire only when the test advances time. */
class FakeClock implements Clock {
  private timers: Array<{ at: number; fn: () => void; id: number }> = [];
  private seq = 0;
  constructor(public t: number) {}
  now = () => this.t;
  setTimeout = (fn: () => void, ms: number) => {
    const id = ++this.seq;
    this.timers.push({ at: this.t + Math.max(0, ms), fn, id });
    return id;
  };
  clearTimeout = (h: unknown) => {
    this.timers = this.timers.filter((x) => x.id !== h);
  };
  get pending(): number {
    return this.timers.length;
  }
  /** Fires due timers in time order up to `to`, letting promise chains settle in between. */
  async advanceTo(to: number): Promise<void> {
    for (;;) {
      await settle();
      this.timers.sort((a, b) => a.at - b.at || a.id - b.id);
      const next = this.timers[0];
      if (!next || next.at > to) break;
      this.timers.shift();
      this.t = Math.max(this.t, next.at);
      next.fn();
    }
    this.t = Math.max(this.t, to);
    await settle();
  }
  /** A suspended host: time jumps without timers firing. */
  jump(ms: number): void {
    this.t += ms;
  }
}

/** Stops while letting the running cycle's simulated time pass. */
async function stopWith(s: Scheduler, clock: FakeClock): Promise<void> {
  const p = s.stop();
  await clock.advanceTo(clock.t + 24 * HOUR);
  await p;
}

async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
}

function job(
  slug: string,
  cadenceMs: number,
  clock: FakeClock,
  durationMs: number,
  log: Array<[string, number, number]>,
) {
  let active = 0;
  let maxActive = 0;
  const j: ScheduledJob & { maxActive: () => number } = {
    slug,
    cadenceMs,
    run: (at) =>
      new Promise<void>((resolve) => {
        active++;
        maxActive = Math.max(maxActive, active);
        log.push([slug, at, clock.now()]);
        clock.setTimeout(() => {
          active--;
          resolve();
        }, durationMs);
      }),
    maxActive: () => maxActive,
  };
  return j;
}

describe('nextSlot', () => {
  it('aligns to multiples of the cadence since epoch and never repeats the last slot', () => {
    expect(nextSlot(D, 30 * MIN)).toBe(Date.UTC(2026, 6, 23, 10, 30));
    expect(nextSlot(D, 6 * HOUR)).toBe(Date.UTC(2026, 6, 23, 12, 0));
    const exact = Date.UTC(2026, 6, 23, 11, 0);
    expect(nextSlot(exact, 30 * MIN)).toBe(exact);
    expect(nextSlot(exact, 30 * MIN, exact)).toBe(exact + 30 * MIN);
  });
});

describe('Scheduler on a simulated clock', () => {
  it('runs each job at its aligned slots with the slot time as `at`', async () => {
    const clock = new FakeClock(D);
    const log: Array<[string, number, number]> = [];
    const s = new Scheduler(
      [job('tt', 30 * MIN, clock, MIN, log), job('nc', 6 * HOUR, clock, MIN, log)],
      clock,
      () => {},
    );
    s.start();
    await clock.advanceTo(Date.UTC(2026, 6, 23, 13, 0));
    const at = (slug: string) =>
      log.filter((l) => l[0] === slug).map((l) => new Date(l[1]).toISOString().slice(11, 16));
    expect(at('tt')).toEqual(['10:30', '11:00', '11:30', '12:00', '12:30', '13:00']);
    expect(at('nc')).toEqual(['12:00']);
    await stopWith(s, clock);
    expect(log).toHaveLength(7);
  });

  it('never overlaps a job with itself: a cycle longer than the cadence skips to the next free slot', async () => {
    const clock = new FakeClock(D);
    const log: Array<[string, number, number]> = [];
    const j = job('tt', 30 * MIN, clock, 45 * MIN, log);
    const s = new Scheduler([j], clock, () => {});
    s.start();
    await clock.advanceTo(Date.UTC(2026, 6, 23, 12, 0));
    expect(log.map((l) => new Date(l[1]).toISOString().slice(11, 16))).toEqual(['10:30', '11:30']);
    expect(j.maxActive()).toBe(1);
    await stopWith(s, clock);
    expect(log).toHaveLength(2);
    expect(j.maxActive()).toBe(1);
  });

  it('after downtime resumes at the next aligned slot and never fabricates missed cycles', async () => {
    const clock = new FakeClock(D);
    const log: Array<[string, number, number]> = [];
    const warnings: string[] = [];
    const s = new Scheduler([job('tt', 30 * MIN, clock, MIN, log)], clock, (_l, m) => warnings.push(m));
    s.start();
    await settle();
    clock.jump(3 * HOUR); // suspended from 10:07 to 13:07; the 10:30 timer fires late
    await clock.advanceTo(Date.UTC(2026, 6, 23, 14, 0));
    expect(log.map((l) => new Date(l[1]).toISOString().slice(11, 16))).toEqual(['13:30', '14:00']);
    expect(warnings.some((w) => w.includes('missed'))).toBe(true);
    await stopWith(s, clock);
  });

  it('after a restart does not rerun the slot it last completed', async () => {
    const slot = Date.UTC(2026, 6, 23, 11, 0);
    const clock = new FakeClock(slot);
    const log: Array<[string, number, number]> = [];
    const s = new Scheduler(
      [job('tt', 30 * MIN, clock, MIN, log)],
      clock,
      () => {},
      async () => slot,
    );
    s.start();
    await clock.advanceTo(slot + 31 * MIN);
    expect(log.map((l) => l[1])).toEqual([slot + 30 * MIN]);
    await stopWith(s, clock);
  });

  it('stop() waits for the running cycle, then plans nothing more', async () => {
    const clock = new FakeClock(D);
    const log: Array<[string, number, number]> = [];
    const s = new Scheduler([job('tt', 30 * MIN, clock, 10 * MIN, log)], clock, () => {});
    s.start();
    await clock.advanceTo(Date.UTC(2026, 6, 23, 10, 31));
    let stopped = false;
    const p = s.stop().then(() => {
      stopped = true;
    });
    await settle();
    expect(stopped).toBe(false);
    await clock.advanceTo(Date.UTC(2026, 6, 23, 10, 41));
    await p;
    expect(stopped).toBe(true);
    await clock.advanceTo(Date.UTC(2026, 6, 23, 12, 0));
    expect(log).toHaveLength(1);
    expect(clock.pending).toBe(0);
  });
});

describe('harness service', () => {
  let specs: BenchmarkSpec[];
  beforeAll(async () => {
    specs = await loadSpecs(new URL('../../benchmarks', import.meta.url).pathname);
  });
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0)) await c();
  });

  it('serializes concurrent runCycle calls of one benchmark (no overlapping cycles)', async () => {
    const sim = await startSimulator({ seed: 3, tradesPerHour: 120, latencyMs: 20 });
    cleanup.push(() => sim.close());
    const store = createMemoryStore();
    const h = startHarness({
      store,
      specs,
      metrics: new Registry(),
      harnessConfig: loadHarnessConfig(simulatorEnv(sim.baseUrls, sim.keys)),
      tokens: REFERENCE_TOKENS.slice(0, 2),
      autoStart: false,
    });
    cleanup.push(() => h.stop());
    const spans: Array<[number, number]> = [];
    const timed = async (at: number) => {
      const r = await h.runCycle('token-trade-coverage', at);
      const end = performance.now();
      spans.push([end - r.durationMs, end]);
    };
    await Promise.all([timed(D), timed(D + 30 * MIN), timed(D + 60 * MIN)]);
    spans.sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < spans.length; i++)
      expect(spans[i]?.[0]).toBeGreaterThanOrEqual((spans[i - 1]?.[1] ?? 0) - 1);
    // The harness resumes from the cycle marker stored with the samples, not from separate state.
    expect(await lastCycle(store, 'token-trade-coverage', { now: D + HOUR })).toBe(D + 60 * MIN);
  });

  it('ends a cycle at its deadline: cells cut short are abandoned (nothing stored), the process stays up', async () => {
    const DEADLINE_MS = 300;
    const sim = await startSimulator({ seed: 3, tradesPerHour: 60 });
    cleanup.push(() => sim.close());
    for (const p of ['mobula', 'bitquery', 'codex']) sim.setFault(p, { kind: 'hang' });
    const store = createMemoryStore();
    const h = startHarness({
      store,
      specs,
      metrics: new Registry(),
      harnessConfig: loadHarnessConfig(
        simulatorEnv(sim.baseUrls, sim.keys, {
          HARNESS_TIMEOUT_MS: '60000',
          HARNESS_CYCLE_DEADLINE_MS: String(DEADLINE_MS),
        }),
      ),
      autoStart: false,
    });
    cleanup.push(() => h.stop());
    const t0 = performance.now();
    const r = await h.runCycle('token-trade-coverage', D);
    // The deadline plus a margin: quiet, the cycle returns ~10 ms after it (the cells that
    // answered are scored, the hung ones abandoned); the margin allows 500 ms × the calibration's
    // factor, where the hung providers' own 60 s timeout would hold a cycle that ignored it.
    expect(performance.now() - t0).toBeLessThan(DEADLINE_MS + scaledBudget(500));
    expect(r.aborted).toBe(true);
    // Our deadline is not the providers' timeout: no provider is scored for a cell we cut short.
    expect(r.cells?.length).toBeGreaterThan(0);
    expect(new Set(r.cells?.map((c) => c.abandoned))).toEqual(new Set(['deadline']));
    expect(await store.select({ metric: 'token_trade_capture_pct', after: 0, until: D })).toEqual([]);
  });

  it('measureNow (an empty store at start-up) stamps a listing with the time it ran, a window cycle with its closed slot', async () => {
    const sim = await startSimulator({ seed: 3, tradesPerHour: 60, latencyMs: 5 });
    cleanup.push(() => sim.close());
    const store = createMemoryStore();
    // Read at 17:55: the 6-hour listing's aligned slot is 12:00, the 30-minute trade slot 17:30.
    const readAt = Date.UTC(2026, 6, 23, 17, 55, 0);
    const h = startHarness({
      store,
      specs,
      metrics: new Registry(),
      harnessConfig: loadHarnessConfig(simulatorEnv(sim.baseUrls, sim.keys)),
      tokens: REFERENCE_TOKENS.slice(0, 1),
      clock: new FakeClock(readAt),
      autoStart: false,
    });
    cleanup.push(() => h.stop());
    const [listing, again, trades] = await Promise.all([
      h.measureNow('network-coverage'),
      h.measureNow('network-coverage'),
      h.measureNow('token-trade-coverage'),
    ]);
    expect(listing.at).toBe(readAt);
    // One probe per family: the second ask shares the first one's cycle.
    expect(again).toBe(listing);
    const counts = await store.select({ metric: 'networks_supported', after: 0, until: readAt + HOUR });
    expect(counts.length).toBeGreaterThan(0);
    expect(new Set(counts.map((x) => x.t))).toEqual(new Set([readAt]));
    expect(await lastCycle(store, 'network-coverage', { now: readAt })).toBe(readAt);
    expect(trades.at).toBe(Date.UTC(2026, 6, 23, 17, 30, 0));
    expect(await lastCycle(store, 'token-trade-coverage', { now: readAt })).toBe(
      Date.UTC(2026, 6, 23, 17, 30, 0),
    );
  });
});
