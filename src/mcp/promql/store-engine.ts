import { STORED_METRIC_NAMES } from '../../core/metric-names.ts';
import { type Labels, labelsKey, type Sample } from '../../core/samples.ts';
import type { SampleStore } from '../../store/sample-store.ts';
import { PromQueryError } from './errors.ts';
import { type EvalContext, evaluateAt, type SeriesData, type Value } from './evaluate.ts';
import { guardExpr } from './guard.ts';
import { parsePromQL } from './parse.ts';
import {
  bySortedLabels,
  evaluateRange,
  overDeadline,
  type RangeRequest,
  type Selector,
  selectorsOf,
  tooManyPoints,
  YIELD_EVERY_MS,
} from './range-eval.ts';
import { type PromQueryEngine, type PromResult, point } from './result.ts';

export interface StoreEngineOptions {
  /**
   * Instant-selector lookback. Prometheus uses 5 minutes, but our harness's families probe every 30
   * minutes to every 6 hours (their cadences): 7 h finds the latest value of each with
   * an hour of slack for a late cycle, and still lets a series that stopped reporting drop out.
   */
  readonly lookbackMs?: number;
  /** Wall-clock budget per query, ms. */
  readonly deadlineMs?: number;
  /** Most points (series × timestamps) a result may hold. */
  readonly maxPoints?: number;
  /** Most stored samples a query may read. */
  readonly maxFetchedSamples?: number;
  /** Longest range selector, ms. */
  readonly maxRangeMs?: number;
  readonly allowedMetrics?: readonly string[];
  /** Monotonic-enough clock for the deadline (tests inject one). */
  readonly timer?: () => number;
  /** Evaluates range queries off the event loop (src/mcp/promql/eval-worker-client.ts). */
  readonly worker?: RangeEvaluator;
}

/** Where a range query's steps are evaluated when not inline. */
export interface RangeEvaluator {
  evaluate(req: RangeRequest): Promise<PromResult>;
}

export const DEFAULT_LOOKBACK_MS = 7 * 3_600_000;

function toSeries(samples: readonly Sample[]): SeriesData[] {
  const byKey = new Map<string, { labels: Labels; ts: number[]; vs: number[] }>();
  // The store hands out one labels object per series, in runs: its key is computed once per run,
  // not per sample (per sample, the keys were most of a 7-day query's time on the event loop).
  let lastLabels: Labels | undefined;
  let lastMetric = '';
  let d: { labels: Labels; ts: number[]; vs: number[] } | undefined;
  for (const s of samples) {
    if (d === undefined || s.labels !== lastLabels || s.metric !== lastMetric) {
      lastLabels = s.labels;
      lastMetric = s.metric;
      const labels: Labels = { ...s.labels, __name__: s.metric };
      const key = labelsKey(labels);
      d = byKey.get(key);
      if (!d) {
        d = { labels, ts: [], vs: [] };
        byKey.set(key, d);
      }
    }
    d.ts.push(s.t);
    d.vs.push(s.v);
  }
  const out = [...byKey.values()];
  for (const d of out) {
    // The store promises time order within a series; re-sort only if it did not hold.
    if (d.ts.some((t, i) => i > 0 && t < (d.ts[i - 1] as number))) {
      const idx = d.ts.map((_, i) => i).sort((a, b) => (d.ts[a] as number) - (d.ts[b] as number));
      d.ts = idx.map((i) => d.ts[i] as number);
      d.vs = idx.map((i) => d.vs[i] as number);
    }
  }
  return out;
}

/**
 * Evaluates the supported PromQL subset over the embedded sample store: parse → guard → prefetch
 * every selector once for the whole time span → evaluate each step in memory.
 */
export function createStoreQueryEngine(store: SampleStore, opts: StoreEngineOptions = {}): PromQueryEngine {
  const lookbackMs = opts.lookbackMs ?? DEFAULT_LOOKBACK_MS;
  const deadlineMs = opts.deadlineMs ?? 2000;
  const maxPoints = opts.maxPoints ?? 11_000;
  const maxFetched = opts.maxFetchedSamples ?? 500_000;
  const maxRangeMs = opts.maxRangeMs ?? 7 * 86_400_000;
  const allowedMetrics = opts.allowedMetrics ?? STORED_METRIC_NAMES;
  const timer = opts.timer ?? (() => performance.now());

  const late = (): PromQueryError => overDeadline(deadlineMs);

  async function beforeDeadline<T>(p: Promise<T>, deadline: number): Promise<T> {
    const left = deadline - timer();
    if (left <= 0) throw late();
    let timeout: ReturnType<typeof setTimeout> | undefined;
    try {
      return await Promise.race([
        p,
        new Promise<never>((_, reject) => {
          timeout = setTimeout(() => reject(late()), left);
        }),
      ]);
    } finally {
      clearTimeout(timeout);
    }
  }

  async function prepare(query: string, startMs: number, endMs: number, deadline: number) {
    const expr = parsePromQL(query);
    const type = guardExpr(expr, { allowedMetrics, maxRangeMs });
    const selectors = selectorsOf(expr);
    const data = new Map<Selector, readonly SeriesData[]>();
    let fetched = 0;
    for (const sel of selectors) {
      const base = sel.type === 'matrix' ? sel.selector : sel;
      const reach = sel.type === 'matrix' ? sel.rangeMs : lookbackMs;
      const q = { metric: base.metric, matchers: base.matchers };
      const samples =
        sel.type === 'vector' && startMs === endMs
          ? await beforeDeadline(store.latest({ ...q, at: endMs, notBefore: endMs - lookbackMs }), deadline)
          : await beforeDeadline(store.select({ ...q, after: startMs - reach, until: endMs }), deadline);
      fetched += samples.length;
      if (fetched > maxFetched) {
        throw new PromQueryError('refused', `query reads more than ${maxFetched} stored samples; narrow it`);
      }
      data.set(sel, toSeries(samples));
    }
    const ctx: EvalContext = { data, lookbackMs };
    return { expr, type, ctx };
  }

  const tooMany = (): PromQueryError => tooManyPoints(maxPoints);

  function instantResult(v: Value, t: number): PromResult {
    switch (v.type) {
      case 'scalar':
        return { resultType: 'scalar', result: point(t, v.v) };
      case 'vector':
        if (v.samples.length > maxPoints) throw tooMany();
        return {
          resultType: 'vector',
          result: bySortedLabels(v.samples.map((s) => ({ metric: s.labels, value: point(t, s.v) }))),
        };
      case 'matrix': {
        let n = 0;
        for (const s of v.series) n += s.ts.length;
        if (n > maxPoints) throw tooMany();
        return {
          resultType: 'matrix',
          result: bySortedLabels(
            v.series.map((s) => ({
              metric: s.labels,
              values: s.ts.map((ts, i) => point(ts, s.vs[i] as number)),
            })),
          ),
        };
      }
    }
  }

  return {
    async instant(query, atMs) {
      const deadline = timer() + deadlineMs;
      const { expr, ctx } = await prepare(query, atMs, atMs, deadline);
      return instantResult(evaluateAt(expr, atMs, ctx), atMs);
    },

    async range(query, startMs, endMs, stepMs) {
      if (!(stepMs > 0) || endMs < startMs)
        throw new PromQueryError('refused', 'bad range: need step > 0 and end ≥ start');
      if (Math.floor((endMs - startMs) / stepMs) + 1 > maxPoints) throw tooMany();
      const deadline = timer() + deadlineMs;
      const { expr, type, ctx } = await prepare(query, startMs, endMs, deadline);
      if (type === 'matrix') {
        throw new PromQueryError(
          'parse',
          'a range query needs a scalar or instant-vector expression, not a range selector',
        );
      }
      if (!opts.worker) {
        return evaluateRange(expr, startMs, endMs, stepMs, ctx, {
          maxPoints,
          overDeadline: () => (timer() > deadline ? late() : null),
          yieldEveryMs: YIELD_EVERY_MS,
        });
      }
      // Off the event loop: the worker gets the query and the prefetched series, and the time left.
      return opts.worker.evaluate({
        query,
        startMs,
        endMs,
        stepMs,
        lookbackMs,
        maxPoints,
        remainingMs: deadline - timer(),
        deadlineMs,
        data: selectorsOf(expr).map((sel) => ctx.data.get(sel) ?? []),
      });
    },
  };
}
