import { STORED_METRIC_NAMES } from '../../core/metric-names.ts';
import type { Labels } from '../../core/samples.ts';
import type { PrometheusHttp } from '../../store/prometheus-http.ts';
import { PromQueryError } from './errors.ts';
import { guardExpr } from './guard.ts';
import { withInstantLookback } from './instant-lookback.ts';
import { parsePromQL } from './parse.ts';
import { type PromPoint, type PromQueryEngine, type PromResult, promValue } from './result.ts';
import { DEFAULT_LOOKBACK_MS } from './store-engine.ts';

/** query_prom's deadline on an engine, as the embedded evaluator's (store-engine.ts). */
export const QUERY_PROM_DEADLINE_MS = 2_000;

export interface PassthroughOptions {
  readonly deadlineMs?: number;
  readonly maxPoints?: number;
  readonly maxRangeMs?: number;
  readonly allowedMetrics?: readonly string[];
  /**
   * Instant-selector lookback, as the embedded evaluator uses (7 h): written into the query as
   * last_over_time (instant-lookback.ts), never sent as `lookback_delta`, which Prometheus 2.42
   * and VictoriaMetrics ignore.
   */
  readonly lookbackMs?: number;
}

type Raw = [number, string];

function toPoint([t, v]: Raw): PromPoint {
  return [t, promValue(Number(v))];
}

/**
 * query_prom on a Prometheus-compatible store: the query passes the same guard as the embedded
 * evaluator (published metrics only, no label enumeration, window and point caps), then goes to
 * the engine itself, with the deadline as the engine's own `timeout`.
 */
export function createPassthroughQueryEngine(
  http: PrometheusHttp,
  baseUrl: string,
  opts: PassthroughOptions = {},
): PromQueryEngine {
  const guard = {
    allowedMetrics: opts.allowedMetrics ?? STORED_METRIC_NAMES,
    maxRangeMs: opts.maxRangeMs ?? 7 * 86_400_000,
  };
  const timeout = `${(opts.deadlineMs ?? QUERY_PROM_DEADLINE_MS) / 1000}s`;
  const lookbackMs = opts.lookbackMs ?? DEFAULT_LOOKBACK_MS;
  const maxPoints = opts.maxPoints ?? 11_000;

  async function call(path: string, params: Record<string, string>): Promise<PromResult> {
    const body = (await http.api(path, baseUrl, { ...params, timeout })) as {
      status?: string;
      error?: string;
      data?: { resultType: string; result: unknown };
    };
    if (body.status !== 'success' || !body.data) {
      throw new PromQueryError('refused', `the engine refused the query: ${body.error ?? 'no data'}`);
    }
    const { resultType, result } = body.data;
    if (resultType === 'scalar') return { resultType, result: toPoint(result as Raw) };
    if (resultType === 'vector') {
      const rows = result as { metric: Labels; value: Raw }[];
      return { resultType, result: rows.map((r) => ({ metric: r.metric, value: toPoint(r.value) })) };
    }
    const rows = result as { metric: Labels; values: Raw[] }[];
    if (rows.reduce((n, r) => n + r.values.length, 0) > maxPoints) {
      throw new PromQueryError('refused', `the result exceeds ${maxPoints} points`);
    }
    return {
      resultType: 'matrix',
      result: rows.map((r) => ({ metric: r.metric, values: r.values.map(toPoint) })),
    };
  }

  return {
    instant(query, atMs) {
      guardExpr(parsePromQL(query), guard);
      return call('/api/v1/query', {
        query: withInstantLookback(query, lookbackMs),
        time: String(atMs / 1000),
      });
    },
    range(query, startMs, endMs, stepMs) {
      guardExpr(parsePromQL(query), guard);
      if ((endMs - startMs) / stepMs + 1 > maxPoints) {
        return Promise.reject(new PromQueryError('refused', `more than ${maxPoints} steps`));
      }
      return call('/api/v1/query_range', {
        query: withInstantLookback(query, lookbackMs),
        start: String(startMs / 1000),
        end: String(endMs / 1000),
        step: String(stepMs / 1000),
      });
    },
  };
}
