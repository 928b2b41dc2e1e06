import type { Labels } from '../../core/samples.ts';

/**
 * Results in the shape of the Prometheus HTTP API `data` member, so a Prometheus-backed engine can
 * pass its answer through. Deviation: finite values are JSON numbers (Prometheus sends strings);
 * NaN and ±Inf, which JSON cannot hold, are the strings "NaN", "+Inf", "-Inf".
 */
export type PromValue = number | string;
/** [unix seconds, value]. */
export type PromPoint = [number, PromValue];

export type PromResult =
  | { readonly resultType: 'scalar'; readonly result: PromPoint }
  | { readonly resultType: 'vector'; readonly result: { metric: Labels; value: PromPoint }[] }
  | { readonly resultType: 'matrix'; readonly result: { metric: Labels; values: PromPoint[] }[] };

/** What query_prom needs; the embedded store engine and a future Prometheus client both fit. */
export interface PromQueryEngine {
  instant(query: string, atMs: number): Promise<PromResult>;
  /** Evaluates at startMs, startMs + stepMs, … ≤ endMs. */
  range(query: string, startMs: number, endMs: number, stepMs: number): Promise<PromResult>;
}

export function promValue(v: number): PromValue {
  if (Number.isFinite(v)) return v;
  if (Number.isNaN(v)) return 'NaN';
  return v > 0 ? '+Inf' : '-Inf';
}

export function point(tMs: number, v: number): PromPoint {
  return [tMs / 1000, promValue(v)];
}
