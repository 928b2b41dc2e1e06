import type { SyntaxNode } from '@lezer/common';
import { parser } from '@prometheus-io/lezer-promql';
import type { Matcher, MatchOp } from '../../core/samples.ts';
import type {
  AggregateOp,
  ArithOp,
  Expr,
  MatrixSelectorExpr,
  OverTimeFn,
  VectorSelectorExpr,
} from './ast.ts';
import { PromQueryError } from './errors.ts';
import { parseDurationMs, parseNumber, parseString } from './literals.ts';

const OVER_TIME: ReadonlySet<string> = new Set<OverTimeFn>([
  'avg_over_time',
  'min_over_time',
  'max_over_time',
  'sum_over_time',
  'count_over_time',
  'last_over_time',
  'quantile_over_time',
]);
const AGGREGATES: ReadonlySet<string> = new Set<AggregateOp>(['sum', 'avg', 'min', 'max', 'count']);
const ARITH: Readonly<Record<string, ArithOp>> = { Add: '+', Sub: '-', Mul: '*', Div: '/' };
const MATCH_OPS: ReadonlySet<string> = new Set<MatchOp>(['=', '!=', '=~', '!~']);

/** Lezer node names of constructs that are valid PromQL but outside our subset, for the error text. */
const UNSUPPORTED_NODES: Readonly<Record<string, string>> = {
  OffsetExpr: 'the offset modifier',
  StepInvariantExpr: 'the @ modifier',
  SubqueryExpr: 'subqueries',
  StringLiteral: 'string literals as expressions',
  AnchoredExpr: 'the anchored modifier',
  SmoothedExpr: 'the smoothed modifier',
};

/**
 * Parses with the official Prometheus lezer grammar and walks the tree into our AST. Anything
 * outside the supported subset throws an `unsupported` PromQueryError naming the construct.
 */
export function parsePromQL(query: string): Expr {
  const hit = parsed.get(query);
  if (hit) {
    // Most recently used last, so the oldest is dropped first.
    parsed.delete(query);
    parsed.set(query, hit);
    return hit;
  }
  const expr = parseUncached(query);
  parsed.set(query, expr);
  if (parsed.size > PARSED_KEPT) parsed.delete(parsed.keys().next().value as string);
  return expr;
}

/**
 * Parsed queries, by their text: an agent (or a dashboard) repeats the same query with a moving
 * window, and one parse of the burst bench's query took ~5 ms of the event loop on the 2-core VM
 * (bench:loop-holds' profile). The AST is read-only, so sharing it between queries is safe; a
 * query that fails to parse is parsed (and refused) again each time.
 */
const parsed = new Map<string, Expr>();
const PARSED_KEPT = 256;

function parseUncached(query: string): Expr {
  const tree = parser.parse(query);
  let errorAt = -1;
  const context: string[] = [];
  tree.iterate({
    enter: (n) => {
      if (errorAt < 0 && n.type.isError) {
        errorAt = n.from;
        for (let p = n.node.parent; p; p = p.parent) context.push(p.name);
      }
      return errorAt < 0;
    },
  });
  if (errorAt >= 0) {
    const found =
      errorAt >= query.length ? 'the end of the query' : `"${query.slice(errorAt, errorAt + 20)}"`;
    throw new PromQueryError(
      'parse',
      `syntax error at position ${errorAt}: ${expectedIn(context)}, found ${found}\n  ${query}\n  ${' '.repeat(errorAt)}^`,
    );
  }
  const exprs = children(tree.topNode);
  if (exprs.length !== 1 || !exprs[0]) throw new PromQueryError('parse', 'expected exactly one expression');
  return new Walker(query).expr(exprs[0]);
}

/**
 * What the grammar wanted where parsing stopped, from the construct the error sits in (innermost
 * first), so an agent can fix the query without knowing the grammar.
 */
function expectedIn(context: readonly string[]): string {
  const inner = context[0] ?? 'PromQL';
  if (inner === 'UnquotedLabelMatcher' || inner === 'QuotedLabelMatcher') {
    return 'expected a quoted label value, e.g. chain="solana"';
  }
  if (inner === 'LabelMatchers') return 'expected a label matcher or "}"';
  if (inner === 'GroupingLabels') return 'expected a label name, "," or ")" in the by/without list';
  if (inner === 'FunctionCallBody') return 'expected "," or ")" to close the function call';
  if (inner === 'MatrixSelector') return 'expected a duration and "]", e.g. [1h]';
  if (inner === 'BinaryExpr') return 'expected an expression after the operator';
  if (inner === 'AggregateExpr') return 'expected "(" and an expression, e.g. sum by (chain) (metric)';
  if (inner === 'VectorSelector' || inner === 'PromQL') return 'expected an operator or the end of the query';
  return `unexpected input in ${inner}`;
}

function children(node: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (let c = node.firstChild; c; c = c.nextSibling) if (c.name !== 'LineComment') out.push(c);
  return out;
}

class Walker {
  constructor(private readonly src: string) {}

  private text(n: SyntaxNode): string {
    return this.src.slice(n.from, n.to);
  }

  expr(n: SyntaxNode): Expr {
    switch (n.name) {
      case 'NumberDurationLiteral':
        return { type: 'number', value: parseNumber(this.text(n)) };
      case 'ParenExpr': {
        const [inner] = children(n);
        if (!inner) throw new PromQueryError('parse', 'empty parentheses');
        return this.expr(inner);
      }
      case 'UnaryExpr': {
        const [op, arg] = children(n);
        if (!op || !arg) throw new PromQueryError('parse', 'bad unary expression');
        const inner = this.expr(arg);
        return this.text(op) === '-' ? { type: 'neg', arg: inner } : inner;
      }
      case 'VectorSelector':
        return this.vectorSelector(n);
      case 'MatrixSelector':
        return this.matrixSelector(n);
      case 'FunctionCall':
        return this.functionCall(n);
      case 'AggregateExpr':
        return this.aggregate(n);
      case 'BinaryExpr':
        return this.binary(n);
      default: {
        const what = UNSUPPORTED_NODES[n.name] ?? `"${this.text(n).slice(0, 40)}" (${n.name})`;
        throw new PromQueryError('unsupported', `unsupported construct: ${what}`);
      }
    }
  }

  private vectorSelector(n: SyntaxNode): VectorSelectorExpr {
    let metric = '';
    const matchers: Matcher[] = [];
    for (const c of children(n)) {
      if (c.name === 'Identifier') metric = this.text(c);
      else if (c.name === 'LabelMatchers') {
        for (const m of children(c)) {
          const parts = children(m);
          if (m.name === 'QuotedLabelName' && parts.length === 1 && parts[0]) {
            // Prometheus 3 UTF-8 syntax: {"metric_name"} names the metric.
            metric = parseString(this.text(parts[0]));
            continue;
          }
          matchers.push(this.matcher(m, parts));
        }
      } else throw new PromQueryError('unsupported', `unsupported selector part "${this.text(c)}"`);
    }
    return { type: 'vector', metric, matchers };
  }

  private matcher(m: SyntaxNode, parts: SyntaxNode[]): Matcher {
    const [nameNode, opNode, valueNode] = parts;
    if (!nameNode || !opNode || !valueNode || parts.length !== 3) {
      throw new PromQueryError('parse', `bad label matcher "${this.text(m)}"`);
    }
    const name =
      nameNode.name === 'QuotedLabelName' && nameNode.firstChild
        ? parseString(this.text(nameNode.firstChild))
        : this.text(nameNode);
    const op = this.text(opNode);
    if (!MATCH_OPS.has(op)) throw new PromQueryError('parse', `bad match operator "${op}"`);
    return { name, op: op as MatchOp, value: parseString(this.text(valueNode)) };
  }

  private matrixSelector(n: SyntaxNode): MatrixSelectorExpr {
    const [sel, dur, ...rest] = children(n);
    if (!sel || !dur || rest.length > 0 || sel.name !== 'VectorSelector') {
      throw new PromQueryError('unsupported', `unsupported range selector "${this.text(n)}"`);
    }
    const lit = children(dur);
    if (
      dur.name !== 'DurationExpr' ||
      lit.length !== 1 ||
      lit[0]?.name !== 'NumberDurationLiteralInDurationContext'
    ) {
      throw new PromQueryError(
        'unsupported',
        `unsupported range duration "${this.text(dur)}" (use a literal like 1h)`,
      );
    }
    const rangeMs = parseDurationMs(this.text(dur));
    if (rangeMs <= 0) throw new PromQueryError('parse', 'range must be positive');
    return { type: 'matrix', selector: this.vectorSelector(sel), rangeMs };
  }

  private functionCall(n: SyntaxNode): Expr {
    const [ident, body] = children(n);
    if (!ident || !body) throw new PromQueryError('parse', 'bad function call');
    const name = this.text(ident);
    if (!OVER_TIME.has(name)) {
      throw new PromQueryError(
        'unsupported',
        `unsupported function ${name}(); supported: ${[...OVER_TIME].join(', ')}`,
      );
    }
    const fn = name as OverTimeFn;
    const args = children(body).map((a) => this.expr(a));
    const wanted = fn === 'quantile_over_time' ? 2 : 1;
    if (args.length !== wanted) throw new PromQueryError('parse', `${fn}() takes ${wanted} argument(s)`);
    const arg = args[wanted - 1];
    if (arg?.type !== 'matrix') {
      throw new PromQueryError('parse', `${fn}() expects a range selector such as metric[1h]`);
    }
    return wanted === 2
      ? { type: 'over_time', fn, param: args[0] as Expr, arg }
      : { type: 'over_time', fn, arg };
  }

  private aggregate(n: SyntaxNode): Expr {
    let op = '';
    let grouping: { mode: 'by' | 'without'; labels: string[] } | null = null;
    let args: Expr[] = [];
    for (const c of children(n)) {
      if (c.name === 'AggregateOp') op = this.text(c);
      else if (c.name === 'AggregateModifier') {
        const [kw, labels] = children(c);
        const mode = kw?.name === 'Without' ? 'without' : 'by';
        grouping = {
          mode,
          labels: labels
            ? children(labels).map((l) =>
                l.name === 'QuotedLabelName' && l.firstChild
                  ? parseString(this.text(l.firstChild))
                  : this.text(l),
              )
            : [],
        };
      } else if (c.name === 'FunctionCallBody') args = children(c).map((a) => this.expr(a));
    }
    if (!AGGREGATES.has(op)) {
      throw new PromQueryError(
        'unsupported',
        `unsupported aggregation ${op}(); supported: ${[...AGGREGATES].join(', ')}`,
      );
    }
    const [arg, ...extra] = args;
    if (!arg || extra.length > 0) throw new PromQueryError('parse', `${op}() takes exactly one argument`);
    return { type: 'aggregate', op: op as AggregateOp, grouping, arg };
  }

  private binary(n: SyntaxNode): Expr {
    const parts = children(n);
    const lhs = parts[0];
    const opNode = parts[1];
    const rhs = parts[parts.length - 1];
    if (!lhs || !opNode || !rhs || parts.length < 3)
      throw new PromQueryError('parse', 'bad binary expression');
    const op = ARITH[opNode.name];
    if (!op) {
      throw new PromQueryError(
        'unsupported',
        `unsupported binary operator "${this.text(opNode)}"; supported: + - * / with a scalar operand`,
      );
    }
    if (parts.length !== 3) {
      throw new PromQueryError(
        'unsupported',
        'unsupported binary modifier (bool, on, ignoring, group_left/right)',
      );
    }
    return { type: 'binary', op, lhs: this.expr(lhs), rhs: this.expr(rhs) };
  }
}
