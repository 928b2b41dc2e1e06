/** GET /api/stat/{slug}: the full benchmark record and its ranking rows. */
import { z } from 'zod';
import {
  citeSchema,
  degradedSchema,
  dimensionValueSchema,
  filtersSchema,
  intervalSchema,
  leaderSchema,
  missingSlotsSchema,
  significanceSchema,
  simulatedSchema,
} from './api-schemas-common.ts';

export const ci95Schema = z
  .object({ p50: intervalSchema, p90: intervalSchema, p99: intervalSchema })
  .meta({ id: 'Ci95' });

export const rankingRowSchema = z
  .object({
    rank: z
      .int()
      .nullable()
      .describe('1-based rank; null for unresponsive rows, listed after the ranked ones.'),
    name: z.string(),
    slug: z.string(),
    kind: z.string().optional(),
    ms: z
      .object({ p50: z.number(), p90: z.number(), p99: z.number(), mean: z.number() })
      .describe('Statistics in the benchmark unit (the name is historical: the unit need not be ms).'),
    ci95: ci95Schema
      .nullable()
      .optional()
      .describe(
        'Window benchmarks: a distribution-free interval for each of p50, p90 and p99, of at least 95% coverage if samples were independent (the cells of a slot share the state of the provider, so under a per-slot effect it covers less), from order statistics of the samples behind the row (each [lo, hi] in the benchmark unit, or null below 6, 36 and 368 samples). Null for a count read from a listing (no sampling error). Absent from snapshots frozen before intervals were published.',
      ),
    successRate: z.number().min(0).max(100),
    sampleSize: z.int().min(0),
    unresponsive: z.boolean(),
    noComparison: z
      .boolean()
      .describe(
        'True when no other provider was measured on any cell and cycle behind this row (e.g. the only provider on a chain): shown, never ranked, with no score. Its sampleSize is 0 (no sample was compared); its ms are over its own samples only because they must be numbers, and compare it with no one.',
      ),
    insufficientData: z
      .boolean()
      .optional()
      .describe(
        "Window benchmarks: true when sampleSize is below the benchmark's minSamples: shown, never ranked, never the leader.",
      ),
    unionCapture: z
      .object({ p50: z.number(), mean: z.number() })
      .nullable()
      .optional()
      .describe(
        "Trade-capture benchmarks: capture against the union of every provider's distinct transactions on the same cells and cycles, percent.",
      ),
    recall: z
      .object({ p50: z.number(), mean: z.number() })
      .nullable()
      .optional()
      .describe(
        "Trade-capture benchmarks: recall against the chain's own Swap logs (|P ∩ T_fin| / (|T_fin| + phantoms) × 100, verified phantoms counted as misses) on the (cell, cycle) pairs behind the row that had ground truth, percent; null when none had.",
      ),
    precision: z
      .object({ p50: z.number(), mean: z.number() })
      .nullable()
      .optional()
      .describe(
        'Trade-capture benchmarks: precision against the chain, |P ∩ T| / (|P ∩ T| + phantoms) × 100, on the (cell, cycle) pairs behind the row where the provider answered and phantoms were checked, percent; null when none were. Unmatched hashes that are not verified phantoms (trades of DEXes we do not list, rows from outside the window) do not lower it.',
      ),
    lastSampleAt: z.iso.datetime(),
    partialCoverage: z
      .array(z.string())
      .optional()
      .describe(
        "Window benchmarks: the view's comparable cells (label=value pairs, region last) this provider was not measured on while others were. Rankings pool each row's own cells, so such a row's statistic is over other cells than the rest; its tests against the leader and in compare use only the pairs both were measured on (vsLeader.delta). Absent when the row covers every cell.",
      ),
    lessReliableThan: z
      .array(z.string())
      .optional()
      .describe(
        "Window benchmarks: the providers (slugs) whose failure share on the probes both were sent is lower than this row's by more than the benchmark's reliabilityMargin, with the paired sign test on (region, cycle) failure shares at p < 0.05. Rows are ranked by how many such providers they have (fewest first), then by the ranked statistic: failing cannot buy a rank. Absent when there is none.",
      ),
    vsLeader: significanceSchema
      .optional()
      .describe(
        "Ranked rows below the leader (window benchmarks): the test of this row against the leader, on the view's samples. Absent on the leader and unranked rows.",
      ),
    tiedWithLeader: z
      .boolean()
      .optional()
      .describe(
        "Ranked rows below the leader (window benchmarks): true when the data do not put the leader ahead: the sign test's p is not below 0.05, the ranked statistics over shared pairs (vsLeader.delta) differ by no more than the benchmark's tieMargin, or the evidence conflicts (most paired values favour this row, which is named as conflicting, never a statistical tie). False for a row ranked below a leader more reliable than it (lessReliableThan).",
      ),
    audit: z
      .url()
      .describe(
        "The raw measurements behind this row (GET /api/audit/{slug}/{provider}); window benchmarks link ?window=24h with the view's filters, from which the row can be recomputed.",
      ),
  })
  .meta({ id: 'Ranking' });

export const statGroundTruthSchema = z
  .object({
    status: z
      .enum(['ok', 'partial', 'unavailable'])
      .describe('ok: every cell and cycle of the view had ground truth; partial: some; unavailable: none.'),
    reason: z
      .enum(['no-reference-node', 'before-history', 'node-error', 'limit', 'not-recorded'])
      .nullable()
      .describe('The most frequent reason among the cells without truth; null when ok.'),
  })
  .meta({ id: 'StatGroundTruth' });

export type StatGroundTruth = z.infer<typeof statGroundTruthSchema>;

export const chainBestsSchema = z
  .record(z.string(), z.object({ slug: z.string(), name: z.string(), value: z.number() }))
  .meta({ id: 'ChainBests' });

export const statSchema = z
  .object({
    slug: z.string(),
    number: z.string(),
    title: z.string(),
    subtitle: z.string(),
    category: z.string(),
    metric: z.string(),
    unit: z.string(),
    status: z
      .enum(['live', 'stale', 'draft'])
      .describe('draft: never measured; stale: no sample for twice the cadence; live otherwise.'),
    higherIsBetter: z.boolean(),
    filters: filtersSchema.nullable(),
    value: z.number().nullable(),
    leader: leaderSchema.nullable(),
    rankings: z.array(rankingRowSchema),
    sparkline: z
      .array(z.number())
      .describe(
        "The leader's 24 h series (GET /api/series, range 24h): 73 points, the last equal to value; a point without a value carries the previous one (listed in sparklineGaps).",
      ),
    sparklineStartMs: z.int().optional().describe('Time of sparkline[0], epoch ms.'),
    sparklineStepMs: z.int().optional().describe('Spacing of the sparkline points, ms (20 minutes).'),
    sparklineGaps: z
      .array(z.int().min(0))
      .optional()
      .describe('Indices of sparkline points carried forward (the Stat had no value there).'),
    bestPerChain: chainBestsSchema
      .optional()
      .describe(
        'Benchmarks with a chain dimension: per chain that at least two ranked providers measured, the leader of ?chain=<chain>.',
      ),
    worstPerChain: chainBestsSchema
      .optional()
      .describe('As bestPerChain, the last ranked provider of ?chain=<chain>.'),
    sampleSize: z.int().min(0),
    groundTruth: statGroundTruthSchema
      .optional()
      .describe(
        "Trade-capture benchmarks: whether the view's cells had an independent ground truth (the chain's own Swap logs) in the window.",
      ),
    asOf: z.iso.datetime().nullable(),
    evaluatedAt: z.iso
      .datetime()
      .describe(
        'The evaluation time of this view: its window is the `window` before it, samples after its start and at or before this time. Recomputing from the dataset uses exactly those samples.',
      ),
    headline: z.string(),
    quote: z.string(),
    cite: citeSchema,
    pageUrl: z.url(),
    api: z.url(),
    ogImage: z.url(),
    sparklineSvg: z.url(),
    source: z
      .url()
      .describe(
        "The public source of the harness that measured it: the site's SOURCE_URL, `{family}` replaced by the benchmark's family.",
      ),
    methodology: z
      .array(z.string())
      .describe(
        'Ordered statements on how the benchmark is measured; a frozen day with missing slots ends with a statement naming them (see missingSlots).',
      ),
    missingSlots: missingSlotsSchema.describe(
      "Frozen days only: this benchmark's slots of the day that no harness cycle ran (as in the day's index site.missingSlots). Absent when none is missing, and on live Stats.",
    ),
    license: z.literal('CC-BY-4.0'),
    window: z.string(),
    dimensions: z.record(z.string(), z.array(dimensionValueSchema)),
    simulated: simulatedSchema,
    degraded: degradedSchema,
  })
  .meta({ id: 'Stat' });

export type RankingRow = z.infer<typeof rankingRowSchema>;
export type Stat = z.infer<typeof statSchema>;
export type ChainBests = z.infer<typeof chainBestsSchema>;
