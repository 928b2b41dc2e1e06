import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  anchorFileBody,
  DEMO_CLOCK_FILE,
  type DemoClock,
  type DemoClockAnchor,
  demoClock,
  parseDemoClockFile,
  writeAtomically,
} from './demo-clock.ts';

/**
 * The demo clock across a split demo: `citebench harness --simulate` (the writer) publishes its
 * anchor to SNAPSHOT_DIR/demo-clock.json, the folder every replica reads already, and `serve
 * --simulate` replicas follow it, so writer and replicas agree on the simulated "now" (freshness,
 * day boundaries, the freeze) whatever DEMO_SPEED is. The same file format as DATA_DIR's anchor.
 */
export async function publishClock(snapshotDir: string, anchor: DemoClockAnchor): Promise<void> {
  const body = anchorFileBody(anchor);
  // Rewritten only when it changes: each change is a new anchor the replicas take (and log).
  const old = await readFile(join(snapshotDir, DEMO_CLOCK_FILE), 'utf8').catch(() => null);
  if (old !== body) await writeAtomically(snapshotDir, DEMO_CLOCK_FILE, body);
}

/** How often a replica reads the writer's anchor (a file of about 120 bytes). */
export const FOLLOW_POLL_MS = 1_000;

export interface FollowedClock {
  /** The writer's clock when its anchor was readable, else `own`; follows its changes. */
  readonly now: () => number;
  /** The anchor followed (null: the replica's own clock, no writer anchor yet). */
  current(): DemoClockAnchor | null;
  stop(): void;
}

/**
 * A replica's clock: the anchor in SNAPSHOT_DIR/demo-clock.json, read at start and again whenever
 * the file changes (polled, since a shared volume may not deliver file events); `own` until one
 * exists. A file that is not an anchor is reported once through `onProblem` and ignored.
 */
export async function followSharedClock(o: {
  readonly snapshotDir: string;
  readonly own: DemoClock;
  readonly onChange?: (anchor: DemoClockAnchor) => void;
  readonly onProblem?: (message: string) => void;
  readonly pollMs?: number;
}): Promise<FollowedClock> {
  const path = join(o.snapshotDir, DEMO_CLOCK_FILE);
  let followed: DemoClock | null = null;
  let seen = '';
  // The file's text, not its mtime: two writes within the file system's mtime grain differ too.
  const look = async (): Promise<void> => {
    const text = await readFile(path, 'utf8').catch(() => null);
    if (text === null || text === seen) return;
    seen = text;
    const anchor = parseDemoClockFile(text);
    if (!anchor) {
      // Once per bad text: the next look finds the same text and returns above.
      o.onProblem?.(`${path} is not a demo clock anchor: keeping the current clock`);
      return;
    }
    followed = demoClock(anchor);
    o.onChange?.(anchor);
  };
  await look();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const loop = () => {
    timer = setTimeout(() => {
      void look().finally(() => {
        if (!stopped) loop();
      });
    }, o.pollMs ?? FOLLOW_POLL_MS);
    timer.unref();
  };
  loop();
  return {
    now: () => (followed ?? o.own).now(),
    current: () => followed?.anchor ?? null,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/**
 * A `serve --simulate` replica's clock (STORE=prometheus, HARNESS_ENABLED=false): the writer's
 * anchor, logged when it is taken; a writer running at another DEMO_SPEED is a WARN, since the
 * replica's timers (the view refresh, its own rate) still run at its own.
 */
export function followWriterClock(
  snapshotDir: string,
  own: DemoClock,
  log: {
    info(msg: string, f?: Record<string, unknown>): void;
    warn(msg: string, f?: Record<string, unknown>): void;
  },
): Promise<FollowedClock> {
  return followSharedClock({
    snapshotDir,
    own,
    onChange: (a) => {
      log.info("following the writer's demo clock", {
        now: new Date(demoClock(a).now()).toISOString(),
        speed: a.speed,
        file: join(snapshotDir, DEMO_CLOCK_FILE),
      });
      if (a.speed !== own.rate)
        log.warn(
          `the writer runs at DEMO_SPEED=${a.speed}, this replica at ${own.rate}: set the same on both`,
        );
    },
    onProblem: (m) => log.warn(m),
  });
}
