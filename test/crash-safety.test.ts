import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { labelsKey, type Sample } from '../src/core/samples.ts';
import { METRICS } from '../src/harness/families/metric-names.ts';
import { type DuckDbStore, openDuckDbStore } from '../src/store/duckdb-store.ts';
import { benchmarksWithout } from './helpers/benchmarks-dir.ts';
import { type ServiceProcess, spawnService, until200 } from './helpers/service-process.ts';

const TRADE = 'token-trade-coverage';
const NETWORK = 'network-coverage';
const CADENCE: Readonly<Record<string, number>> = { [TRADE]: 30 * 60_000, [NETWORK]: 6 * 3_600_000 };
const ALL_TIME = { after: -1, until: Number.MAX_SAFE_INTEGER };

const running: ServiceProcess[] = [];
afterEach(() => {
  for (const p of running.splice(0)) p.child.kill('SIGKILL');
});

/**
 * Speed 1800: a trade cycle every second of real time, a network cycle every 12 s. The two
 * benchmarks whose cycles this checks; the json-rpc demo's restarts are tested in rpc-demo.test.ts.
 */
const BENCHMARKS = benchmarksWithout(['json-rpc']);
const demoEnv = (dir: string) => ({
  DATA_DIR: dir,
  DEMO_SPEED: '1800',
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

describe('kill -9 mid-write, then restart on the same DATA_DIR', () => {
  it('keeps every reported cycle exactly once and whole, frozen bytes identical, and resumes at the next slot', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cb-crash-'));

    // 1. Killed during the backfill, after a progress line reported cycles complete.
    const first = await spawnService(demoEnv(dir));
    running.push(first);
    const m = await first.waitFor(/backfilling 3 days: (\d+)\/(\d+) cycles \((?:[2-9]\d|100)%\)/, 90_000);
    await killHard(first);
    const reported = Number(m[1]);
    let slots = await inspect(dir);
    const stored = (slots.get(TRADE)?.size ?? 0) + (slots.get(NETWORK)?.size ?? 0);
    // Backfill runs slots oldest first: what is stored is a gap-free prefix at least as long as reported.
    expect(stored).toBeGreaterThanOrEqual(reported);
    expectContiguous(slots.get(TRADE) ?? new Set(), CADENCE[TRADE] as number);
    expectContiguous(slots.get(NETWORK) ?? new Set(), CADENCE[NETWORK] as number);

    // 2. Restarted: it serves, freezes a day snapshot, measures live; killed mid-stream of writes.
    const second = await spawnService(demoEnv(dir));
    running.push(second);
    await until200(`${second.base}/healthz`, 30_000, second);
    const firstDay = new Date(Math.min(...(slots.get(TRADE) ?? []))).toISOString().slice(0, 10);
    // Older closed days are frozen in the background after the newest: until then "not frozen yet".
    await until200(`${second.base}/api/citable/${firstDay}`, 30_000, second);
    const snap = await fetch(`${second.base}/api/citable/${firstDay}`);
    expect(snap.status).toBe(200);
    const frozen = await snap.text();
    await second.waitFor(/(token-trade-coverage: cycle \S+ wrote \d+ samples[\s\S]*){3}/, 30_000);
    // Land somewhere inside the next cycle (one a second), not on a cycle boundary.
    await new Promise((r) => setTimeout(r, 150 + Math.floor(Math.random() * 700)));
    await killHard(second);
    const live = reportedCycles(second.output());
    expect(live.length).toBeGreaterThanOrEqual(3);
    slots = await inspect(dir);
    for (const c of live) expect(slots.get(c.benchmark)?.has(c.at), `${c.benchmark} ${c.at}`).toBe(true);
    const lastTrade = Math.max(...(slots.get(TRADE) ?? []));

    // 3. Restarted again: identical frozen bytes, and the next cycle is the next slot.
    const third = await spawnService(demoEnv(dir));
    running.push(third);
    await until200(`${third.base}/healthz`, 30_000, third);
    expect(await (await fetch(`${third.base}/api/citable/${firstDay}`)).text()).toBe(frozen);
    await third.waitFor(/token-trade-coverage: cycle \S+ wrote \d+ samples/, 30_000);
    const next = reportedCycles(third.output()).find((c) => c.benchmark === TRADE);
    // The slot after the last stored one; or that one again if the kill fell between its append and
    // the harness's "last cycle" mark, which then rewrites nothing (samples are keyed by series and t).
    expect([lastTrade, lastTrade + (CADENCE[TRADE] as number)]).toContain(next?.at);
    await killHard(third);
    slots = await inspect(dir);
    // The live run and the resumed one form one gap-free series (the backfill ended days earlier).
    const liveStart = Math.min(...live.filter((c) => c.benchmark === TRADE).map((c) => c.at));
    expectContiguous(
      new Set([...(slots.get(TRADE) ?? [])].filter((t) => t >= liveStart)),
      CADENCE[TRADE] as number,
    );
  }, 150_000);
});
