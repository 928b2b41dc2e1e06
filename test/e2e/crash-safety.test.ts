import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { labelsKey, type Sample } from '../../src/core/samples.ts';
import { loadPlan } from '../../src/demo/backfill-plan.ts';
import { METRICS } from '../../src/harness/families/metric-names.ts';
import { type DuckDbStore, openDuckDbStore } from '../../src/store/duckdb-store.ts';
import { benchmarksWithout } from '../helpers/benchmarks-dir.ts';
import { type ServiceProcess, spawnService, until200 } from '../helpers/service-process.ts';

const TRADE = 'token-trade-coverage';
const NETWORK = 'network-coverage';
const CADENCE: Readonly<Record<string, number>> = { [TRADE]: 30 * 60_000, [NETWORK]: 6 * 3_600_000 };
const ALL_TIME = { after: -1, until: Number.MAX_SAFE_INTEGER };

const running: ServiceProcess[] = [];
const burners: ChildProcess[] = [];
afterEach(() => {
  for (const p of running.splice(0)) p.child.kill('SIGKILL');
  for (const b of burners.splice(0)) b.kill('SIGKILL');
});

/** Keeps one core at 100% until killed: the crashed run's backfill runs on a busy machine. */
function burnOneCore(): ChildProcess {
  const b = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
  burners.push(b);
  return b;
}

/**
 * Speed 600: a trade cycle every 3 s of real time, a network cycle every 36 s. The two
 * benchmarks whose cycles this checks; the json-rpc demo's restarts are tested in rpc-demo.test.ts.
 * The demo clock starts at 00:30 on DAY (DEMO_START) and backfills 1.05 days (DEMO_DAYS: 51 trade
 * and 5 network cycles), so the day before, BEFORE, lies wholly in the backfill.
 */
const BENCHMARKS = benchmarksWithout(['json-rpc']);
const DAY = '2026-03-10';
const BEFORE = '2026-03-09';
const BEFORE_START = Date.UTC(2026, 2, 9);
const demoEnv = (dir: string) => ({
  DATA_DIR: dir,
  DEMO_SPEED: '600',
  DEMO_START: `${DAY}T00:30:00Z`,
  DEMO_DAYS: '1.05',
  LOG_LEVEL: 'info',
  BENCHMARKS_DIR: BENCHMARKS,
});

async function killHard(p: ServiceProcess): Promise<void> {
  p.child.kill('SIGKILL');
  expect((await p.exited()).signal).toBe('SIGKILL');
}

/** Live cycles the service reported complete, from its log. */
function reportedCycles(log: string): Array<{ benchmark: string; at: number }> {
  return [...log.matchAll(/ (network-coverage|token-trade-coverage): cycle (\S+) wrote \d+ samples/g)].map(
    (m) => ({ benchmark: m[1] as string, at: Date.parse(m[2] as string) }),
  );
}

async function all(store: DuckDbStore, metric: string): Promise<Sample[]> {
  return store.select({ metric, ...ALL_TIME });
}

type Slots = Map<string, Set<number>>;

/**
 * Every cycle in the store is whole: it was one append, so its samples are all there or none is.
 * network-coverage: networks_supported = n comes with exactly n network_listed rows for that
 * provider and slot. token-trade-coverage: each scored cell has its count, probe and capped rows,
 * a union count for its token, and its provider's per-cycle 5xx row. Returns the slots present.
 */
async function checkWholeCycles(store: DuckDbStore): Promise<Slots> {
  const slots: Slots = new Map([
    [TRADE, new Set<number>()],
    [NETWORK, new Set<number>()],
  ]);
  const listed = new Map<string, number>();
  for (const s of await all(store, METRICS.networkListed)) {
    const k = `${s.labels.provider}@${s.t}`;
    listed.set(k, (listed.get(k) ?? 0) + 1);
  }
  for (const s of await all(store, METRICS.networksSupported)) {
    slots.get(NETWORK)?.add(s.t);
    expect(
      listed.get(`${s.labels.provider}@${s.t}`) ?? 0,
      `network_listed of ${s.labels.provider} at ${s.t}`,
    ).toBe(s.v);
  }
  const keyed = async (metric: string) =>
    new Set((await all(store, metric)).map((s) => `${labelsKey(s.labels)}@${s.t}`));
  const probes = await keyed(METRICS.tokenTradeProbeOk);
  const capped = await keyed(METRICS.tokenTradeCapped);
  const unions = await keyed(METRICS.tokenTradeUnionCount);
  const fiveXx = await keyed(METRICS.providerCycle5xx);
  for (const s of await all(store, METRICS.tokenTradeCount)) {
    slots.get(TRADE)?.add(s.t);
    const k = `${labelsKey(s.labels)}@${s.t}`;
    expect(probes.has(k), `probe of ${k}`).toBe(true);
    expect(capped.has(k), `capped of ${k}`).toBe(true);
    // The union is per cell: the cell's labels without the provider (origin and region stay).
    const { provider = '', ...cell } = s.labels;
    expect(unions.has(`${labelsKey(cell)}@${s.t}`), `union of ${k}`).toBe(true);
    const { chain: _chain, token: _token, ...harnessLabels } = cell;
    expect(
      fiveXx.has(`${labelsKey({ benchmark: TRADE, provider, ...harnessLabels })}@${s.t}`),
      `5xx row of ${k}`,
    ).toBe(true);
  }
  return slots;
}

/** Opens the database the killed process left (DuckDB replays its WAL) and checks it. */
async function inspect(dir: string): Promise<Slots> {
  const store = await openDuckDbStore({ path: join(dir, 'citebench.duckdb') });
  try {
    return await checkWholeCycles(store);
  } finally {
    await store.close();
  }
}

function expectContiguous(slots: ReadonlySet<number>, cadence: number): void {
  const sorted = [...slots].sort((a, b) => a - b);
  for (let i = 1; i < sorted.length; i++)
    expect((sorted[i] as number) - (sorted[i - 1] as number)).toBe(cadence);
}

/** Polls until `url` answers 200 and returns its JSON. */
async function json200<T>(url: string, ms: number, p: ServiceProcess): Promise<T> {
  await until200(url, ms, p);
  return (await (await fetch(url)).json()) as T;
}

/** Polls the citable index until both benchmarks are live (an event the index shows), or fails at `ms`. */
async function untilLive(p: ServiceProcess, ms: number): Promise<void> {
  const end = Date.now() + ms;
  let live: Record<string, string> = {};
  while (Date.now() < end) {
    live = await statuses(p.base);
    if (live[TRADE] === 'live' && live[NETWORK] === 'live') return;
    await new Promise((r) => setTimeout(r, 250));
  }
  expect({ [TRADE]: live[TRADE], [NETWORK]: live[NETWORK] }).toEqual({ [TRADE]: 'live', [NETWORK]: 'live' });
}

/** The citable index's status of each benchmark. */
async function statuses(base: string): Promise<Record<string, string>> {
  const idx = (await (await fetch(`${base}/api/citable`)).json()) as {
    benchmarks: Array<{ slug: string; status: string }>;
  };
  return Object.fromEntries(idx.benchmarks.map((b) => [b.slug, b.status]));
}

describe('kill -9 during the backfill or mid-write, then restart on the same DATA_DIR', () => {
  it('resumes the backfill plan on a busy machine: the day before has the rows of a quiet uninterrupted run, no gap, live at once; every reported cycle whole, frozen bytes identical', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cb-crash-'));
    // The uninterrupted run with the same seed and clock start, on a quiet machine first.
    const whole = await spawnService(demoEnv(mkdtempSync(join(tmpdir(), 'cb-whole-'))));
    running.push(whole);
    await until200(`${whole.base}/healthz`, 240_000, whole);
    type Manifest = { rows: number; missingSlots?: unknown[] };
    const wholeDay = await json200<Manifest>(`${whole.base}/api/dataset/${BEFORE}.json`, 60_000, whole);
    await killHard(whole);
    // From here one core is busy: a backfill is not real time, so nothing may be lost to it.
    const burner = burnOneCore();

    // 1. Killed during the backfill, between 20% and 80% of it.
    const first = await spawnService(demoEnv(dir));
    running.push(first);
    const m = await first.waitFor(/backfilling [\d.]+ days: (\d+)\/(\d+) cycles \((?:[2-7]\d)%\)/, 240_000);
    await killHard(first);
    const reported = Number(m[1]);
    let slots = await inspect(dir);
    const stored = (slots.get(TRADE)?.size ?? 0) + (slots.get(NETWORK)?.size ?? 0);
    // Backfill runs slots oldest first: what is stored is a gap-free prefix at least as long as reported.
    expect(stored).toBeGreaterThanOrEqual(reported);
    expect(stored).toBeLessThan(Number(m[2]));
    expectContiguous(slots.get(TRADE) ?? new Set(), CADENCE[TRADE] as number);
    expectContiguous(slots.get(NETWORK) ?? new Set(), CADENCE[NETWORK] as number);

    // 2. Restarted: the plan is resumed (its tried slots skipped, every untried one run, however
    // far the demo clock moved meanwhile), extended over the downtime, and every benchmark is live
    // (12 s on an idle 2-core VM; the bound is a hang guard, not a budget).
    const second = await spawnService(demoEnv(dir));
    running.push(second);
    const resumed = await second.waitFor(/backfill plan resumed .*resumedSlots=(\d+)/, 120_000);
    // Each cycle marks every benchmark it serves: the trade cycle two, the network cycle one.
    expect(Number(resumed[1])).toBeGreaterThan(0);
    expect(Number(resumed[1])).toBeGreaterThanOrEqual(reported);
    await until200(`${second.base}/healthz`, 240_000, second);
    await untilLive(second, 240_000);
    // The day before is frozen once its planned slots ran: with exactly the uninterrupted run's rows.
    const resumedDay = await json200<Manifest>(`${second.base}/api/dataset/${BEFORE}.json`, 60_000, second);
    expect(wholeDay.rows).toBeGreaterThan(5_000);
    expect(
      resumedDay.rows,
      `rows of ${BEFORE}: resumed ${resumedDay.rows}, uninterrupted ${wholeDay.rows}`,
    ).toBe(wholeDay.rows);
    expect(resumedDay.missingSlots).toBeUndefined();
    expect(wholeDay.missingSlots).toBeUndefined();
    const frozen = await (await fetch(`${second.base}/api/citable/${BEFORE}`)).text();
    expect(JSON.parse(frozen).site.missingSlots).toBeUndefined();
    burner.kill('SIGKILL');

    // 3. Killed mid-stream of live writes: every reported cycle is stored whole.
    await second.waitFor(/(token-trade-coverage: cycle \S+ wrote \d+ samples[\s\S]*){2}/, 120_000);
    // The kill lands at a random point inside the next cycle (one every 3 s), not on a cycle
    // boundary: this delay places the fault, nothing waits on it.
    await new Promise((r) => setTimeout(r, 150 + Math.floor(Math.random() * 2_500)));
    await killHard(second);
    const liveCycles = reportedCycles(second.output());
    expect(liveCycles.length).toBeGreaterThanOrEqual(2);
    slots = await inspect(dir);
    for (const c of liveCycles)
      expect(slots.get(c.benchmark)?.has(c.at), `${c.benchmark} ${c.at}`).toBe(true);

    // 4. Restarted again: identical frozen bytes; the downtime's slots are backfilled, so the
    // series from the first backfilled slot to the last has no gap, the day before included.
    const third = await spawnService(demoEnv(dir));
    running.push(third);
    await until200(`${third.base}/healthz`, 240_000, third);
    expect(await (await fetch(`${third.base}/api/citable/${BEFORE}`)).text()).toBe(frozen);
    // Serving means its plan ran: the downtime's slots and the ones its clock reached meanwhile.
    await killHard(third);
    slots = await inspect(dir);
    const plan = await loadPlan(dir);
    expect(plan?.missing).toEqual([]);
    // Every slot of the plan is stored; after the plan's end the slots are the live harness's (at
    // 600× on a busy machine a cycle can take longer than a slot, and the catch-up is bounded).
    const planned = (plan?.slots ?? []).filter((x) => x.benchmark === TRADE || x.benchmark === NETWORK);
    expect(planned.length).toBeGreaterThan(51);
    expect(planned.filter((x) => !slots.get(x.benchmark)?.has(x.at))).toEqual([]);
    const upToPlanEnd = (b: string) =>
      new Set([...(slots.get(b) ?? [])].filter((t) => t <= (plan?.end ?? 0)));
    const trade = upToPlanEnd(TRADE);
    expectContiguous(trade, CADENCE[TRADE] as number);
    expectContiguous(upToPlanEnd(NETWORK), CADENCE[NETWORK] as number);
    const dayBefore = [...trade].filter((t) => t >= BEFORE_START && t < BEFORE_START + 86_400_000);
    expect(dayBefore).toHaveLength(48);
  }, 900_000);
});
