/**
 * Running at scale (issue 11) with real engines: the same harness cycles published from the
 * embedded store, Prometheus and VictoriaMetrics give identical answers; harnesses in two regions
 * write to one engine; two API replicas serve one frozen day byte-identically from SNAPSHOT_DIR;
 * the API keeps answering (degraded) while the engine is down and catches up without a restart.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../../src/config.ts';
import { DAY_MS } from '../../src/core/dates.ts';
import { labelsKey, type Sample } from '../../src/core/samples.ts';
import type { BenchmarkSpec } from '../../src/core/spec-schema.ts';
import { loadHarnessConfig, simulatorEnv } from '../../src/harness/config.ts';
import { STORED_METRIC_NAMES } from '../../src/harness/families/metric-names.ts';
import { createMemoryStore } from '../../src/harness/memory-store.ts';
import { startHarness } from '../../src/harness/service.ts';
import { REFERENCE_TOKENS } from '../../src/harness/tokens.ts';
import { createLogger } from '../../src/log.ts';
import { createPassthroughQueryEngine } from '../../src/mcp/promql/engine-passthrough.ts';
import type { PromResult } from '../../src/mcp/promql/result.ts';
import { createStoreQueryEngine } from '../../src/mcp/promql/store-engine.ts';
import { loadSpecs } from '../../src/publication/load-specs.ts';
import { createPublication, type Publication } from '../../src/publication/publication.ts';
import { defaultRoutes } from '../../src/routes.ts';
import { createService } from '../../src/service.ts';
import { startSimulator } from '../../src/sim/server.ts';
import { openDuckDbStore } from '../../src/store/duckdb-store.ts';
import { FileSnapshotStore } from '../../src/store/file-snapshot-store.ts';
import { type EngineStore, engineStore } from '../../src/store/open-store.ts';
import { openPrometheusStore, type PrometheusStore } from '../../src/store/prometheus-store.ts';
import type { Store } from '../../src/store/sample-store.ts';
import { type Engine, type EngineKind, startEngine } from '../helpers/engines.ts';
import { BENCHMARKS_DIR } from '../helpers/fixture.ts';

const MIN = 60_000;
const HALF_HOUR = 30 * MIN;
// A "now" on a 30-minute slot, an hour back: every sample is in the past, as the engines require,
// and the last 4 hours of yesterday are a closed day to freeze. Never the slot at 00:00 itself:
// yesterday would still be inside its 10-minute freeze grace (the replica test failed whenever the
// suite ran between 01:00 and 01:30 UTC), so that slot moves back to 23:30.
const SLOT = Math.floor((Date.now() - 60 * MIN) / HALF_HOUR) * HALF_HOUR;
const NOW = SLOT % DAY_MS === 0 ? SLOT - HALF_HOUR : SLOT;
const TODAY = Math.floor(NOW / DAY_MS) * DAY_MS;
const YESTERDAY = new Date(TODAY - DAY_MS).toISOString().slice(0, 10);
const TOKENS = [REFERENCE_TOKENS[0], REFERENCE_TOKENS[2], REFERENCE_TOKENS[9]].filter(
  (t): t is (typeof REFERENCE_TOKENS)[number] => t !== undefined,
);
const SITE = { name: 'Citebench', baseUrl: 'http://bench.test' };
const decode = (b: Uint8Array) => new TextDecoder().decode(b);

let specs: BenchmarkSpec[];
/** The samples of real harness cycles against the simulator, from yesterday 20:00 to NOW. */
async function cycles(region?: string): Promise<Sample[]> {
  const sim = await startSimulator({ seed: 9, tradesPerHour: 60 });
  const mem = createMemoryStore();
  const h = startHarness({
    store: mem,
    specs,
    metrics: new Registry(),
    harnessConfig: loadHarnessConfig(
      simulatorEnv(sim.baseUrls, sim.keys, region ? { HARNESS_REGION: region } : {}),
    ),
    tokens: TOKENS,
    autoStart: false,
    sleep: async () => {},
  });
  try {
    for (let t = TODAY - 4 * 60 * MIN; t <= NOW; t += HALF_HOUR) {
      await h.runCycle('token-trade-coverage', t);
      if (t % (6 * 60 * MIN) === 0) await h.runCycle('network-coverage', t);
    }
  } finally {
    await h.stop();
    await sim.close();
  }
  const out: Sample[] = [];
  for (const metric of STORED_METRIC_NAMES) out.push(...(await mem.select({ metric, after: 0, until: NOW })));
  return out;
}

async function engineStoreOn(engine: Engine, snapshotDir: string): Promise<Store> {
  const e = await openPrometheusStore({
    url: engine.url,
    ...(engine.kind === 'victoria-metrics' ? { flushUrl: `${engine.url}/internal/force_flush` } : {}),
    retries: 1,
    retryBaseMs: 50,
    retryMaxMs: 200,
    // Not what these tests are about: on a loaded 2-core CI machine a fresh engine took over 5 s
    // to take a day of out-of-order samples, and the write was buffered (see put).
    timeoutMs: 30_000,
  });
  return engineStore(e, new FileSnapshotStore(snapshotDir));
}

/**
 * Appends and waits until the engine holds the samples. A write the engine does not answer in
 * time is buffered and retried in the background, and append resolves all the same (that is the
 * writer's promise); a test that reads right after must wait for the buffer, or it reads an engine
 * without the samples (CI: "Unknown region \"eu-west\" … none measured yet").
 */
async function put(store: Store, batch: readonly Sample[]): Promise<void> {
  await store.append(batch);
  const e = (store as EngineStore).engine;
  // Quiet, the first flush delivers; the bound (against a hang only) allows a minute of retries.
  for (const end = Date.now() + WAIT_MS; !(await e.flush()) && Date.now() < end; )
    await new Promise((r) => setTimeout(r, 200));
  expect(e.bufferedSamples).toBe(0);
}

/** Every answer the parity test compares, as served bytes. */
async function answers(pub: Publication): Promise<Record<string, string>> {
  await pub.loadDataValues();
  await pub.freezeClosedDays();
  const out: Record<string, string> = {};
  for (const [slug, filters] of [
    ['token-trade-coverage', null],
    ['token-trade-coverage', { chain: 'solana' }],
    ['token-trade-coverage', { chain: 'stellar' }],
    ['network-coverage', null],
    ['network-coverage', { kind: 'dex-index' }],
  ] as const) {
    out[`stat ${slug} ${JSON.stringify(filters)}`] = decode((await pub.stat(slug, filters)).body);
  }
  out.citable = decode((await pub.citable()).body);
  const cmp = await pub.compare('mobula', 'codex');
  out.compare = cmp.ok ? decode(cmp.served.body) : cmp.message;
  const snap = await pub.snapshot(YESTERDAY);
  out.snapshot = snap.kind === 'frozen' ? decode(snap.served.body) : snap.kind;
  return out;
}

/**
 * Waits for an event (the engine holding a write, a view recomputed) are bounded against a hang
 * only: quiet, each comes within 1–2 s; WAIT_MS allows 30 times that. Each test's timeout is above
 * its waits (quiet, a test takes 3–15 s).
 */
const WAIT_MS = 60_000;

const engines: Engine[] = [];
let samples: Sample[];
let embedded: Record<string, string>;

beforeAll(async () => {
  specs = await loadSpecs(BENCHMARKS_DIR);
  samples = await cycles();
  const duck = await openDuckDbStore({ path: ':memory:' });
  await duck.append(samples);
  const pub = createPublication({ specs, store: duck, site: SITE, clock: () => NOW });
  embedded = await answers(pub);
  pub.close();
  await duck.close();
});
afterAll(async () => {
  for (const e of engines) await e.destroy();
});

describe.each(['prometheus', 'victoria-metrics'] as EngineKind[])('%s', (kind) => {
  it('publishes exactly what the embedded store publishes from the same cycles', async () => {
    const engine = await startEngine(kind);
    engines.push(engine);
    const store = await engineStoreOn(engine, await mkdtemp(join(tmpdir(), 'snap-')));
    await put(store, samples);
    const pub = createPublication({ specs, store, site: SITE, clock: () => NOW });
    const got = await answers(pub);
    expect(JSON.parse(embedded.snapshot ?? '{}').site.snapshotDate).toBe(YESTERDAY);
    for (const k of Object.keys(embedded)) expect(got[k], k).toBe(embedded[k]);
    pub.close();
    await store.close();
  }, 180_000);
});

describe('Prometheus: regions, replicas, an engine that goes away', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await startEngine('prometheus');
    engines.push(engine);
  });

  it('two harness regions write to one engine; ?region filters, an unseen region is 404', async () => {
    const store = await engineStoreOn(engine, await mkdtemp(join(tmpdir(), 'snap-')));
    await put(store, await cycles('eu-west'));
    await put(store, await cycles('us-east'));
    const pub = createPublication({ specs, store, site: SITE, clock: () => NOW });
    await pub.loadDataValues();
    expect(pub.resolveFilters('token-trade-coverage', { region: 'ap-south' })).toMatchObject({
      ok: false,
      status: 404,
    });
    const eu = pub.resolveFilters('token-trade-coverage', { region: 'eu-west' });
    if (!eu.ok) throw new Error(eu.message);
    const one = (await pub.stat('token-trade-coverage', eu.filters)).value;
    const both = (await pub.stat('token-trade-coverage', null)).value;
    // The same cycles from two regions: each region's pairs enter the aggregate on their own.
    const n = (s: typeof one, p: string) => s.rankings.find((r) => r.slug === p)?.sampleSize ?? 0;
    expect(n(both, 'mobula')).toBe(2 * n(one, 'mobula'));
    expect(both.value).toBe(one.value);
    // Latest mode takes each provider's newest sample across regions.
    const net = (await pub.stat('network-coverage', null)).value;
    expect(net.rankings.length).toBe(8);
    pub.close();
    await store.close();
  }, 180_000);

  it('two API replicas serve one frozen day byte-identically from SNAPSHOT_DIR; replicas never freeze', async () => {
    const snapshotDir = await mkdtemp(join(tmpdir(), 'shared-snap-'));
    const writer = await engineStoreOn(engine, snapshotDir);
    await put(writer, samples);
    // The harness process is the one that freezes.
    const harnessSide = createPublication({ specs, store: writer, site: SITE, clock: () => NOW });
    await harnessSide.freezeClosedDays();
    const replicas = await Promise.all(
      [0, 1].map(() =>
        createService({
          config: testConfig({
            port: 0,
            benchmarksDir: BENCHMARKS_DIR,
            baseUrl: SITE.baseUrl,
            logLevel: 'silent',
          }),
          log: createLogger('silent'),
          clock: () => NOW,
          routes: defaultRoutes,
          store: {
            backend: 'prometheus',
            snapshotDir,
            // As the writer's: a busy machine's engine can take seconds to answer a day's reads.
            prometheus: { url: engine.url, retries: 1, retryBaseMs: 50, timeoutMs: 30_000 },
          },
        }),
      ),
    );
    try {
      const bodies: string[] = [];
      for (const r of replicas) {
        const port = await r.listen();
        const res = await fetch(`http://127.0.0.1:${port}/api/citable/${YESTERDAY}`);
        expect(res.status).toBe(200);
        bodies.push(await res.text());
      }
      expect(bodies[0]).toBe(bodies[1]);
      expect(JSON.parse(bodies[0] ?? '{}').site.snapshotDate).toBe(YESTERDAY);
      // A day the harness did not freeze is not computed by a replica.
      const before = new Date(TODAY - 2 * DAY_MS).toISOString().slice(0, 10);
      expect((await replicas[0]?.publication.snapshot(before))?.kind).not.toBe('frozen');
    } finally {
      for (const r of replicas) await r.close();
      harnessSide.close();
      await writer.close();
    }
  }, 180_000);

  it('engine down: the API serves the last views marked degraded; writes are buffered and arrive after it returns', async () => {
    const store = await engineStoreOn(engine, await mkdtemp(join(tmpdir(), 'snap-')));
    await put(store, samples);
    const clock = { now: NOW };
    const pub = createPublication({ specs, store, site: SITE, clock: () => clock.now, maxViewAgeMs: 1000 });
    const live = (await pub.stat('token-trade-coverage', null)).value;
    expect(live.degraded).toBeUndefined();
    await pub.citable();
    await engine.stop();
    // A live view stands until its evaluation point moves (src/core/eval-point.ts); the first
    // reader of a new point may get the previous view while its successor is computed.
    const STEP = 20 * 60_000;
    const settled = async () => {
      for (const end = Date.now() + WAIT_MS; Date.now() < end; ) {
        const served = await pub.stat('token-trade-coverage', null);
        if (pub.isCurrent(served)) return served.value;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error('no current Stat');
    };
    clock.now = NOW + STEP; // the next point: it must be recomputed, and cannot be
    const down = await settled();
    expect(down.degraded).toBe(true);
    expect(down.value).toBe(live.value);
    let index = await pub.citable();
    for (const end = Date.now() + WAIT_MS; !pub.isCurrent(index) && Date.now() < end; ) {
      await new Promise((r) => setTimeout(r, 50));
      index = await pub.citable();
    }
    expect(index.value.site.degraded).toBe(true);
    // A cycle written while the engine is down is buffered, not lost.
    const late = {
      metric: 'harness_cycle',
      labels: { benchmark: 'token-trade-coverage' },
      t: NOW + 60_000,
      v: 1,
    };
    await store.append([late]);
    await engine.start();
    const engineSide = (store as Store & { engine: { flush(): Promise<void> } }).engine;
    await engineSide.flush();
    const back = await store.select({ metric: 'harness_cycle', after: NOW, until: NOW + 120_000 });
    expect(back.map((s) => s.t)).toEqual([NOW + 60_000]);
    // Recovered: the next recompute is a live view again. One fresh-clone CI run (of two) saw that
    // first recompute still degraded, 1.6 s into the test (so no timeout): its reads can land on
    // keep-alive sockets of the stopped engine process before the client has noticed them closed.
    // A degraded view is replaced by the next recompute after that, which is what is promised.
    let degraded: boolean | undefined = true;
    for (let i = 0; i < 5 && degraded; i++) {
      clock.now = NOW + (i + 2) * STEP; // each a new point: recomputed, never replayed
      degraded = (await settled()).degraded;
    }
    expect(degraded).toBeUndefined();
    pub.close();
    await store.close();
  }, 180_000);
});

describe.each(['prometheus', 'victoria-metrics'] as EngineKind[])(
  'differential PromQL: the embedded evaluator and %s agree',
  (kind) => {
    it('every supported construct gives the same numbers on the same samples, 1 min and 6 h 1 min after the last cycle', async () => {
      const engine = await startEngine(kind);
      engines.push(engine);
      const store = await engineStoreOn(engine, await mkdtemp(join(tmpdir(), 'snap-')));
      await put(store, samples);
      const duck = await openDuckDbStore({ path: ':memory:' });
      await duck.append(samples);
      const embeddedEngine = createStoreQueryEngine(duck);
      const e = (store as Store & { engine: PrometheusStore }).engine;
      await e.flush();
      const remote = createPassthroughQueryEngine(e.http, e.queryUrl);
      // __name__ is compared where PromQL keeps it (selectors, last_over_time); VictoriaMetrics
      // also keeps it for some functions PromQL drops it for, which is not what is tested here.
      const norm = (r: PromResult, withName: boolean): Record<string, string[]> => {
        const out: Record<string, string[]> = {};
        const key = (m: Record<string, string>) => {
          const { __name__: name, ...rest } = m;
          return labelsKey(withName && name !== undefined ? { ...rest, __name__: name } : rest);
        };
        // Nine significant digits, then agree() allows a relative 1e-7: VictoriaMetrics stores
        // floats as 12-digit decimals, so its averages can differ in the ninth digit (88.7008379
        // against 88.7008380 seen in CI).
        const num = (v: unknown) => Number(v).toPrecision(9);
        // VictoriaMetrics answers a scalar as one series without labels.
        if (r.resultType === 'scalar') out['{}'] = [num(r.result[1])];
        else if (r.resultType === 'vector') for (const x of r.result) out[key(x.metric)] = [num(x.value[1])];
        else for (const x of r.result) out[key(x.metric)] = x.values.map((p) => `${p[0]}:${num(p[1])}`);
        return out;
      };
      /** Same series and times; values equal to a relative 1e-7 (see num). */
      const agree = (got: Record<string, string[]>, want: Record<string, string[]>, what: string) => {
        const close = (x: string, y: string) => {
          const [tx, vx] = x.includes(':') ? x.split(':') : ['', x];
          const [ty, vy] = y.includes(':') ? y.split(':') : ['', y];
          const a = Number(vx);
          const b = Number(vy);
          return tx === ty && (a === b || Math.abs(a - b) <= 1e-7 * Math.max(Math.abs(a), Math.abs(b)));
        };
        const same =
          Object.keys(got).length === Object.keys(want).length &&
          Object.entries(want).every(([k, w]) => {
            const g = got[k];
            return g !== undefined && g.length === w.length && w.every((x, i) => close(g[i] as string, x));
          });
        if (!same) expect(got, what).toEqual(want);
      };
      const keepsName = (q: string) => !/^[a-z_]+_over_time\(/.test(q) || q.startsWith('last_over_time(');
      const instant = [
        '42',
        'token_trade_capture_pct{chain="solana"}',
        'token_trade_count{provider=~"mob.*|codex", chain!="stellar"}',
        'avg_over_time(token_trade_capture_pct[3h])',
        'min_over_time(token_trade_count[2h])',
        'max_over_time(token_trade_count[2h])',
        'sum_over_time(token_trade_probe_ok[6h])',
        'count_over_time(token_trade_probe_ok[6h])',
        'last_over_time(token_trade_union_count[3h])',
        'quantile_over_time(0.5, token_trade_capture_pct[6h])',
        'quantile_over_time(0.9, token_trade_capture_pct[6h])',
        'sum by (chain) (token_trade_count)',
        'avg by (provider) (token_trade_capture_pct)',
        'max(token_trade_count)',
        'min by (provider) (token_trade_count)',
        'count(token_trade_capture_pct)',
        'token_trade_count * 2 + 1',
        '-token_trade_count',
        '100 / token_trade_union_count',
        // Written every 6 h: up to 6 h old a minute after the last trade cycle, found by the 7 h
        // lookback (never by an engine's own 5 minutes).
        'networks_supported',
        'sum by (provider) (networks_supported)',
      ];
      // Prometheus 2 range selectors include their start ([t − r, t]) while ours and Prometheus
      // 3's are left-open ((t − r, t]). Both times are a minute off the 30-minute grid of sample
      // times, so no window (range or the 7 h lookback) starts on a sample and the two definitions
      // select the same samples. At 6 h (exactly on the grid) the lookback window started on the
      // networks_supported sample whenever NOW was an hour past a 6-hour slot, and Prometheus found
      // it where ours did not (CI at 20:13 UTC). 6 h later, instant selectors still find each
      // series' newest sample (the 7 h lookback) while the range functions find none.
      for (const at of [NOW + MIN, NOW + 6 * 60 * MIN + MIN]) {
        for (const q of instant) {
          const want = norm(await embeddedEngine.instant(q, at), keepsName(q));
          agree(norm(await remote.instant(q, at), keepsName(q)), want, `${q} at ${at - NOW} ms`);
        }
        // Not an empty answer agreeing with an empty answer: the newest trade cycle is 6 h old.
        expect(Object.keys(norm(await remote.instant('token_trade_count', at), true)).length).toBeGreaterThan(
          0,
        );
      }
      expect(Object.keys(norm(await remote.instant('networks_supported', NOW + MIN), true)).length).toBe(8);
      const at = NOW + MIN;
      const range = ['avg_over_time(token_trade_capture_pct[1h])', 'sum by (provider) (token_trade_count)'];
      for (const q of range) {
        const a = await remote.range(q, at - 2 * 60 * MIN, at, HALF_HOUR);
        const b = await embeddedEngine.range(q, at - 2 * 60 * MIN, at, HALF_HOUR);
        agree(norm(a, false), norm(b, false), q);
      }
      await duck.close();
      await store.close();
    }, 180_000);
  },
);
