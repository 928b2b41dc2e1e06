import type { SyntaxNode } from '@lezer/common';
import { parser } from '@prometheus-io/lezer-promql';

/** Nodes whose selectors are read over a range, not at one instant: left as written. */
const RANGE_CONTEXTS: ReadonlySet<string> = new Set(['MatrixSelector', 'SubqueryExpr']);

/** `7h`, `90m`, `45s` or `1500ms`: the largest unit that divides the lookback exactly. */
export function durationLiteral(ms: number): string {
  if (!Number.isInteger(ms) || ms <= 0) throw new Error(`lookback must be a positive whole ms (got ${ms})`);
  for (const [unit, size] of [
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ] as const) {
    if (ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}

function inRange(n: SyntaxNode): boolean {
  for (let p = n.parent; p; p = p.parent) if (RANGE_CONTEXTS.has(p.name)) return true;
  return false;
}

/**
 * The query with each instant selector `x{…}` read as `last_over_time(x{…}[lookback])`, so an
 * engine returns each series' newest sample within the lookback, as the embedded evaluator does
 * (evaluate.ts). Engines differ on the lookback they apply to instant selectors: Prometheus 2.42
 * ignores the `lookback_delta` parameter (added in 2.43, prometheus/prometheus#12088) and keeps its
 * 5 minutes, VictoriaMetrics ignores it too; a function in the query itself means the same on all.
 * last_over_time keeps `__name__` on Prometheus 2.42 and 3.x (hence Mimir) and VictoriaMetrics
 * (checked against the engines in test/e2e/promql-engines.test.ts), so no label_replace is needed.
 *
 * The rewrite splices text at the parser's positions: the selector's own characters (escapes,
 * quotes, UTF-8 metric names) reach the engine exactly as the caller wrote them, never re-quoted.
 * Selectors in range vectors (`x[5m]`, subqueries) are left as they are. Call it on a query the
 * guard accepted: positions come from a clean parse.
 */
export function withInstantLookback(query: string, lookbackMs: number): string {
  const window = `[${durationLiteral(lookbackMs)}]`;
  const spans: { from: number; to: number }[] = [];
  parser.parse(query).iterate({
    enter: (n) => {
      if (n.name !== 'VectorSelector') return true;
      if (!inRange(n.node)) spans.push({ from: n.from, to: n.to });
      // A selector holds no other selector.
      return false;
    },
  });
  let out = query;
  // Right to left, so the positions still to splice are unchanged by the ones spliced.
  for (const { from, to } of spans.sort((a, b) => b.from - a.from)) {
    out = `${out.slice(0, from)}last_over_time(${out.slice(from, to)}${window})${out.slice(to)}`;
  }
  return out;
}
