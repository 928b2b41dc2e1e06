import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { labelsKey, type Matcher, type Sample } from '../../src/core/samples.ts';
import { METRICS } from '../../src/harness/families/metric-names.ts';
import { type DuckDbStore, openDuckDbStore } from '../../src/store/duckdb-store.ts';
import { openPrometheusStore, type PrometheusStore } from '../../src/store/prometheus-store.ts';
import type { LatestQuery, SelectQuery } from '../../src/store/sample-store.ts';
import { type Engine, type EngineKind, startEngine } from '../helpers/engines.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
// Whole minutes, an hour back: every sample is in the past, as the engines require.
const NOW = Math.floor(Date.now() / MIN) * MIN - HOUR;
const CAPTURE = METRICS.tokenTradeCapturePct;
const NETWORKS = METRICS.networksSupported;
const UNRESPONSIVE = METRICS.providerCycle5xx;
const PROBE = METRICS.tokenTradeProbeOk;
// Quotes, a backslash and non-ASCII in a label value check the selector escaping end to end.
const ODD_TOKEN = 'we"ird\\tok€n';

// VictoriaMetrics keeps about 12 significant decimal digits (103.06666666665114 reads back as
// 103.0666666666), so the comparison uses values that are exact at that precision.
const round2 = (x: number) => Math.round(x * 100) / 100;

function dataset(): Sample[] {
  const out: Sample[] = [];
  const providers = ['alpha', 'beta', 'gamma'];
  // 24 h of 30-minute trade cycles: 3 providers × 2 chains × 2 tokens.
  for (let t = NOW - DAY + 30 * MIN; t <= NOW; t += 30 * MIN) {
    for (const [pi, provider] of providers.entries()) {
      for (const chain of ['solana', 'ethereum']) {
        for (const token of ['abc', ODD_TOKEN]) {
          out.push({
            metric: CAPTURE,
            labels: { provider, chain, token },
            t,
            v: round2(((t / MIN + pi * 7) % 97) / 3),
          });
        }
      }
    }
  }
  // 40 days of 6-hourly network counts, backfilled newest first (out of order, days in the past).
  for (let t = NOW; t > NOW - 40 * DAY; t -= 6 * HOUR) {
    for (const [pi, provider] of providers.entries())
      out.push({ metric: NETWORKS, labels: { provider }, t, v: 100 + pi + round2((t / HOUR) % 5) });
  }
  // A provider silent for 20 days: `latest` must still find it.
  for (let t = NOW - 30 * DAY; t <= NOW - 20 * DAY; t += 6 * HOUR)
    out.push({ metric: NETWORKS, labels: { provider: 'delta' }, t, v: 42 });
  out.push({
    metric: UNRESPONSIVE,
    labels: { benchmark: 'token-trade-coverage', provider: 'beta' },
    t: NOW - 3 * HOUR,
    v: 1,
  });
  out.push({
    metric: UNRESPONSIVE,
    labels: { benchmark: 'token-trade-coverage', provider: 'beta' },
    t: NOW - HOUR,
    v: 0,
  });
  // Shuffle deterministically: backfill arrives in no particular order.
  return out
    .map((s, i) => [((i * 7919) % 10007) + i / 1e6, s] as const)
    .sort((a, b) => a[0] - b[0])
    .map(([, s]) => s);
}

const re = (name: string, value: string): Matcher => ({ name, op: '=~', value });
const nre = (name: string, value: string): Matcher => ({ name, op: '!~', value });
const ne = (name: string, value: string): Matcher => ({ name, op: '!=', value });
const eqm = (name: string, value: string): Matcher => ({ name, op: '=', value });

const SELECTS: [string, SelectQuery][] = [
  ['24 h of captures', { metric: CAPTURE, after: NOW - DAY, until: NOW }],
  [
    '= and =~',
    {
      metric: CAPTURE,
      matchers: [eqm('chain', 'solana'), re('provider', 'alpha|gamma')],
      after: NOW - DAY,
      until: NOW,
    },
  ],
  [
    '!= and !~',
    {
      metric: CAPTURE,
      matchers: [ne('provider', 'beta'), nre('token', 'ab.*')],
      after: NOW - DAY,
      until: NOW,
    },
  ],
  [
    'escaped value',
    { metric: CAPTURE, matchers: [eqm('token', ODD_TOKEN)], after: NOW - 2 * HOUR, until: NOW },
  ],
  [
    'regex is anchored',
    { metric: CAPTURE, matchers: [re('provider', 'alph')], after: NOW - DAY, until: NOW },
  ],
  ['after is exclusive, until inclusive', { metric: CAPTURE, after: NOW - 4 * HOUR, until: NOW - HOUR }],
  ['one timestamp', { metric: CAPTURE, after: NOW - HOUR - 1, until: NOW - HOUR }],
  ['40 days of backfill, chunked', { metric: NETWORKS, after: NOW - 45 * DAY, until: NOW }],
  [
    'missing label reads as ""',
    { metric: UNRESPONSIVE, matchers: [eqm('chain', '')], after: NOW - DAY, until: NOW },
  ],
  ['unknown metric', { metric: METRICS.tokenTradeCapped, after: NOW - DAY, until: NOW }],
  ['empty range', { metric: CAPTURE, after: NOW, until: NOW }],
];

const LATESTS: [string, LatestQuery][] = [
  ['now', { metric: NETWORKS, at: NOW }],
  ['between samples', { metric: NETWORKS, at: NOW - 9 * DAY - 1 }],
  ['exactly on a sample', { metric: CAPTURE, matchers: [eqm('chain', 'solana')], at: NOW - 2 * HOUR }],
  ['notBefore is exclusive', { metric: NETWORKS, at: NOW - DAY, notBefore: NOW - DAY - 6 * HOUR }],
  ['notBefore hides the silent provider', { metric: NETWORKS, at: NOW, notBefore: NOW - 10 * DAY }],
  [
    'unresponsive flag',
    {
      metric: UNRESPONSIVE,
      matchers: [eqm('benchmark', 'token-trade-coverage')],
      at: NOW,
      notBefore: NOW - DAY,
    },
  ],
  ['before any data', { metric: NETWORKS, at: NOW - 60 * DAY }],
];

const canonical = (rows: readonly Sample[]) =>
  [...rows].sort((a, b) => labelsKey(a.labels).localeCompare(labelsKey(b.labels)) || a.t - b.t);

describe.each<EngineKind>(['prometheus', 'victoria-metrics'])('PrometheusStore on %s', (kind) => {
  let engine: Engine;
  let store: PrometheusStore;
  let duck: DuckDbStore;
  const errors: Error[] = [];
  const data = dataset();

  const open = (extra: Partial<Parameters<typeof openPrometheusStore>[0]> = {}) =>
    openPrometheusStore({
      url: engine.url,
      // VictoriaMetrics makes a new series queryable ~10 s after the write unless told to flush.
      ...(kind === 'victoria-metrics' ? { flushUrl: `${engine.url}/internal/force_flush` } : {}),
      retries: 1,
      retryBaseMs: 50,
      retryMaxMs: 200,
      // Not what is tested: the beforeAll's 40 days in one write must not be buffered because a
      // loaded CI machine's fresh engine took over 5 s (scale-prometheus failed that way).
      timeoutMs: 30_000,
      // Small enough that the 40-day select is split in two.
      maxRangeMs: 31 * DAY,
      latestWindowMs: 2 * DAY,
      onError: (e) => errors.push(e),
      ...extra,
    });

  beforeAll(async () => {
    engine = await startEngine(kind);
    store = await open();
    duck = await openDuckDbStore({ path: ':memory:', memoryLimit: '256MB' });
    await duck.append(data);
    expect(await store.append(data)).toBe(data.length);
  });

  afterAll(async () => {
    await store?.close();
    await duck?.close();
    await engine?.destroy();
  });

  it('answers select like the embedded store', async () => {
    for (const [name, q] of SELECTS) {
      expect(canonical(await store.select(q)), name).toEqual(canonical(await duck.select(q)));
    }
    expect((await store.select(SELECTS[0]?.[1] as SelectQuery)).length).toBe(48 * 12);
  });

  it('answers latest like the embedded store, silent series included', async () => {
    for (const [name, q] of LATESTS) {
      expect(canonical(await store.latest(q)), name).toEqual(canonical(await duck.latest(q)));
    }
    const now = await store.latest({ metric: NETWORKS, at: NOW });
    expect(now.find((s) => s.labels.provider === 'delta')?.t).toBe(NOW - 20 * DAY);
  });

  it('answers series and timeBounds like the embedded store', async () => {
    const key = (s: { metric: string; labels: Record<string, string> }) =>
      `${s.metric} ${labelsKey(s.labels)}`;
    for (const m of [CAPTURE, NETWORKS, METRICS.tokenTradeCapped]) {
      expect((await store.series(m)).map(key).sort(), m).toEqual((await duck.series(m)).map(key).sort());
    }
    expect((await store.series()).map(key).sort()).toEqual((await duck.series()).map(key).sort());
    for (const ms of [[CAPTURE], [NETWORKS, UNRESPONSIVE], [METRICS.tokenTradeCapped], undefined]) {
      expect(await store.timeBounds(ms), String(ms)).toEqual(await duck.timeBounds(ms));
    }
    expect(await store.timeBounds([NETWORKS])).toEqual({ min: NOW - 40 * DAY + 6 * HOUR, max: NOW });
  });

  it('re-appending the same samples changes nothing, and a write is readable at once', async () => {
    const seen: string[] = [];
    const off = store.onAppend((metrics, minT, maxT) =>
      seen.push(`${[...metrics].join(',')} ${minT} ${maxT}`),
    );
    await store.append(data.slice(0, 200));
    for (const [name, q] of SELECTS) {
      expect(canonical(await store.select(q)), name).toEqual(canonical(await duck.select(q)));
    }
    const fresh: Sample = {
      metric: PROBE,
      labels: { provider: 'fresh', chain: 'base', token: 'x' },
      t: NOW,
      v: 1,
    };
    await store.append([fresh]);
    await duck.append([fresh]);
    expect(seen.at(-1)).toBe(`${PROBE} ${NOW} ${NOW}`);
    expect(await store.select({ metric: PROBE, after: NOW - 1, until: NOW })).toEqual([fresh]);
    off();
  });

  it('sends a fixed number of queries per call, whatever the number of providers', async () => {
    const cells = (providers: number, metric: string): Sample[] =>
      Array.from({ length: providers }, (_, p) =>
        Array.from({ length: 48 }, (_, i) => ({
          metric,
          labels: { provider: `p${p}`, chain: 'solana', token: 't' },
          t: NOW - i * 30 * MIN,
          v: 1,
        })),
      ).flat();
    await store.append([...cells(3, METRICS.tokenTradeCount), ...cells(30, METRICS.tokenTradeUnionCount)]);
    const cost = async (metric: string) => {
      const before = store.http.counts.reads;
      await store.select({ metric, after: NOW - DAY, until: NOW });
      const select = store.http.counts.reads - before;
      await store.latest({ metric, at: NOW, notBefore: NOW - DAY });
      const latest = store.http.counts.reads - before - select;
      await store.timeBounds([metric]);
      await store.series(metric);
      return { select, latest, total: store.http.counts.reads - before };
    };
    const few = await cost(METRICS.tokenTradeCount);
    const many = await cost(METRICS.tokenTradeUnionCount);
    expect(few).toEqual(many);
    expect(many).toEqual({ select: 1, latest: 1, total: 1 + 1 + 3 + 1 });
    // Series differing only by metric name must not collide (Prometheus 2 once answered 422).
    expect(await store.timeBounds([METRICS.tokenTradeCount, METRICS.tokenTradeUnionCount])).toEqual({
      min: NOW - 47 * 30 * MIN,
      max: NOW,
    });
  });

  it('buffers writes while the engine is down and delivers them when it returns', async () => {
    let droppedCount = 0;
    const small = await open({
      bufferSamples: 5,
      droppedSamplesCounter: { inc: (n) => (droppedCount += n) },
    });
    const arrived: number[] = [];
    store.onAppend((_m, _min, max) => arrived.push(max));
    await engine.stop();
    const down = (i: number): Sample => ({
      metric: PROBE,
      labels: { provider: 'down', chain: 'c', token: 't' },
      t: NOW - 100_000 + i,
      v: i,
    });
    const batch = Array.from({ length: 40 }, (_, i) => down(i));
    expect(await store.append(batch.slice(0, 20))).toBe(0);
    expect(await store.append(batch.slice(20))).toBe(0);
    expect(store.bufferedSamples).toBe(40);
    // A small bound keeps the newest samples and counts the rest.
    await small.append(batch.slice(0, 8));
    expect([small.bufferedSamples, small.droppedSamples, droppedCount]).toEqual([5, 3, 3]);
    await engine.start();
    // Delivered once the engine answers (quiet, within ~1 s of its start); the bound is against a
    // hang only, and the test's timeout is above it.
    const deadline = Date.now() + 60_000;
    while ((store.bufferedSamples > 0 || small.bufferedSamples > 0) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
    }
    expect([store.bufferedSamples, store.droppedSamples, small.bufferedSamples]).toEqual([0, 0, 0]);
    expect(arrived).toContain(NOW - 100_000 + 39);
    const got = await store.select({
      metric: PROBE,
      matchers: [eqm('provider', 'down')],
      after: NOW - 200_000,
      until: NOW,
    });
    expect(got.map((s) => s.v)).toEqual(batch.map((s) => s.v));
    await small.close();
    // Everything written before the outage is still there after the restart.
    expect(canonical(await store.select(SELECTS[7]?.[1] as SelectQuery))).toEqual(
      canonical(await duck.select(SELECTS[7]?.[1] as SelectQuery)),
    );
  }, 180_000);

  it('searches up to two days past the service clock, not the wall: a demo clock runs ahead of it', async () => {
    // Issue 27: at DEMO_SPEED=600 the writer stamps samples days ahead of the wall clock; a replica
    // that searched to the wall's now + 2 d stopped finding them ~200 s after the writer started.
    const wallNow = Date.now();
    // A metric of its own: the data set's samples lie around the wall's now too.
    const CLOCKED = 'clock_lookahead_probe';
    const sample = (t: number): Sample => ({
      metric: CLOCKED,
      labels: { provider: 'clocked', chain: 'c', token: 't' },
      t,
      v: 1,
    });
    await store.append([sample(wallNow - DAY)]);
    const behind = await open({ clock: () => wallNow - 5 * DAY });
    // A clock 5 days behind the sample's day looks 3 days back from the wall: not there yet.
    expect((await behind.timeBounds([CLOCKED]))?.max ?? 0).toBeLessThan(wallNow - DAY);
    expect((await store.timeBounds([CLOCKED]))?.max).toBe(wallNow - DAY);
    await behind.close();
    if (kind === 'prometheus') {
      // VictoriaMetrics refuses samples over 2 days ahead; Prometheus keeps them, as a demo writes.
      const ahead = wallNow + 5 * DAY;
      await store.append([sample(ahead)]);
      const demo = await open({ clock: () => ahead });
      expect((await demo.timeBounds([CLOCKED]))?.max).toBe(ahead);
      expect((await store.timeBounds([CLOCKED]))?.max).toBe(wallNow - DAY);
      await demo.close();
    }
  });
});
