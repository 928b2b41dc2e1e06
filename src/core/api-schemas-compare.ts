/** GET /api/compare/{a}/{b}: two providers head to head. */
import { z } from 'zod';
import { simulatedSchema } from './api-schemas-common.ts';

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
  winner: z.enum(['a', 'b', 'tie']),
  delta: z.number().nullable(),
  comparable: z
    .boolean()
    .describe('False when the data cannot support a verdict: then winner is "tie" and delta null.'),
  reason: z
    .string()
    .nullable()
    .describe(
      'Why the row is not comparable: no-data:<slug>, unresponsive:<slug>, different-kinds, or no-shared-pairs (never measured on the same cell and cycle in the window: each value is its own ranking row).',
    ),
  pageUrl: z.url(),
  asOf: z.iso.datetime().nullable(),
});

export const compareSchema = z
  .object({
    a: z.object({ slug: z.string(), name: z.string() }),
    b: z.object({ slug: z.string(), name: z.string() }),
    totalWins: z
      .object({ a: z.int(), b: z.int(), tie: z.int() })
      .describe('Sums to the length of shared; rows that are not comparable count as ties.'),
    notComparable: z.int().min(0).describe('Rows of shared that are not comparable.'),
    shared: z.array(compareRowSchema),
    comparePageUrl: z.url(),
    license: z.literal('CC-BY-4.0'),
    simulated: simulatedSchema,
  })
  .meta({ id: 'Compare' });

export type Compare = z.infer<typeof compareSchema>;
export type CompareRow = z.infer<typeof compareRowSchema>;
