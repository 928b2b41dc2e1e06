import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { Clock } from '../harness/types.ts';

/**
 * The one clock of the demo and `serve --simulate`: simulated = anchor + (wall − anchorWall) ×
 * speed. The harness's schedule and sample times, the chains' blocks, the publication's "now"
 * (freshness, asOf ages, view ages, day boundaries, the freeze, "Retrieved") all read it, so at
 * DEMO_SPEED=600 a simulated day (2.4 min) closes and is frozen like a real one. DEMO_SPEED=1 on a
 * fresh DATA_DIR is the wall clock (anchor = anchorWall = now).
 *
 * The anchor is kept in DATA_DIR/demo-clock.json, so a restart continues the same simulated time,
 * and the clock keeps running while the process is down: that is how a downtime becomes slots
 * nobody tried.
 */
export const DEMO_CLOCK_FILE = 'demo-clock.json';

export interface DemoClockAnchor {
  /** Simulated epoch ms at `anchorWall`. */
  readonly anchor: number;
  /** Wall-clock epoch ms the anchor was set at. */
  readonly anchorWall: number;
  /** Simulated ms per wall ms (DEMO_SPEED). */
  readonly speed: number;
}

export interface DemoClock extends Clock {
  readonly rate: number;
  readonly anchor: DemoClockAnchor;
}

/** A clock running `speed` times the wall clock from `anchor` (timers wait wall time / speed). */
export function demoClock(anchor: DemoClockAnchor, wall: () => number = Date.now): DemoClock {
  const { speed } = anchor;
  return {
    anchor,
    rate: speed,
    // Whole milliseconds (a DEMO_SPEED of 1.5 would stamp fractional sample times).
    now: () => Math.floor(anchor.anchor + (wall() - anchor.anchorWall) * speed),
    setTimeout: (fn, ms) => setTimeout(fn, Math.max(0, ms / speed)),
    clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
  };
}

/** A harness clock over another clock's `now` and rate (the service's, which the demo shares). */
export function scaledClock(now: () => number, rate: number): Clock {
  return {
    now,
    rate,
    setTimeout: (fn, ms) => setTimeout(fn, Math.max(0, ms / rate)),
    clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
  };
}

const fileSchema = z.object({
  version: z.literal(1),
  anchor: z.iso.datetime(),
  anchorWall: z.iso.datetime(),
  speed: z.number().min(1).max(10000),
});

export class DemoClockError extends Error {}

/** The anchor a demo-clock.json holds, or null when the text is not one. */
export function parseDemoClockFile(text: string): DemoClockAnchor | null {
  try {
    const parsed = fileSchema.parse(JSON.parse(text));
    return {
      anchor: Date.parse(parsed.anchor),
      anchorWall: Date.parse(parsed.anchorWall),
      speed: parsed.speed,
    };
  } catch {
    return null;
  }
}

/** The file's text for an anchor (DATA_DIR's, and the writer's copy in SNAPSHOT_DIR). */
export function anchorFileBody(anchor: DemoClockAnchor): string {
  return `${JSON.stringify({
    version: 1,
    anchor: new Date(anchor.anchor).toISOString(),
    anchorWall: new Date(anchor.anchorWall).toISOString(),
    speed: anchor.speed,
  })}\n`;
}

export interface OpenedDemoClock {
  readonly clock: DemoClock;
  /** How the anchor was chosen, for the start-up log. */
  readonly origin: 'new' | 'resumed' | 'speed-changed';
  /** Writes the anchor to DATA_DIR (after the DATA_DIR was accepted: never into a refused one). */
  save(): Promise<void>;
}

/**
 * The demo clock of DATA_DIR: the stored anchor (re-anchored at the current simulated time when
 * DEMO_SPEED changed, so time stays continuous), else a new one at `start` (DEMO_START; default the
 * wall clock now). `start` is ignored once the file exists. Nothing is written until save().
 */
export async function openDemoClock(o: {
  readonly dataDir: string;
  readonly speed: number;
  readonly start?: number | null;
  readonly wall?: () => number;
}): Promise<OpenedDemoClock> {
  const wall = o.wall ?? Date.now;
  const path = join(o.dataDir, DEMO_CLOCK_FILE);
  const text = await readFile(path, 'utf8').catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return null;
    throw e;
  });
  let anchor: DemoClockAnchor;
  let origin: OpenedDemoClock['origin'];
  if (text === null) {
    const w = wall();
    anchor = { anchor: o.start ?? w, anchorWall: w, speed: o.speed };
    origin = 'new';
  } else {
    const stored = parseDemoClockFile(text);
    if (!stored) {
      throw new DemoClockError(
        `${path} is not a demo clock anchor; delete it to restart the demo's simulated time from now`,
      );
    }
    if (stored.speed === o.speed) {
      anchor = stored;
      origin = 'resumed';
    } else {
      const w = wall();
      anchor = { anchor: demoClock(stored, wall).now(), anchorWall: w, speed: o.speed };
      origin = 'speed-changed';
    }
  }
  const clock = demoClock(anchor, wall);
  const body = anchorFileBody(anchor);
  return {
    clock,
    origin,
    async save() {
      if (origin === 'resumed') return;
      await writeAtomically(o.dataDir, DEMO_CLOCK_FILE, body);
    },
  };
}

/** Writes a small file whole or not at all (a kill -9 mid-write leaves the old one). */
export async function writeAtomically(dir: string, name: string, body: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const tmp = join(dir, `.${name}.${process.pid}.tmp`);
  await writeFile(tmp, body);
  await rename(tmp, join(dir, name));
}
