import type { Matcher } from '../../core/samples.ts';

/** The PromQL subset we evaluate; the parser maps anything else to an `unsupported` error. */
export type OverTimeFn =
  | 'avg_over_time'
  | 'min_over_time'
  | 'max_over_time'
  | 'sum_over_time'
  | 'count_over_time'
  | 'last_over_time'
  | 'quantile_over_time';

export type AggregateOp = 'sum' | 'avg' | 'min' | 'max' | 'count';
export type ArithOp = '+' | '-' | '*' | '/';

export interface NumberExpr {
  readonly type: 'number';
  readonly value: number;
}

export interface VectorSelectorExpr {
  readonly type: 'vector';
  /** Empty when the selector named no metric (refused by the guard). */
  readonly metric: string;
  readonly matchers: readonly Matcher[];
}

export interface MatrixSelectorExpr {
  readonly type: 'matrix';
  readonly selector: VectorSelectorExpr;
  readonly rangeMs: number;
}

export interface OverTimeExpr {
  readonly type: 'over_time';
  readonly fn: OverTimeFn;
  /** quantile_over_time's φ, a scalar expression. */
  readonly param?: Expr;
  readonly arg: MatrixSelectorExpr;
}

export interface AggregateExpr {
  readonly type: 'aggregate';
  readonly op: AggregateOp;
  readonly grouping: { readonly mode: 'by' | 'without'; readonly labels: readonly string[] } | null;
  readonly arg: Expr;
}

export interface BinaryExpr {
  readonly type: 'binary';
  readonly op: ArithOp;
  readonly lhs: Expr;
  readonly rhs: Expr;
}

export interface NegExpr {
  readonly type: 'neg';
  readonly arg: Expr;
}

export type Expr =
  | NumberExpr
  | VectorSelectorExpr
  | MatrixSelectorExpr
  | OverTimeExpr
  | AggregateExpr
  | BinaryExpr
  | NegExpr;

export type ValueType = 'scalar' | 'vector' | 'matrix';
