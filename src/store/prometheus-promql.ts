import { z } from 'zod';
import { escapeRegex, type Labels, type Matcher } from '../core/samples.ts';

/** The Prometheus HTTP API's answers this store reads, and the PromQL it writes. */

const num = z.union([z.number(), z.string()]);
const point = z.tuple([z.number(), num]);
const labelsSchema = z.record(z.string(), z.string());
export const matrixAnswer = z.object({
  status: z.literal('success'),
  data: z.object({
    resultType: z.literal('matrix'),
    result: z.array(z.object({ metric: labelsSchema, values: z.array(point) })),
  }),
});
export const vectorAnswer = z.object({
  status: z.literal('success'),
  data: z.object({
    resultType: z.literal('vector'),
    result: z.array(z.object({ metric: labelsSchema, value: point })),
  }),
});
export const seriesAnswer = z.object({ status: z.literal('success'), data: z.array(labelsSchema) });

export function parseValue(v: number | string): number {
  if (typeof v === 'number') return v;
  if (v === '+Inf' || v === 'Inf') return Number.POSITIVE_INFINITY;
  if (v === '-Inf') return Number.NEGATIVE_INFINITY;
  return Number(v);
}

/** The API speaks seconds with millisecond decimals. */
export const seconds = (ms: number): string => (ms / 1000).toFixed(3);
export const toMs = (s: number): number => Math.round(s * 1000);

export const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
export const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

/** JSON string escaping is a subset of PromQL's (Go-style) string literal escapes. */
const quote = (s: string): string => JSON.stringify(s);

export function selector(metric: string, matchers: readonly Matcher[] = []): string {
  if (!METRIC_NAME.test(metric)) throw new TypeError(`bad metric name "${metric}"`);
  const parts = [`__name__=${quote(metric)}`];
  for (const m of matchers) {
    if (!LABEL_NAME.test(m.name) || m.name === '__name__') throw new TypeError(`bad label name "${m.name}"`);
    parts.push(`${m.name}${m.op}${quote(m.value)}`);
  }
  return `{${parts.join(',')}}`;
}

export function metricsSelector(metrics: readonly string[]): string {
  for (const m of metrics) if (!METRIC_NAME.test(m)) throw new TypeError(`bad metric name "${m}"`);
  return `{__name__=~${quote(metrics.map(escapeRegex).join('|'))}}`;
}

export function withoutName(metric: Record<string, string>): Labels {
  const { __name__: _, ...rest } = metric;
  return rest;
}
