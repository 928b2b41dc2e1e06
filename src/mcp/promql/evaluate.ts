import { type Labels, labelsKey } from '../../core/samples.ts';
import { upperBound } from '../../core/stats.ts';
import type {
  AggregateExpr,
  ArithOp,
  Expr,
  MatrixSelectorExpr,
  OverTimeExpr,
  VectorSelectorExpr,
} from './ast.ts';
import { PromQueryError } from './errors.ts';

/** One stored series, samples ascending by time; `labels` include __name__. */
export interface SeriesData {
  readonly labels: Labels;
  readonly ts: readonly number[];
  readonly vs: readonly number[];
}

export interface InstantSample {
  readonly labels: Labels;
  readonly v: number;
}

export interface RangeSeries {
  readonly labels: Labels;
  readonly ts: readonly number[];
  readonly vs: readonly number[];
}

export type Value =
  | { readonly type: 'scalar'; readonly v: number }
  | { readonly type: 'vector'; readonly samples: readonly InstantSample[] }
  | { readonly type: 'matrix'; readonly series: readonly RangeSeries[] };

export interface EvalContext {
  /** Prefetched samples per selector node (by identity), covering every evaluation time. */
  readonly data: ReadonlyMap<VectorSelectorExpr | MatrixSelectorExpr, readonly SeriesData[]>;
  /** Instant selectors take the newest sample in (t − lookbackMs, t]. */
  readonly lookbackMs: number;
}

export function dropName(labels: Labels): Labels {
  if (!('__name__' in labels)) return labels;
  const { __name__: _, ...rest } = labels;
  return rest;
}

function selectorData(
  ctx: EvalContext,
  node: VectorSelectorExpr | MatrixSelectorExpr,
): readonly SeriesData[] {
  const d = ctx.data.get(node);
  if (!d) throw new Error('selector was not prefetched');
  return d;
}

/** Evaluates one expression at time t (epoch ms) over prefetched data; pure. */
export function evaluateAt(expr: Expr, t: number, ctx: EvalContext): Value {
  switch (expr.type) {
    case 'number':
      return { type: 'scalar', v: expr.value };
    case 'vector': {
      const out: InstantSample[] = [];
      for (const s of selectorData(ctx, expr)) {
        const i = upperBound(s.ts, t) - 1;
        if (i >= 0 && (s.ts[i] as number) > t - ctx.lookbackMs)
          out.push({ labels: s.labels, v: s.vs[i] as number });
      }
      return { type: 'vector', samples: out };
    }
    case 'matrix':
      return { type: 'matrix', series: windowed(selectorData(ctx, expr), t - expr.rangeMs, t) };
    case 'over_time':
      return overTime(expr, t, ctx);
    case 'aggregate':
      return aggregate(expr, evaluateAt(expr.arg, t, ctx));
    case 'neg': {
      const v = evaluateAt(expr.arg, t, ctx);
      if (v.type === 'scalar') return { type: 'scalar', v: -v.v };
      if (v.type === 'vector') {
        return { type: 'vector', samples: v.samples.map((s) => ({ labels: dropName(s.labels), v: -s.v })) };
      }
      throw new PromQueryError('parse', 'unary minus on a range vector');
    }
    case 'binary':
      return binary(expr.op, evaluateAt(expr.lhs, t, ctx), evaluateAt(expr.rhs, t, ctx));
  }
}

/** Samples in the left-open window (from, to]. */
function windowed(data: readonly SeriesData[], from: number, to: number): RangeSeries[] {
  const out: RangeSeries[] = [];
  for (const s of data) {
    const a = upperBound(s.ts, from);
    const b = upperBound(s.ts, to);
    if (b > a) out.push({ labels: s.labels, ts: s.ts.slice(a, b), vs: s.vs.slice(a, b) });
  }
  return out;
}

/** Prometheus quantile: linear interpolation between the closest ranks of the sorted values. */
export function quantile(phi: number, values: readonly number[]): number {
  if (values.length === 0 || Number.isNaN(phi)) return Number.NaN;
  if (phi < 0) return Number.NEGATIVE_INFINITY;
  if (phi > 1) return Number.POSITIVE_INFINITY;
  const sorted = [...values].sort((x, y) => x - y);
  const n = sorted.length;
  const rank = phi * (n - 1);
  const lower = Math.max(0, Math.floor(rank));
  const upper = Math.min(n - 1, lower + 1);
  const weight = rank - Math.floor(rank);
  return (sorted[lower] as number) * (1 - weight) + (sorted[upper] as number) * weight;
}

function minOf(vs: readonly number[]): number {
  let m = Number.NaN;
  for (const v of vs) if (v < m || Number.isNaN(m)) m = v;
  return m;
}

function maxOf(vs: readonly number[]): number {
  let m = Number.NaN;
  for (const v of vs) if (v > m || Number.isNaN(m)) m = v;
  return m;
}

function sumOf(vs: readonly number[]): number {
  let s = 0;
  for (const v of vs) s += v;
  return s;
}

function overTime(expr: OverTimeExpr, t: number, ctx: EvalContext): Value {
  let phi = Number.NaN;
  if (expr.param) {
    const p = evaluateAt(expr.param, t, ctx);
    if (p.type !== 'scalar') throw new PromQueryError('parse', `${expr.fn}() expects a number first`);
    phi = p.v;
  }
  const series = windowed(selectorData(ctx, expr.arg), t - expr.arg.rangeMs, t);
  const samples: InstantSample[] = series.map((s) => {
    const vs = s.vs;
    let v: number;
    switch (expr.fn) {
      case 'avg_over_time':
        v = sumOf(vs) / vs.length;
        break;
      case 'min_over_time':
        v = minOf(vs);
        break;
      case 'max_over_time':
        v = maxOf(vs);
        break;
      case 'sum_over_time':
        v = sumOf(vs);
        break;
      case 'count_over_time':
        v = vs.length;
        break;
      case 'last_over_time':
        v = vs[vs.length - 1] as number;
        break;
      case 'quantile_over_time':
        v = quantile(phi, vs);
        break;
    }
    // Prometheus keeps the metric name only for last_over_time.
    return { labels: expr.fn === 'last_over_time' ? s.labels : dropName(s.labels), v };
  });
  return { type: 'vector', samples };
}

function groupLabels(labels: Labels, grouping: AggregateExpr['grouping']): Labels {
  if (!grouping) return {};
  if (grouping.mode === 'by') {
    const out: Record<string, string> = {};
    for (const l of grouping.labels) {
      const v = labels[l];
      if (v !== undefined && v !== '') out[l] = v;
    }
    return out;
  }
  const drop = new Set([...grouping.labels, '__name__']);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(labels)) if (!drop.has(k)) out[k] = v;
  return out;
}

function aggregate(expr: AggregateExpr, input: Value): Value {
  if (input.type !== 'vector') throw new PromQueryError('parse', `${expr.op}() expects an instant vector`);
  const groups = new Map<string, { labels: Labels; vs: number[] }>();
  for (const s of input.samples) {
    const labels = groupLabels(s.labels, expr.grouping);
    const key = labelsKey(labels);
    let g = groups.get(key);
    if (!g) {
      g = { labels, vs: [] };
      groups.set(key, g);
    }
    g.vs.push(s.v);
  }
  const samples: InstantSample[] = [];
  for (const g of groups.values()) {
    let v: number;
    switch (expr.op) {
      case 'sum':
        v = sumOf(g.vs);
        break;
      case 'avg':
        v = sumOf(g.vs) / g.vs.length;
        break;
      case 'min':
        v = minOf(g.vs);
        break;
      case 'max':
        v = maxOf(g.vs);
        break;
      case 'count':
        v = g.vs.length;
        break;
    }
    samples.push({ labels: g.labels, v });
  }
  return { type: 'vector', samples };
}

function arith(op: ArithOp, a: number, b: number): number {
  switch (op) {
    case '+':
      return a + b;
    case '-':
      return a - b;
    case '*':
      return a * b;
    case '/':
      return a / b;
  }
}

function binary(op: ArithOp, l: Value, r: Value): Value {
  if (l.type === 'scalar' && r.type === 'scalar') return { type: 'scalar', v: arith(op, l.v, r.v) };
  if (l.type === 'vector' && r.type === 'scalar') {
    return {
      type: 'vector',
      samples: l.samples.map((s) => ({ labels: dropName(s.labels), v: arith(op, s.v, r.v) })),
    };
  }
  if (l.type === 'scalar' && r.type === 'vector') {
    return {
      type: 'vector',
      samples: r.samples.map((s) => ({ labels: dropName(s.labels), v: arith(op, l.v, s.v) })),
    };
  }
  throw new PromQueryError('unsupported', `unsupported: ${op} between ${l.type} and ${r.type}`);
}
