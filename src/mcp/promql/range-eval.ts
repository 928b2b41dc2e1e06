import { LoopSlice } from '../../concurrency/next-turn.ts';
import { type PackedSamples, packSamples, unpackSamples } from '../../core/packed-samples.ts';
import { type Labels, labelsKey } from '../../core/samples.ts';
import type { Expr, MatrixSelectorExpr, VectorSelectorExpr } from './ast.ts';
import { PromQueryError } from './errors.ts';
import { type EvalContext, evaluateAt, type SeriesData } from './evaluate.ts';
import { parsePromQL } from './parse.ts';
import { type PromPoint, type PromResult, point } from './result.ts';
import { toSeries } from './series-data.ts';

/** Longest stretch a range evaluation holds the event loop before letting other work run. */
export const YIELD_EVERY_MS = 4;

export type Selector = VectorSelectorExpr | MatrixSelectorExpr;

/**
 * Every selector of an expression, in a fixed order (left to right): the order the prefetched
 * series are sent to the evaluation worker in, and found again there from the same query.
 */
export function selectorsOf(e: Expr): Selector[] {
  const out: Selector[] = [];
  const walk = (x: Expr): void => {
    switch (x.type) {
      case 'number':
        return;
      case 'vector':
      case 'matrix':
        out.push(x);
        return;
      case 'over_time':
        if (x.param) walk(x.param);
        out.push(x.arg);
        return;
      case 'aggregate':
      case 'neg':
        walk(x.arg);
        return;
      case 'binary':
        walk(x.lhs);
        walk(x.rhs);
        return;
    }
  };
  walk(e);
  return out;
}

export function bySortedLabels<T extends { metric: Labels }>(rows: T[]): T[] {
  return rows
    .map((r) => ({ r, k: labelsKey(r.metric) }))
    .sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0))
    .map((x) => x.r);
}

export function tooManyPoints(maxPoints: number): PromQueryError {
  return new PromQueryError(
    'refused',
    `result exceeds ${maxPoints} points; narrow the selector or use fewer steps`,
  );
}

export function overDeadline(deadlineMs: number): PromQueryError {
  return new PromQueryError('refused', `query exceeded the ${deadlineMs} ms evaluation deadline`);
}

/** A range query as the evaluation worker gets it: the query, its grid, and the prefetched series. */
export interface RangeRequest {
  readonly query: string;
  readonly startMs: number;
  readonly endMs: number;
  readonly stepMs: number;
  readonly lookbackMs: number;
  readonly maxPoints: number;
  /** Of the query's deadline (the worker's clock is not the caller's). */
  readonly remainingMs: number;
  readonly deadlineMs: number;
  /** The prefetched samples of each selector, packed as the store read them, in selectorsOf order. */
  readonly data: readonly PackedSamples[];
}

/**
 * Evaluates an instant-vector or scalar expression at every step of [startMs, endMs]: one series
 * per label set, sorted. `overDeadline` is asked before each step; with `yieldEveryMs` the loop is
 * let go every few ms (on the event loop: cached reads are answered in between).
 */
export async function evaluateRange(
  expr: Expr,
  startMs: number,
  endMs: number,
  stepMs: number,
  ctx: EvalContext,
  limits: {
    readonly maxPoints: number;
    readonly overDeadline: () => PromQueryError | null;
    readonly yieldEveryMs?: number;
  },
): Promise<PromResult> {
  const series = new Map<string, { metric: Labels; values: PromPoint[] }>();
  let points = 0;
  const slice = limits.yieldEveryMs === undefined ? null : new LoopSlice(limits.yieldEveryMs);
  for (let t = startMs; t <= endMs; t += stepMs) {
    const late = limits.overDeadline();
    if (late) throw late;
    await slice?.pass();
    const v = evaluateAt(expr, t, ctx);
    const rows = v.type === 'scalar' ? [{ labels: {}, v: v.v }] : v.type === 'vector' ? v.samples : [];
    for (const s of rows) {
      const key = labelsKey(s.labels);
      let row = series.get(key);
      if (!row) {
        row = { metric: s.labels, values: [] };
        series.set(key, row);
      }
      row.values.push(point(t, s.v));
      if (++points > limits.maxPoints) throw tooManyPoints(limits.maxPoints);
    }
  }
  return { resultType: 'matrix', result: bySortedLabels([...series.values()]) };
}

/**
 * One range request as the worker evaluates it (eval-worker.ts): the query parsed again, its
 * selectors matched to the series sent, in order. Its errors are the inline evaluation's.
 */
export async function evaluateRequest(r: RangeRequest): Promise<PromResult> {
  const expr = parsePromQL(r.query);
  const selectors = selectorsOf(expr);
  if (selectors.length !== r.data.length) {
    throw new Error(`the query has ${selectors.length} selectors, ${r.data.length} series sets were sent`);
  }
  const data = new Map<Selector, readonly SeriesData[]>(
    selectors.map((s, i) => [s, toSeries(unpackSamples(r.data[i] ?? packSamples([])))]),
  );
  const deadline = performance.now() + r.remainingMs;
  return evaluateRange(
    expr,
    r.startMs,
    r.endMs,
    r.stepMs,
    { data, lookbackMs: r.lookbackMs },
    {
      maxPoints: r.maxPoints,
      overDeadline: () => (performance.now() > deadline ? overDeadline(r.deadlineMs) : null),
    },
  );
}
