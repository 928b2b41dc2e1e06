import { STORED_METRIC_NAMES } from '../../core/metric-names.ts';
import { type PackedSamples, packSamples } from '../../core/packed-samples.ts';
import type { Sample } from '../../core/samples.ts';
import {
  type LatestQuery,
  type SampleStore,
  type SelectQuery,
  selectPacked,
} from '../../store/sample-store.ts';
import { PromQueryError } from './errors.ts';
import { type EvalContext, evaluateAt, type Value } from './evaluate.ts';
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
import { toSeries } from './series-data.ts';

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

  /** How prepare reads: samples for an evaluation here, packed ones for a worker. */
  interface Reads<T> {
    select(q: SelectQuery): Promise<T>;
    latest(q: LatestQuery): Promise<T>;
    count(fetched: T): number;
  }
  const asSamples: Reads<readonly Sample[]> = {
    select: (q) => store.select(q),
    latest: (q) => store.latest(q),
    count: (x) => x.length,
  };
  const packed: Reads<PackedSamples> = {
    select: (q) => selectPacked(store, q),
    latest: async (q) => packSamples(await store.latest(q)),
    count: (p) => p.t.length,
  };

  async function prepare<T>(
    query: string,
    startMs: number,
    endMs: number,
    deadline: number,
    reads: Reads<T>,
  ) {
    const expr = parsePromQL(query);
    const type = guardExpr(expr, { allowedMetrics, maxRangeMs });
    const selectors = selectorsOf(expr);
    const fetchedBy = new Map<Selector, T>();
    let fetched = 0;
    for (const sel of selectors) {
      const base = sel.type === 'matrix' ? sel.selector : sel;
      const reach = sel.type === 'matrix' ? sel.rangeMs : lookbackMs;
      const q = { metric: base.metric, matchers: base.matchers };
      const samples =
        sel.type === 'vector' && startMs === endMs
          ? await beforeDeadline(reads.latest({ ...q, at: endMs, notBefore: endMs - lookbackMs }), deadline)
          : await beforeDeadline(reads.select({ ...q, after: startMs - reach, until: endMs }), deadline);
      fetched += reads.count(samples);
      if (fetched > maxFetched) {
        throw new PromQueryError('refused', `query reads more than ${maxFetched} stored samples; narrow it`);
      }
      fetchedBy.set(sel, samples);
    }
    return { expr, type, fetchedBy };
  }

  /** The prefetched samples grouped by series, as the evaluation reads them. */
  const contextOf = (fetchedBy: ReadonlyMap<Selector, readonly Sample[]>): EvalContext => ({
    data: new Map([...fetchedBy].map(([sel, samples]) => [sel, toSeries(samples)])),
    lookbackMs,
  });

  const tooMany = (): PromQueryError => tooManyPoints(maxPoints);
  const notInstant = (): PromQueryError =>
    new PromQueryError(
      'parse',
      'a range query needs a scalar or instant-vector expression, not a range selector',
    );

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
      const { expr, fetchedBy } = await prepare(query, atMs, atMs, deadline, asSamples);
      return instantResult(evaluateAt(expr, atMs, contextOf(fetchedBy)), atMs);
    },

    async range(query, startMs, endMs, stepMs) {
      if (!(stepMs > 0) || endMs < startMs)
        throw new PromQueryError('refused', 'bad range: need step > 0 and end ≥ start');
      if (Math.floor((endMs - startMs) / stepMs) + 1 > maxPoints) throw tooMany();
      const deadline = timer() + deadlineMs;
      const worker = opts.worker;
      if (!worker) {
        const { expr, type, fetchedBy } = await prepare(query, startMs, endMs, deadline, asSamples);
        if (type === 'matrix') throw notInstant();
        return evaluateRange(expr, startMs, endMs, stepMs, contextOf(fetchedBy), {
          maxPoints,
          overDeadline: () => (timer() > deadline ? late() : null),
          yieldEveryMs: YIELD_EVERY_MS,
        });
      }
      // Off the event loop: the worker gets the query, the prefetched samples packed as the store
      // read them (it groups them by series itself), and the time left.
      const { expr, type, fetchedBy } = await prepare(query, startMs, endMs, deadline, packed);
      if (type === 'matrix') throw notInstant();
      return worker.evaluate({
        query,
        startMs,
        endMs,
        stepMs,
        lookbackMs,
        maxPoints,
        remainingMs: deadline - timer(),
        deadlineMs,
        data: selectorsOf(expr).map((sel) => fetchedBy.get(sel) ?? packSamples([])),
      });
    },
  };
}
