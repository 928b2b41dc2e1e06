/** The site-wide views: the citable index, freshness and the featured cards. */
import { z } from 'zod';
import { degradedSchema, leaderSchema, missingSlotsSchema, simulatedSchema } from './api-schemas-common.ts';

export const citableRowSchema = z
  .object({
    slug: z.string(),
    number: z.string(),
    title: z.string(),
    category: z.string(),
    metric: z.string(),
    unit: z.string(),
    status: z.enum(['live', 'stale', 'draft']),
    value: z.number().nullable(),
    leader: leaderSchema.nullable(),
    sampleSize: z.int().min(0),
    headline: z.string(),
    url: z.url(),
    api: z.url(),
    ogImage: z.url(),
    asOf: z.iso.datetime().nullable(),
    source: z
      .url()
      .describe(
        "The public source of the harness that measured it: the site's SOURCE_URL, `{family}` replaced by the benchmark's family.",
      ),
    license: z.literal('CC-BY-4.0'),
  })
  .meta({ id: 'CitableRow' });

const buildFields = {
  version: z.string().describe('package.json version.'),
  revision: z.string().optional().describe('Git commit, when the build knew it.'),
};

/** Who computed a view and who measured its samples (issue 25); the same object as a day's dataset manifest. */
export const provenanceSchema = z
  .object({
    ...buildFields,
    specs: z
      .record(z.string(), z.string().regex(/^[0-9a-f]{64}$/))
      .describe('sha256 of the canonical JSON of each parsed spec (defaults applied) the view used.'),
    measuredBy: z
      .array(
        z.object({
          ...buildFields,
          region: z.string().optional().describe('HARNESS_REGION of the harness, when set.'),
          cycles: z.int().min(1).describe('harness_build_info samples: one per benchmark a cycle served.'),
        }),
      )
      .describe(
        "Distinct harness builds in the window's harness_build_info samples (the UTC day when frozen, the last 24 h live), sorted by (version, revision, region).",
      ),
  })
  .meta({ id: 'Provenance' });

export const citableIndexSchema = z
  .object({
    site: z.object({
      name: z.string(),
      url: z.url(),
      license: z.literal('CC-BY-4.0'),
      snapshotDate: z.iso
        .date()
        .nullable()
        .describe('The UTC day of a frozen snapshot; null for the live index.'),
      simulated: simulatedSchema,
      degraded: degradedSchema,
      provenance: provenanceSchema
        .optional()
        .describe('Absent from days frozen before provenance was published (they stay byte-identical).'),
      missingSlots: missingSlotsSchema,
    }),
    count: z.int().min(0),
    benchmarks: z.array(citableRowSchema),
  })
  .meta({ id: 'CitableIndex' });

export const freshnessSchema = z
  .object({
    now: z.int(),
    freshness: z
      .record(z.string(), z.int())
      .describe('Newest sample time (epoch ms) of every benchmark that has data, stale ones included.'),
    status: z.record(
      z.string(),
      z.object({
        lastSampleAt: z.iso.datetime().nullable(),
        ageSeconds: z.int().nullable(),
        stale: z.boolean().describe('True once the age passes twice the cadence.'),
        draft: z.boolean().describe('True when the benchmark has never been measured.'),
      }),
    ),
  })
  .meta({ id: 'Freshness' });

export const featuredCardSchema = z.object({
  slug: z.string(),
  title: z.string(),
  category: z.string(),
  metric: z.string(),
  unit: z.string(),
  value: z.number().nullable(),
  leader: z.object({ name: z.string(), slug: z.string() }).nullable(),
  url: z.url(),
  asOf: z.iso.datetime().nullable(),
  change24h: z
    .object({
      from: z.number(),
      to: z.number(),
      pct: z.number().nullable().describe('Relative change in percent; null when the old value is 0.'),
    })
    .nullable(),
});

export const featuredSchema = z
  .object({
    featured: z.array(featuredCardSchema).describe('Live benchmarks with their current leaders.'),
    trending: z
      .array(featuredCardSchema)
      .describe('Live benchmarks whose leader value moved most over 24 h.'),
    simulated: simulatedSchema,
  })
  .meta({ id: 'Featured' });

export type CitableRow = z.infer<typeof citableRowSchema>;
export type CitableIndex = z.infer<typeof citableIndexSchema>;
export type ProvenanceJson = z.infer<typeof provenanceSchema>;
export type Freshness = z.infer<typeof freshnessSchema>;
export type FeaturedCard = z.infer<typeof featuredCardSchema>;
export type Featured = z.infer<typeof featuredSchema>;
