/** GET /api/compare/{a}/{b}: two providers head to head. */
import { z } from 'zod';
import { filtersSchema, intervalSchema, significanceSchema, simulatedSchema } from './api-schemas-common.ts';

export const compareRowSchema = z.object({
  slug: z.string(),
  title: z.string(),
  metric: z.string(),
  unit: z.string(),
  higherIsBetter: z.boolean(),
  aValue: z
    .number()
    .nullable()
    .describe(
      "p50 of a's values on the (cell, cycle) pairs both were measured on; without such a pair, a's own ranking row p50.",
    ),
  bValue: z.number().nullable().describe('As aValue, for b.'),
  aCi95: intervalSchema
    .optional()
    .describe(
      "Window benchmarks, when the two share pairs: the interval (at least 95% coverage if samples were independent, from order statistics) of aValue's p50 over those same shared samples; null below 6.",
    ),
  bCi95: intervalSchema.optional().describe('As aCi95, for bValue.'),
  ranked: z
    .object({ statistic: z.enum(['mean']), a: z.number(), b: z.number() })
    .optional()
    .describe(
      "Benchmarks ranked by another statistic than p50 (the spec's rankBy): each side's ranked statistic over the same shared pairs as aValue and bValue; the verdict's difference is a − b of these.",
    ),
  reliability: z
    .object({
      moreReliable: z.enum(['a', 'b']).nullable(),
      failureGap: z.number(),
      pValue: z.number().min(0).max(1),
      pairs: z.int().min(0),
      margin: z.number().min(0),
    })
    .optional()
    .describe(
      "Window benchmarks, when the two share pairs: a's failure share minus b's (percentage points) on the probes both were sent on the same cell and cycle, the sign test on per-(region, cycle) failure-share differences, and the benchmark's reliabilityMargin. moreReliable names the side that fails less by more than the margin at p < 0.05; that side wins whatever the values (reliability ranks before speed), as it ranks above the other.",
    ),
  winner: z
    .enum(['a', 'b', 'tie'])
    .describe(
      'Window benchmarks: the more reliable side (reliability.moreReliable) wins; otherwise a side wins only when the sign test gives p < 0.05, the ranked statistics differ by more than the margin, and most paired values favour it; otherwise a tie (conflicting when the test and the difference point opposite ways).',
    ),
  delta: z
    .number()
    .nullable()
    .describe('aValue − bValue when comparable (kept on a statistical tie); else null.'),
  comparable: z
    .boolean()
    .describe('False when the data cannot support a verdict: then winner is "tie" and delta null.'),
  reason: z
    .string()
    .nullable()
    .describe(
      "Why the row is not comparable: no-data:<slug>, unresponsive:<slug>, different-kinds, no-shared-pairs (never measured on the same cell and cycle in the window: each value is its own ranking row) or insufficient-data (fewer shared samples than the benchmark's minSamples). Why a comparable row is a statistical tie: not-significant (sign test p ≥ 0.05), within-margin (|delta| ≤ margin) or conflicting (significant and beyond the margin, but most paired values favour the side with the worse statistic: the data separate the two in opposite directions, which is not called a tie in words).",
    ),
  significance: significanceSchema
    .optional()
    .describe('Comparable rows of window benchmarks: the sign test behind the verdict.'),
  pageUrl: z.url(),
  asOf: z.iso.datetime().nullable(),
});

export const compareSchema = z
  .object({
    a: z.object({ slug: z.string(), name: z.string() }),
    b: z.object({ slug: z.string(), name: z.string() }),
    totalWins: z
      .object({ a: z.int(), b: z.int(), tie: z.int() })
      .describe(
        'Sums to the length of shared; tie counts every tie: exact, statistical (comparable, with a reason) and not comparable.',
      ),
    notComparable: z.int().min(0).describe('Rows of shared that are not comparable.'),
    shared: z.array(compareRowSchema),
    comparePageUrl: z.url(),
    filters: filtersSchema
      .optional()
      .describe(
        'The filters asked for: each row is its benchmark under them, and only benchmarks declaring every filtered dimension are rows. Absent: unfiltered.',
      ),
    date: z
      .string()
      .optional()
      .describe(
        "The closed UTC day whose frozen Stats these rows compare, each evaluated at the day's last millisecond from that day's samples. Absent: live.",
      ),
    license: z.literal('CC-BY-4.0'),
    simulated: simulatedSchema,
  })
  .meta({ id: 'Compare' });

export type Compare = z.infer<typeof compareSchema>;
export type CompareRow = z.infer<typeof compareRowSchema>;
