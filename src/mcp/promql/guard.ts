import type { Expr, ValueType, VectorSelectorExpr } from './ast.ts';
import { PromQueryError } from './errors.ts';

export interface GuardOptions {
  /** Metric names a selector may read. */
  readonly allowedMetrics: readonly string[];
  /** Longest range selector accepted, ms. */
  readonly maxRangeMs: number;
}

/**
 * Refuses what must never reach the store (unknown metrics, __name__ games, empty selectors, bad
 * regexes, huge ranges) and type-checks the tree. Returns the expression's result type.
 */
export function guardExpr(expr: Expr, opts: GuardOptions): ValueType {
  const allowed = new Set(opts.allowedMetrics);
  const check = (e: Expr): ValueType => {
    switch (e.type) {
      case 'number':
        return 'scalar';
      case 'vector':
        checkSelector(e, allowed, opts.allowedMetrics);
        return 'vector';
      case 'matrix':
        checkSelector(e.selector, allowed, opts.allowedMetrics);
        if (e.rangeMs > opts.maxRangeMs) {
          throw new PromQueryError(
            'refused',
            `range [${e.rangeMs / 1000}s] exceeds the ${opts.maxRangeMs / 1000}s limit`,
          );
        }
        return 'matrix';
      case 'over_time': {
        if (e.param && check(e.param) !== 'scalar') {
          throw new PromQueryError('parse', `${e.fn}() expects a number as its first argument`);
        }
        check(e.arg);
        return 'vector';
      }
      case 'aggregate': {
        for (const l of e.grouping?.labels ?? []) {
          if (l === '__name__') throw new PromQueryError('refused', 'grouping by __name__ is not allowed');
        }
        if (check(e.arg) !== 'vector')
          throw new PromQueryError('parse', `${e.op}() expects an instant vector`);
        return 'vector';
      }
      case 'neg': {
        const t = check(e.arg);
        if (t === 'matrix')
          throw new PromQueryError('parse', 'unary minus expects a scalar or instant vector');
        return t;
      }
      case 'binary': {
        const l = check(e.lhs);
        const r = check(e.rhs);
        if (l === 'matrix' || r === 'matrix') {
          throw new PromQueryError(
            'parse',
            `operator ${e.op} expects scalars or instant vectors, not range vectors`,
          );
        }
        if (l === 'vector' && r === 'vector') {
          throw new PromQueryError(
            'unsupported',
            `unsupported: ${e.op} between two vectors (only vector-scalar and scalar-scalar arithmetic)`,
          );
        }
        return l === 'vector' || r === 'vector' ? 'vector' : 'scalar';
      }
    }
  };
  return check(expr);
}

function checkSelector(sel: VectorSelectorExpr, allowed: ReadonlySet<string>, list: readonly string[]): void {
  if (!sel.metric) {
    throw new PromQueryError(
      'refused',
      'selectors must name a metric (empty or name-less selectors are refused)',
    );
  }
  if (!allowed.has(sel.metric)) {
    throw new PromQueryError(
      'refused',
      `metric "${sel.metric}" is not queryable; allowed metrics: ${list.join(', ')}`,
    );
  }
  for (const m of sel.matchers) {
    if (m.name === '__name__') throw new PromQueryError('refused', '__name__ matchers are not allowed');
    if (m.op === '=~' || m.op === '!~') {
      if (m.value.length > 256)
        throw new PromQueryError('refused', 'regex matchers are limited to 256 characters');
      try {
        new RegExp(`^(?:${m.value})$`);
      } catch {
        throw new PromQueryError('parse', `invalid regex in matcher ${m.name}${m.op}"${m.value}"`);
      }
    }
  }
}
