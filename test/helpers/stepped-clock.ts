import type { Clock } from '../../src/harness/types.ts';

/**
 * A demo clock the test moves, so what the code under test sees of time does not depend on how
 * fast the machine is: `step(ms)` moves it (the test calls it on an event, e.g. once per cycle),
 * and a timer of at most `jumpMs` fires at once with the clock set to its due time, as if the wait
 * had passed. A longer timer (a live slot, a cycle's deadline) never fires: time beyond the jump
 * bound passes only when the test says so.
 */
export interface SteppedClock extends Clock {
  readonly rate: number;
  step(ms: number): void;
}

export function steppedClock(o: { start: number; rate: number; jumpMs: number }): SteppedClock {
  let now = o.start;
  const held = new Set<unknown>();
  return {
    rate: o.rate,
    now: () => now,
    step(ms) {
      now += ms;
    },
    setTimeout(fn, ms) {
      if (ms > o.jumpMs) {
        const h = Symbol('held timer');
        held.add(h);
        return h;
      }
      return setImmediate(() => {
        now = Math.max(now, now + Math.max(0, ms));
        fn();
      });
    },
    clearTimeout(h) {
      if (held.delete(h)) return;
      clearImmediate(h as ReturnType<typeof setImmediate>);
    },
  };
}
