/** Shapes every answer shares: errors, filters, leaders, citations and the simulated/degraded marks. */
import { z } from 'zod';

export const errorSchema = z
  .object({
    error: z.string().regex(/^[a-z][a-z0-9_]*$/),
    message: z.string(),
  })
  .meta({ id: 'Error' });

export const filtersSchema = z
  .object({
    chain: z.string().optional(),
    region: z.string().optional(),
    kind: z.string().optional(),
    venue: z.string().optional(),
  })
  .meta({ id: 'Filters' });

export const leaderSchema = z
  .object({ name: z.string(), slug: z.string(), value: z.number() })
  .meta({ id: 'Leader' });

export const citeSchema = z
  .object({ plain: z.string(), bibtex: z.string(), apa: z.string(), ris: z.string() })
  .meta({ id: 'Cite' });

/** Present (and true) only on data from simulated providers: the demo or `--simulate`. */
export const simulatedSchema = z
  .literal(true)
  .optional()
  .describe(
    'True when the numbers come from simulated providers (the demo or --simulate), not from measurements of the real APIs; absent otherwise.',
  );

/** Present (and true) only while the sample store cannot be read and the last computed view is served. */
export const degradedSchema = z
  .literal(true)
  .optional()
  .describe(
    'True while the sample store cannot be read: this is the last view computed before it went down (distinct from stale, which means old data); absent otherwise.',
  );

/**
 * Slots of a frozen day that no harness cycle ran (issue 26): the service was down, or the
 * scheduler skipped a slot it reached late. Present on frozen days only, and only when there are
 * some: a day without is published exactly as before.
 */
export const missingSlotsSchema = z
  .array(
    z
      .object({
        benchmark: z.string(),
        region: z
          .string()
          .nullable()
          .describe('HARNESS_REGION of the harness that owned the slot; null when unset.'),
        slot: z.iso.datetime().describe('The aligned slot time the cycle was due at.'),
      })
      .meta({ id: 'MissingSlot' }),
  )
  .min(1)
  .optional()
  .describe(
    "Frozen days only: the slots expected that day that no harness cycle ran (the service was down, or the slot was skipped, late), sorted by slot, benchmark, region. Expected: a backfill plan's slots (the demo), and from each (benchmark, region)'s first cycle marker on, every aligned slot of its cadence. Absent when none is missing.",
  );

export const dimensionValueSchema = z.object({ value: z.string(), label: z.string() });

export type ApiError = z.infer<typeof errorSchema>;
export type Filters = z.infer<typeof filtersSchema>;
export type Leader = z.infer<typeof leaderSchema>;
export type Cite = z.infer<typeof citeSchema>;
export type MissingSlots = NonNullable<z.infer<typeof missingSlotsSchema>>;

/**
 * A 95% interval [lo, hi] of a quantile from order statistics (src/core/uncertainty.ts): one
 * component, a tuple for TypeScript and validation, published as an array of two numbers
 * (src/core/json-schema-tuples.ts), so its description says which end is which.
 */
export const intervalSchema = z
  .tuple([z.number(), z.number()])
  .meta({
    id: 'Interval',
    description:
      'Two numbers [lo, hi] in the unit of the value they bound: the lower end first, the upper end second (lo ≤ hi).',
  })
  .nullable()
  .describe('[lo, hi]: order statistics x(l) and x(u) of the sorted samples; null when too few samples.');

export const significanceSchema = z
  .object({
    test: z
      .literal('sign-test')
      .describe('The exact two-sided sign test on per-cycle median differences (zeros dropped).'),
    pairs: z
      .int()
      .min(0)
      .describe(
        'Non-zero paired values: one per (region, cycle) both providers were measured in, the median over their shared cells of the difference.',
      ),
    pValue: z.number().min(0).max(1).describe('min(1, 2·P(Bin(pairs, ½) ≤ min(k+, k−))); 1 when pairs is 0.'),
    margin: z
      .number()
      .min(0)
      .describe("The benchmark's tieMargin, in its unit: the smallest difference worth a verdict."),
    delta: z
      .number()
      .optional()
      .describe(
        "A ranked row's test against the leader: the leader's ranked statistic minus this row's, both over the (cell, cycle) pairs the two were measured on (compare's pairs); absent when they share none, and in snapshots frozen before it was published.",
      ),
  })
  .meta({ id: 'Significance' });

export type Significance = z.infer<typeof significanceSchema>;
