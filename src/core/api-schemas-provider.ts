/** GET /api/providers and /api/providers/{slug}: the catalogue, and one provider across benchmarks. */
import { z } from 'zod';
import { degradedSchema, intervalSchema, simulatedSchema } from './api-schemas-common.ts';

export const providerListingSchema = z
  .object({
    providers: z.array(
      z.object({
        slug: z.string(),
        name: z.string(),
        website: z.url(),
        benchmarks: z.int().min(0).describe('How many benchmarks list this provider.'),
        page: z.url().describe('The HTML profile, /providers/{slug}.'),
        api: z.url().describe('The JSON profile, /api/providers/{slug}.'),
      }),
    ),
    simulated: simulatedSchema,
  })
  .meta({ id: 'ProviderListing' });

export const UNRANKED_REASONS = ['noComparison', 'unresponsive', 'insufficientData', 'noData'] as const;

export const profileBenchmarkSchema = z.object({
  slug: z.string(),
  title: z.string(),
  unit: z.string(),
  higherIsBetter: z.boolean(),
  rank: z
    .int()
    .min(1)
    .nullable()
    .describe("1-based rank in the benchmark's unfiltered Stat; null when unranked."),
  unranked: z
    .enum(UNRANKED_REASONS)
    .nullable()
    .describe(
      'Why there is no rank: unresponsive (checked first), noComparison, insufficientData (fewer samples than minSamples), or noData (no row in the Stat); null when ranked.',
    ),
  value: z.number().nullable().describe("The row's p50 in the benchmark unit; null without a row."),
  ci95: intervalSchema.describe("The p50's interval (ci95.p50 of the Stat row); null for a listing count."),
  tiedWithLeader: z
    .boolean()
    .describe("True when the Stat row is statistically tied with the leader (the leader's own row: false)."),
  tiedAtTop: z
    .array(z.string())
    .describe(
      "On the leader's entry: the providers statistically tied with it (their rows' tiedWithLeader), so a lead the data cannot support is never shown alone; empty otherwise.",
    ),
  successRate: z.number().min(0).max(100).nullable(),
  sampleSize: z.int().min(0),
  weekAgo: z
    .object({
      date: z.iso.date(),
      value: z.number(),
      rank: z.int().min(1).nullable(),
    })
    .nullable()
    .describe(
      "The provider's row in the Stat frozen for the day 7 days before the profile's date (the bytes of /api/stat/{slug}?date=), never recomputed; null when that day has no snapshot or no row for the provider.",
    ),
  change: z
    .number()
    .nullable()
    .describe('value − weekAgo.value (six significant digits); null without both.'),
  links: z.object({
    page: z.url(),
    api: z.url(),
    audit: z.url().describe('The raw measurements behind the row.'),
    compare: z
      .url()
      .nullable()
      .describe('Head to head with the leader; null when the provider leads or no one does.'),
  }),
});

export const providerProfileSchema = z
  .object({
    provider: z.object({ slug: z.string(), name: z.string(), website: z.url() }),
    asOf: z.iso
      .datetime()
      .nullable()
      .describe("The newest asOf of the benchmarks' Stats; null when none has a measurement."),
    benchmarks: z.array(profileBenchmarkSchema).describe('One entry per benchmark listing the provider.'),
    license: z.literal('CC-BY-4.0'),
    simulated: simulatedSchema,
    degraded: degradedSchema,
  })
  .meta({ id: 'ProviderProfile' });

export type ProviderListing = z.infer<typeof providerListingSchema>;
export type ProfileBenchmark = z.infer<typeof profileBenchmarkSchema>;
export type ProviderProfile = z.infer<typeof providerProfileSchema>;
export type UnrankedReason = (typeof UNRANKED_REASONS)[number];
