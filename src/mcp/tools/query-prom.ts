import { z } from 'zod';
import { BusyError } from '../../concurrency/work-limit.ts';
import {
  FAMILIES,
  type FamilyShape,
  HARNESS_BUILD_INFO_METRIC,
  HARNESS_CYCLE_METRIC,
  STORED_METRIC_NAMES,
} from '../../core/family.ts';
import { PromQueryError } from '../promql/errors.ts';
import type { PromResult } from '../promql/result.ts';
import { DEFAULT_LOOKBACK_MS } from '../promql/store-engine.ts';
import { type BuiltTool, buildTool, toolError, toolOk } from '../tool-def.ts';
import type { ToolContext } from './context.ts';

const MAX_WINDOW_SEC = 604_800;

/**
 * What query_prom tells an agent about the samples, from the families' declarations (core/family.ts):
 * every metric with its labels, and examples on the families' headline metrics (each family lists
 * its headline value first). Nothing here names a benchmark or a metric.
 */
function samplesGuide(families: readonly FamilyShape[]) {
  const labels = families.flatMap((f) => f.metrics.map((m) => `${m.name} {${m.labels.join(', ')}}`));
  labels.push(
    `${HARNESS_CYCLE_METRIC} {benchmark}`,
    `${HARNESS_BUILD_INFO_METRIC} {benchmark, version, revision}`,
  );
  const latest = families.find((f) => f.derivation === 'latest')?.metrics[0];
  const window = families.find((f) => f.derivation === 'window')?.metrics[0];
  const cellLabel = window?.labels.find((l) => l !== 'provider');
  const windowSel = window ? `${window.name}${cellLabel ? `{${cellLabel}!=""}` : ''}` : undefined;
  const examples = [
    ...(latest ? [latest.name] : []),
    ...(windowSel ? [`avg by (provider) (avg_over_time(${windowSel}[24h]))`] : []),
  ];
  const first = window ?? latest;
  return {
    labels: `Labels per metric (every sample may also carry region and origin): ${labels.join('; ')}.`,
    examples: examples.length > 0 ? `Examples: ${examples.join('; ')}.` : '',
    inputExample: first ? `, e.g. avg_over_time(${first.name}[6h])` : '',
  };
}

const inputOf = (guide: ReturnType<typeof samplesGuide>) =>
  z.strictObject({
    query: z.string().min(1).max(2000).describe(`PromQL expression${guide.inputExample}.`),
    windowSec: z
      .int()
      .min(1)
      .max(MAX_WINDOW_SEC)
      .optional()
      .describe(
        'Run a range query over the last windowSec seconds (max 604800 = 7 days). Omit for an instant query at now.',
      ),
    steps: z
      .int()
      .min(2)
      .max(360)
      .optional()
      .describe('Evaluation points of a range query (2–360, default 60), evenly spaced and ending now.'),
  });

const pointSchema = z.tuple([z.number(), z.union([z.number(), z.string()])]);
const labelsSchema = z.record(z.string(), z.string());

const output = z.object({
  query: z.string(),
  resultType: z.enum(['scalar', 'vector', 'matrix']),
  result: z
    .union([
      pointSchema,
      z.array(z.object({ metric: labelsSchema, value: pointSchema })),
      z.array(z.object({ metric: labelsSchema, values: z.array(pointSchema) })),
    ])
    .describe(
      'Prometheus API shape; points are [unixSeconds, value], non-finite values as "NaN"/"+Inf"/"-Inf".',
    ),
  time: z.number().describe('Evaluation time (instant) or last step (range), unix seconds.'),
  windowSec: z.int().optional(),
  stepSec: z.int().optional(),
  simulated: z
    .literal(true)
    .optional()
    .describe('Present (and true) when the samples come from simulated providers, not measurements.'),
});

export function queryPromTool(ctx: ToolContext): BuiltTool {
  const guide = samplesGuide([...FAMILIES.values()]);
  return buildTool({
    name: 'query_prom',
    title: 'Query raw benchmark samples with PromQL',
    description: [
      'Runs a read-only PromQL query over the raw samples behind the benchmarks.',
      `Metrics: ${STORED_METRIC_NAMES.join(', ')}.`,
      guide.labels,
      'Supported: selectors with = != =~ !~ matchers, range selectors [30m], avg/min/max/sum/count/last/quantile_over_time, sum/avg/min/max/count with by/without, and + - * / with a number.',
      `An instant selector returns each series' newest sample within ${DEFAULT_LOOKBACK_MS / 3_600_000}h (the harness writes every 30 min to 6 h).`,
      'Omit windowSec for an instant query at now; give windowSec (≤ 604800) and optionally steps (2–360, default 60) for a range query.',
      guide.examples,
    ]
      .filter((line) => line !== '')
      .join(' '),
    input: inputOf(guide),
    output,
    async run({ query, windowSec, steps }) {
      const now = ctx.clock();
      // Last, as in the Stat: a measured answer is byte-for-byte what it was.
      const simulated = ctx.simulated ? { simulated: true as const } : {};
      try {
        if (windowSec === undefined) {
          const r: PromResult = await ctx.engine.instant(query, now);
          return toolOk({
            query,
            resultType: r.resultType,
            result: r.result,
            time: now / 1000,
            ...simulated,
          });
        }
        const n = steps ?? 60;
        const stepSec = Math.max(1, Math.floor(windowSec / n));
        const start = now - (n - 1) * stepSec * 1000;
        const r = await ctx.engine.range(query, start, now, stepSec * 1000);
        return toolOk({
          query,
          resultType: r.resultType,
          result: r.result,
          time: now / 1000,
          windowSec,
          stepSec,
          ...simulated,
        });
      } catch (e) {
        if (e instanceof PromQueryError) return toolError(`query_${e.kind}`, e.message);
        if (e instanceof BusyError) return toolError('query_busy', e.message);
        return toolError(
          'query_failed',
          'the query could not be evaluated; the store may be unavailable, retry later',
        );
      }
    },
  });
}
