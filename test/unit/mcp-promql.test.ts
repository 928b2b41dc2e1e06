import { describe, expect, it } from 'vitest';
import { matchesAll, type Sample } from '../../src/core/samples.ts';
// The allowlist is the families' declared metrics: registering them is importing them.
import '../../src/harness/families/index.ts';
import { PromQueryError } from '../../src/mcp/promql/errors.ts';
import { quantile } from '../../src/mcp/promql/evaluate.ts';
import { parseDurationMs, parseNumber, parseString } from '../../src/mcp/promql/literals.ts';
import { parsePromQL } from '../../src/mcp/promql/parse.ts';
import type { PromResult } from '../../src/mcp/promql/result.ts';
import { createStoreQueryEngine } from '../../src/mcp/promql/store-engine.ts';
import type { LatestQuery, SampleStore, SelectQuery } from '../../src/store/sample-store.ts';

const T0 = 1_700_000_000_000;
const MIN = 60_000;
const HOUR = 60 * MIN;

/** A SampleStore over an array; counts calls so tests can see the prefetch plan. */
function arrayStore(samples: Sample[]) {
  const calls = { select: 0, latest: 0 };
  const store: SampleStore = {
    async append(s) {
      samples.push(...s);
      return s.length;
    },
    async select(q: SelectQuery) {
      calls.select++;
      return samples
        .filter(
          (s) =>
            s.metric === q.metric &&
            s.t > q.after &&
            s.t <= q.until &&
            matchesAll(s.labels, q.matchers ?? []),
        )
        .sort((a, b) => JSON.stringify(a.labels).localeCompare(JSON.stringify(b.labels)) || a.t - b.t);
    },
    async latest(q: LatestQuery) {
      calls.latest++;
      const best = new Map<string, Sample>();
      for (const s of samples) {
        if (s.metric !== q.metric || s.t > q.at || !matchesAll(s.labels, q.matchers ?? [])) continue;
        if (q.notBefore !== undefined && s.t <= q.notBefore) continue;
        const k = JSON.stringify(s.labels);
        const cur = best.get(k);
        if (!cur || cur.t < s.t) best.set(k, s);
      }
      return [...best.values()];
    },
    async series() {
      return [];
    },
    async timeBounds() {
      return null;
    },
    onAppend() {
      return () => {};
    },
    async close() {},
  };
  return { store, calls };
}

const cap = 'token_trade_capture_pct';
function trades(provider: string, chain: string, token: string, values: number[]): Sample[] {
  return values.map((v, k) => ({ metric: cap, labels: { provider, chain, token }, t: T0 + k * 30 * MIN, v }));
}

function fixture(): Sample[] {
  return [
    ...trades('mobula', 'solana', 'BONK', [100, 90, 80, 70]),
    ...trades('codex', 'solana', 'BONK', [50, 60, 70, 80]),
    ...trades('codex', 'base', 'BRETT', [10, 20]),
    { metric: 'networks_supported', labels: { provider: 'mobula' }, t: T0, v: 120 },
    { metric: 'networks_supported', labels: { provider: 'codex' }, t: T0 - 8 * HOUR, v: 80 },
  ];
}

const NOW = T0 + 90 * MIN;

function vectorOf(r: PromResult): Array<[Record<string, string>, number | string]> {
  if (r.resultType !== 'vector') throw new Error(`expected vector, got ${r.resultType}`);
  return r.result.map((x) => [x.metric, x.value[1]]);
}

async function refusal(p: Promise<unknown>): Promise<PromQueryError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof PromQueryError) return e;
    throw e;
  }
  throw new Error('expected a PromQueryError');
}

describe('promql literals', () => {
  it('parses durations, numbers and strings', () => {
    expect(parseDurationMs('1h30m')).toBe(90 * MIN);
    expect(parseDurationMs('1d')).toBe(24 * HOUR);
    expect(parseDurationMs('250ms')).toBe(250);
    expect(parseDurationMs('90')).toBe(90_000);
    expect(parseNumber('0x10')).toBe(16);
    expect(parseNumber('-2.5e1')).toBe(-25);
    expect(parseNumber('Inf')).toBe(Number.POSITIVE_INFINITY);
    expect(parseNumber('5m')).toBe(300);
    expect(parseString('"a\\"b\\n"')).toBe('a"b\n');
    expect(parseString("'it\\'s'")).toBe("it's");
    expect(parseString('`r\\aw`')).toBe('r\\aw');
    expect(() => parseDurationMs('5x')).toThrow(PromQueryError);
  });

  it('quantile interpolates between closest ranks', () => {
    expect(quantile(0.9, [100, 90, 80, 70])).toBeCloseTo(97, 10);
    expect(quantile(0.5, [1, 2, 3, 4])).toBe(2.5);
    expect(quantile(0, [5, 1])).toBe(1);
    expect(quantile(1, [5, 1])).toBe(5);
    expect(quantile(1.5, [5, 1])).toBe(Number.POSITIVE_INFINITY);
    expect(quantile(-1, [5, 1])).toBe(Number.NEGATIVE_INFINITY);
    expect(quantile(0.5, [])).toBeNaN();
  });

  it('walks the lezer tree into the AST', () => {
    expect(parsePromQL('sum by (provider) (token_trade_capture_pct{chain=~"sol.*"}) * 2')).toEqual({
      type: 'binary',
      op: '*',
      lhs: {
        type: 'aggregate',
        op: 'sum',
        grouping: { mode: 'by', labels: ['provider'] },
        arg: { type: 'vector', metric: cap, matchers: [{ name: 'chain', op: '=~', value: 'sol.*' }] },
      },
      rhs: { type: 'number', value: 2 },
    });
  });
});

describe('store query engine: instant', () => {
  const { store } = arrayStore(fixture());
  const engine = createStoreQueryEngine(store);

  it('instant selector returns the latest sample per series, with __name__', async () => {
    const r = await engine.instant(`${cap}{chain="solana"}`, NOW);
    expect(vectorOf(r)).toEqual([
      [{ __name__: cap, chain: 'solana', provider: 'codex', token: 'BONK' }, 80],
      [{ __name__: cap, chain: 'solana', provider: 'mobula', token: 'BONK' }, 70],
    ]);
    if (r.resultType === 'vector') expect(r.result[0]?.value[0]).toBe(NOW / 1000);
  });

  it('supports != and !~ matchers', async () => {
    expect(vectorOf(await engine.instant(`${cap}{provider!="mobula",token!~"BO.*"}`, NOW))).toEqual([
      [{ __name__: cap, chain: 'base', provider: 'codex', token: 'BRETT' }, 20],
    ]);
  });

  it('range windows are left-open: avg_over_time over (now-1h, now]', async () => {
    // Samples at now-60m (90) is excluded; now-30m (80) and now (70) are in.
    expect(vectorOf(await engine.instant(`avg_over_time(${cap}{provider="mobula"}[1h])`, NOW))).toEqual([
      [{ chain: 'solana', provider: 'mobula', token: 'BONK' }, 75],
    ]);
  });

  it('computes every *_over_time function', async () => {
    const one = async (q: string) => vectorOf(await engine.instant(q, NOW))[0]?.[1];
    const sel = `${cap}{provider="mobula"}[2h]`;
    expect(await one(`min_over_time(${sel})`)).toBe(70);
    expect(await one(`max_over_time(${sel})`)).toBe(100);
    expect(await one(`sum_over_time(${sel})`)).toBe(340);
    expect(await one(`count_over_time(${sel})`)).toBe(4);
    expect(await one(`last_over_time(${sel})`)).toBe(70);
    expect(await one(`quantile_over_time(0.9, ${sel})`)).toBeCloseTo(97, 10);
    // last_over_time keeps the metric name, as in Prometheus.
    expect(vectorOf(await engine.instant(`last_over_time(${sel})`, NOW))[0]?.[0].__name__).toBe(cap);
  });

  it('aggregates with by and without', async () => {
    // codex: 80 (solana) + 20 (base, last written 1 h ago, inside the lookback).
    expect(vectorOf(await engine.instant(`sum by (provider) (${cap})`, NOW))).toEqual([
      [{ provider: 'codex' }, 100],
      [{ provider: 'mobula' }, 70],
    ]);
    expect(vectorOf(await engine.instant(`sum without (chain, token) (${cap})`, NOW))).toEqual([
      [{ provider: 'codex' }, 100],
      [{ provider: 'mobula' }, 70],
    ]);
    expect(vectorOf(await engine.instant(`avg(${cap})`, NOW))).toEqual([[{}, (70 + 80 + 20) / 3]]);
    expect(vectorOf(await engine.instant(`min by (chain) (${cap})`, NOW))).toEqual([
      [{ chain: 'base' }, 20],
      [{ chain: 'solana' }, 70],
    ]);
    expect(vectorOf(await engine.instant(`count(${cap})`, NOW))).toEqual([[{}, 3]]);
  });

  it('does scalar arithmetic on vectors and scalars', async () => {
    expect(vectorOf(await engine.instant(`max(${cap}) * 2 - 1`, NOW))).toEqual([[{}, 159]]);
    expect(vectorOf(await engine.instant('100 - networks_supported', NOW))).toEqual([
      [{ provider: 'mobula' }, -20],
    ]);
    expect(vectorOf(await engine.instant('-networks_supported', NOW))).toEqual([
      [{ provider: 'mobula' }, -120],
    ]);
    expect(vectorOf(await engine.instant('networks_supported / 0', NOW))).toEqual([
      [{ provider: 'mobula' }, '+Inf'],
    ]);
    expect(await engine.instant('2 / (3 + 5)', NOW)).toEqual({
      resultType: 'scalar',
      result: [NOW / 1000, 0.25],
    });
  });

  it('uses a 7 h lookback: an 8 h old sample is stale, a longer lookback sees it', async () => {
    expect(vectorOf(await engine.instant('networks_supported', NOW)).map((x) => x[1])).toEqual([120]);
    const wide = createStoreQueryEngine(store, { lookbackMs: 10 * HOUR });
    expect(vectorOf(await wide.instant('networks_supported', NOW)).map((x) => x[1])).toEqual([80, 120]);
  });

  it('returns a matrix for an instant range selector', async () => {
    expect(await engine.instant(`${cap}{provider="mobula"}[1h]`, NOW)).toEqual({
      resultType: 'matrix',
      result: [
        {
          metric: { __name__: cap, chain: 'solana', provider: 'mobula', token: 'BONK' },
          values: [
            [(T0 + 60 * MIN) / 1000, 80],
            [(T0 + 90 * MIN) / 1000, 70],
          ],
        },
      ],
    });
  });
});

describe('store query engine: range', () => {
  it('evaluates each step over one prefetch per selector', async () => {
    const { store, calls } = arrayStore(fixture());
    const engine = createStoreQueryEngine(store);
    const r = await engine.range(
      `avg_over_time(${cap}{provider="mobula"}[1h])`,
      T0 + 60 * MIN,
      NOW,
      30 * MIN,
    );
    expect(r).toEqual({
      resultType: 'matrix',
      result: [
        {
          metric: { chain: 'solana', provider: 'mobula', token: 'BONK' },
          values: [
            [(T0 + 60 * MIN) / 1000, 85],
            [NOW / 1000, 75],
          ],
        },
      ],
    });
    expect(calls).toEqual({ select: 1, latest: 0 });
  });

  it('range over an instant selector and over a scalar', async () => {
    const { store } = arrayStore(fixture());
    const engine = createStoreQueryEngine(store);
    const r = await engine.range(`${cap}{provider="codex",chain="base"}`, T0, NOW, 30 * MIN);
    expect(r.resultType === 'matrix' && r.result[0]?.values).toEqual([
      [T0 / 1000, 10],
      [(T0 + 30 * MIN) / 1000, 20],
      [(T0 + 60 * MIN) / 1000, 20],
      [NOW / 1000, 20],
    ]);
    const s = await engine.range('1 + 1', T0, T0 + 60 * MIN, 30 * MIN);
    expect(s).toEqual({
      resultType: 'matrix',
      result: [
        {
          metric: {},
          values: [
            [T0 / 1000, 2],
            [(T0 + 30 * MIN) / 1000, 2],
            [(T0 + 60 * MIN) / 1000, 2],
          ],
        },
      ],
    });
  });

  it('refuses a range selector as a range query result', async () => {
    const { store } = arrayStore(fixture());
    const e = await refusal(createStoreQueryEngine(store).range(`${cap}[1h]`, T0, NOW, MIN));
    expect(e.message).toMatch(/range query/);
  });
});

describe('store query engine: guards', () => {
  const { store } = arrayStore(fixture());
  const engine = createStoreQueryEngine(store);
  const cases: Array<[string, PromQueryError['kind'], RegExp]> = [
    ['node_cpu_seconds_total', 'refused', /not queryable.*networks_supported/],
    ['{chain="solana"}', 'refused', /must name a metric/],
    [`${cap}{__name__=~".+"}`, 'refused', /__name__/],
    [`sum by (__name__) (${cap})`, 'refused', /__name__/],
    [`rate(${cap}[5m])`, 'unsupported', /rate\(\)/],
    [`${cap} offset 5m`, 'unsupported', /offset/],
    [`${cap} @ 100`, 'unsupported', /@ modifier/],
    [`${cap}[1h:5m]`, 'unsupported', /subqueries/],
    [`${cap} > 50`, 'unsupported', /">"/],
    [`${cap} + networks_supported`, 'unsupported', /two vectors/],
    [`topk(1, ${cap})`, 'unsupported', /topk/],
    [`${cap} and networks_supported`, 'unsupported', /"and"/],
    ['"hello"', 'unsupported', /string literal/],
    [`avg_over_time(${cap}[8d])`, 'refused', /exceeds/],
    [`${cap}{chain=~"("}`, 'parse', /invalid regex/],
    [
      `sum(${cap}`,
      'parse',
      /syntax error at position \d+: expected "," or "\)" to close the function call, found the end of the query/,
    ],
    [`${cap}{chain=}`, 'parse', /expected a quoted label value/],
    [`avg_over_time(${cap})`, 'parse', /range selector/],
  ];
  for (const [q, kind, re] of cases) {
    it(`${kind}: ${q}`, async () => {
      const e = await refusal(engine.instant(q, NOW));
      expect(e.kind).toBe(kind);
      expect(e.message).toMatch(re);
    });
  }

  it('caps the number of returned points', async () => {
    const small = createStoreQueryEngine(store, { maxPoints: 5 });
    expect((await refusal(small.range(cap, T0, NOW, 30 * MIN))).message).toMatch(/exceeds 5 points/);
    expect((await refusal(small.range('1', T0, T0 + 10 * HOUR, MIN))).message).toMatch(/exceeds 5 points/);
  });

  it('caps the samples read', async () => {
    const small = createStoreQueryEngine(store, { maxFetchedSamples: 3 });
    expect((await refusal(small.instant(`${cap}[2h]`, NOW))).message).toMatch(/more than 3 stored samples/);
  });

  it('gives up at the deadline when the store hangs', async () => {
    const hanging: SampleStore = {
      ...store,
      select: () => new Promise(() => {}),
      latest: () => new Promise(() => {}),
    };
    const e = await refusal(createStoreQueryEngine(hanging, { deadlineMs: 30 }).instant(cap, NOW));
    expect(e.kind).toBe('refused');
    expect(e.message).toMatch(/deadline/);
  });
});
