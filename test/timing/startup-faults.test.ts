import { afterAll, describe, expect, inject, it } from 'vitest';
import { scaledBudget } from '../helpers/calibration.ts';
import {
  ENTRIES,
  type Entry,
  FAULTS,
  fullTmpfs,
  nodeEntry,
  type TimedRun,
  timedRun,
  tsxBaseline,
  unmountAll,
} from '../helpers/startup-fault.ts';

afterAll(() => unmountAll());

// Mounting needs root (CI and the dev machines run as root); elsewhere the full-disk case is skipped.
const canMount = fullTmpfs() !== null;

/**
 * Issue 26: a fault is reported before anything else happens. Validate every variable, take
 * DATA_DIR's lock and open the store, bind the port; only then import the app, backfill, freeze.
 * Time is "our own": process start to exit less what Node and tsx alone take to start and exit,
 * measured just before each run. The issue asks for < 1 s of it. On the quiet reference machine
 * (bench/startup-faults.ts) our own time is ~0.3 s and a run 0.6–1.2 s start to exit (npm run demo
 * adds its own ~0.3–1 s); the budgets allow 1.5 s of our own (5× quiet) and 5 s start to exit
 * (4× the slowest way), each × the calibration's factor. Independent of the machine's load, our own
 * time must also be less than half of what importing the app alone takes (1–1.5 s quiet, measured
 * beside each run): b7b957c imported the whole app first (0.65–1.6 of it), backfilled before it
 * found a busy port, and bound HOST only then.
 */
describe('fail fast: one line naming the fault, nothing else, a non-zero exit', () => {
  const OWN_MS = scaledBudget(1_500);
  const WALL_MS = scaledBudget(5_000);
  const OF_APP_IMPORT = 0.5;
  const ATTEMPTS = 3;
  /** A run still going at twice its budget is killed: it has failed, and the output says how far it got. */
  const KILL_MS = 2 * WALL_MS;
  /**
   * The hang guard of a test: per entry, up to 3 attempts of three runs (node+tsx, the app's import,
   * the entry), each within KILL_MS. Only a hang reaches it; a slow run fails with its figures first.
   */
  const guard = (entries: number, faults = 1) => faults * entries * ATTEMPTS * 3 * KILL_MS;

  /** Our own time to import the app (the service and every route module), as start-up once did first. */
  async function appImportMs(baseMs: number, as: { uid?: number }): Promise<number> {
    const r = await timedRun(
      [
        process.execPath,
        '--import',
        'tsx',
        '-e',
        "await import('./src/service.ts'); await import('./src/routes.ts')",
      ],
      {},
      { ...as, timeoutMs: KILL_MS },
    );
    expect(r.code, r.output).toBe(0);
    return r.ms - baseMs;
  }

  /** One run of `entry` against a fault just set up. */
  function runEntry(
    entry: Entry | 'npm',
    env: Record<string, string>,
    as: { uid?: number },
  ): Promise<TimedRun> {
    return entry === 'npm'
      ? timedRun(['npm', 'run', '--silent', 'demo'], env, { ...as, timeoutMs: KILL_MS })
      : timedRun(nodeEntry(entry), { ...ENTRIES[entry].env, ...env }, { ...as, timeoutMs: KILL_MS });
  }

  /**
   * Runs each entry against one fault, with node+tsx's own start and the app's import measured just
   * before it, under the same load: every run must be one clean line; the time is that of the best
   * of up to 3 runs (noise only ever adds time).
   */
  async function against(name: string, entries: readonly (Entry | 'npm')[]): Promise<void> {
    const fault = FAULTS.find((f) => f.name === name);
    for (const entry of entries) {
      const times: string[] = [];
      let ok = false;
      for (let attempt = 1; attempt <= ATTEMPTS && !ok; attempt++) {
        const f = await fault?.setup();
        if (!f) throw new Error(`cannot set up ${name}`);
        try {
          const as = f.uid !== undefined ? { uid: f.uid } : {};
          const base = await tsxBaseline(as);
          const app = await appImportMs(base.ms, as);
          const r = await runEntry(entry, f.env, as);
          const took = `${Math.round(r.ms)} ms (node+tsx ${Math.round(base.ms)} ms, app import ${Math.round(app)} ms)`;
          const what = `${name} / ${entry}: ${took}\n${r.output}`;
          expect(r.code, what).toBe(2);
          // Nothing but the line: no log line, no welcome, no backfill progress, no stack.
          const lines = r.output.split('\n').filter((l) => l.trim() !== '');
          expect(lines, what).toHaveLength(1);
          expect(lines[0], what).toMatch(/^cannot start: /);
          expect(lines[0], what).toMatch(f.names);
          times.push(took);
          // npm's own start (~0.3–1 s) is not ours: only the start-to-exit bound applies to it.
          const own = entry === 'npm' ? 0 : r.ms - base.ms;
          ok = r.ms < WALL_MS && own < OWN_MS && own < OF_APP_IMPORT * app;
        } finally {
          await f.release();
        }
      }
      if (!ok) {
        const factor = inject('calibration').factor.toFixed(2);
        throw new Error(
          `${name} / ${entry}: not within ${Math.round(WALL_MS)} ms, ${Math.round(OWN_MS)} ms of our own (budgets × ${factor}) and ${OF_APP_IMPORT} of the app's import in ${ATTEMPTS} runs: ${times.join(', ')}`,
        );
      }
    }
  }

  it(
    'a busy port: before any backfill, from node, the demo entry and npm run demo',
    async () => {
      await against('busy port', ['serve', 'demo', 'npm']);
    },
    guard(3),
  );

  it(
    'a DATA_DIR locked by another process (DuckDB lock)',
    async () => {
      await against('locked DATA_DIR', ['serve', 'demo']);
    },
    guard(2),
  );

  it(
    'an unwritable DATA_DIR (0555; run as nobody when the tests run as root)',
    async () => {
      await against('unwritable DATA_DIR', ['serve', 'demo']);
    },
    guard(2),
  );

  it.runIf(canMount)(
    'a full DATA_DIR (a filled 1 MiB tmpfs: ENOSPC on the first write)',
    async () => {
      await against('full DATA_DIR', ['serve', 'demo']);
    },
    guard(2),
  );

  const badVariables = FAULTS.filter((x) => x.name.startsWith('bad variable'));
  it(
    'a bad variable: malformed, or well-formed but not usable here (HOST not an address of this machine)',
    async () => {
      for (const f of badVariables) await against(f.name, ['serve', 'demo']);
    },
    guard(2, badVariables.length),
  );
});
