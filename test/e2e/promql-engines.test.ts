/**
 * query_prom on an engine (issue 27, item 6): an instant selector returns each series' newest
 * sample within 7 h, as the embedded evaluator does, on Prometheus 2.42 and VictoriaMetrics, which
 * both ignore `lookback_delta`. The rewrite keeps the caller's own characters: label values with
 * quotes, backslashes and non-ASCII text select the same series on every engine.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { Sample } from '../../src/core/samples.ts';
import { createPassthroughQueryEngine } from '../../src/mcp/promql/engine-passthrough.ts';
import { durationLiteral, withInstantLookback } from '../../src/mcp/promql/instant-lookback.ts';
import type { PromResult } from '../../src/mcp/promql/result.ts';
import { createStoreQueryEngine } from '../../src/mcp/promql/store-engine.ts';
import { openDuckDbStore } from '../../src/store/duckdb-store.ts';
import { openPrometheusStore } from '../../src/store/prometheus-store.ts';
import { type Engine, type EngineKind, startEngine } from '../helpers/engines.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
// On a whole minute an hour back: every sample is in the past, as the engines require.
const NOW = Math.floor((Date.now() - HOUR) / MIN) * MIN;
const METRIC = 'networks_supported';
const ODD = ['say "hi"', 'back\\slash \\"', 'Zürich 東京 🚀', "it's\ttabbed", 'plain'];

describe('withInstantLookback', () => {
  it('wraps instant selectors only, keeping their text byte for byte', () => {
    const w = (q: string) => withInstantLookback(q, 7 * HOUR);
    expect(w('x')).toBe('last_over_time(x[7h])');
    expect(w('sum by (chain) (x{a="b\\"c\\\\"})')).toBe(
      'sum by (chain) (last_over_time(x{a="b\\"c\\\\"}[7h]))',
    );
    expect(w("-x{p='é \\u00e9', q=`raw\\`} * 2")).toBe(
      "-last_over_time(x{p='é \\u00e9', q=`raw\\`}[7h]) * 2",
    );
    expect(w('{"x", a="1"} / 3')).toBe('last_over_time({"x", a="1"}[7h]) / 3');
    // Range vectors and subqueries read their selectors over a range: never rewritten.
    expect(w('avg_over_time(x{a="]"}[1h]) + x')).toBe('avg_over_time(x{a="]"}[1h]) + last_over_time(x[7h])');
    expect(w('quantile_over_time(0.5, x[6h])')).toBe('quantile_over_time(0.5, x[6h])');
    expect(w('max_over_time(x[1h:5m])')).toBe('max_over_time(x[1h:5m])');
    expect(w('rate(x[5m])')).toBe('rate(x[5m])');
    // A comment after a selector stays a comment: the window goes before it.
    expect(w('(x # note\n) + 1')).toBe('(last_over_time(x[7h]) # note\n) + 1');
  });

  it('writes the lookback in the largest whole unit', () => {
    expect(durationLiteral(7 * HOUR)).toBe('7h');
    expect(durationLiteral(90 * MIN)).toBe('90m');
    expect(durationLiteral(45_000)).toBe('45s');
    expect(durationLiteral(1500)).toBe('1500ms');
  });
});

const samples: Sample[] = ODD.flatMap((provider, i) => [
  // Each series' newest sample is 30 min to 4 h old at NOW: none within Prometheus' 5 minutes.
  { metric: METRIC, labels: { provider, kind: 'dex-index' }, t: NOW - (30 + 45 * i) * MIN, v: 10 + i },
  { metric: METRIC, labels: { provider, kind: 'dex-index' }, t: NOW - 9 * HOUR, v: 100 + i },
]);

type Row = [string, string];
/**
 * Sorted rows of a result. `withName` false drops `__name__`: VictoriaMetrics keeps it where
 * PromQL drops it (max_over_time), a difference of functions, not of instant selectors.
 */
function rows(r: PromResult, withName = true): Row[] {
  const num = (v: unknown) => Number(v).toPrecision(9);
  const key = (m: Record<string, string>) =>
    JSON.stringify(
      Object.entries(m)
        .filter(([k]) => withName || k !== '__name__')
        .sort(),
    );
  const out: Row[] =
    r.resultType === 'scalar'
      ? [['', num(r.result[1])]]
      : r.resultType === 'vector'
        ? r.result.map((x) => [key(x.metric), num(x.value[1])])
        : r.result.map((x) => [key(x.metric), x.values.map((p) => `${p[0]}:${num(p[1])}`).join(' ')]);
  return out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/** PromQL double-quoted string of a label value (Go escapes). */
const quoted = (s: string) => JSON.stringify(s);

const engines: Engine[] = [];
afterAll(async () => {
  for (const e of engines) await e.destroy();
});

describe.each(['prometheus', 'victoria-metrics'] as EngineKind[])('%s', (kind) => {
  it('instant selectors find the newest sample within 7 h, with __name__, as the embedded evaluator does', async () => {
    const engine = await startEngine(kind);
    engines.push(engine);
    const store = await openPrometheusStore({
      url: engine.url,
      ...(kind === 'victoria-metrics' ? { flushUrl: `${engine.url}/internal/force_flush` } : {}),
      retries: 1,
      retryBaseMs: 50,
    });
    await store.append(samples);
    await store.flush();
    const duck = await openDuckDbStore({ path: ':memory:' });
    await duck.append(samples);
    const allowedMetrics = [METRIC];
    const embedded = createStoreQueryEngine(duck, { allowedMetrics });
    const remote = createPassthroughQueryEngine(store.http, store.queryUrl, { allowedMetrics });
    // [query, whether its answer keeps __name__ in PromQL]
    const queries: [string, boolean][] = [
      [METRIC, true],
      ...ODD.map((p): [string, boolean] => [`${METRIC}{provider=${quoted(p)}}`, true]),
      [`${METRIC}{provider=~${quoted('.*\\\\.*|Z.*')}}`, true],
      [`${METRIC}{provider!=${quoted(ODD[0] ?? '')}} * 2`, true],
      [`sum by (provider) (${METRIC})`, true],
      [`count(${METRIC})`, true],
      [`max_over_time(${METRIC}[2h])`, false],
      [`last_over_time(${METRIC}[1h])`, true],
    ];
    try {
      // The first is a minute after the newest sample; at +6 h only the oldest series' newest
      // samples have left the 7 h window (the 9 h old ones never count).
      for (const at of [NOW + MIN, NOW + 6 * HOUR]) {
        for (const [q, withName] of queries) {
          const want = rows(await embedded.instant(q, at), withName);
          const got = rows(await remote.instant(q, at), withName);
          expect(got, `${q} at +${(at - NOW) / MIN} min`).toEqual(want);
        }
      }
      const plain = rows(await remote.instant(METRIC, NOW + MIN));
      expect(plain).toHaveLength(ODD.length);
      expect(plain.every(([labels]) => labels.includes('"__name__","networks_supported"'))).toBe(true);
      expect(rows(await remote.instant(METRIC, NOW + 6 * HOUR)).length).toBeGreaterThan(0);
    } finally {
      await duck.close();
      await store.close();
    }
  }, 60_000);
});
