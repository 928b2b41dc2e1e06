/** The data downloads: series, the daily dataset index and CSL-JSON citations. */
import { z } from 'zod';
import { filtersSchema, missingSlotsSchema, simulatedSchema } from './api-schemas-common.ts';
import { provenanceSchema } from './api-schemas-index.ts';

export const seriesSchema = z
  .object({
    slug: z.string(),
    title: z.string(),
    metric: z.string(),
    unit: z.string(),
    higherIsBetter: z.boolean(),
    range: z.enum(['24h', '7d', '30d', '90d']),
    filters: filtersSchema.nullable(),
    stepMs: z.int().describe('Grid spacing: 24h 20 min, 7d 2 h, 30d 6 h, 90d 1 day.'),
    timestamps: z
      .array(z.int())
      .describe('Ascending grid, epoch ms, over the whole range; the last is the evaluation time.'),
    providers: z.array(
      z.object({
        slug: z.string(),
        name: z.string(),
        color: z.string().describe('Stable chart color of the provider (hex).'),
        values: z
          .array(z.number().nullable())
          .describe(
            'Index-aligned with timestamps: the value the Stat would have published at that instant with the same filters; null where it had none, and (window benchmarks) where the provider had no comparable (cell, cycle) pair in that window.',
          ),
      }),
    ),
    simulated: z.boolean().describe('True when the samples come from simulated providers.'),
  })
  .meta({ id: 'Series' });

export type Series = z.infer<typeof seriesSchema>;

export const datasetIndexSchema = z
  .object({
    days: z.array(
      z.object({
        date: z.iso.date(),
        rows: z.int().min(0),
        frozen: z.boolean().describe('True for a closed day: its files are byte-identical forever.'),
        parquet: z.url(),
        csv: z.url(),
        sha256: z.string().describe('SHA-256 (hex) of the Parquet file.'),
        csvSha256: z.string().describe('SHA-256 (hex) of the CSV file.'),
        manifest: z
          .url()
          .optional()
          .describe(
            "A closed day's manifest (GET /api/dataset/{date}.json); today has none until it is frozen.",
          ),
        missingSlots: missingSlotsSchema,
      }),
    ),
    simulated: simulatedSchema,
  })
  .meta({ id: 'DatasetIndex' });

export type DatasetIndex = z.infer<typeof datasetIndexSchema>;

const datasetFileSchema = z.object({
  url: z.url(),
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .describe('SHA-256 (hex) of the frozen bytes.'),
});

/** The licences of the dataset (its data) and of the code that measured and published it. */
export const DATASET_LICENSE = { data: 'CC-BY-4.0', code: 'MIT' } as const;

export const datasetManifestSchema = z
  .object({
    date: z.iso.date(),
    rows: z.int().min(0),
    files: z.object({ parquet: datasetFileSchema, csv: datasetFileSchema }),
    license: z.object({ data: z.literal(DATASET_LICENSE.data), code: z.literal(DATASET_LICENSE.code) }),
    provenance: provenanceSchema
      .nullable()
      .describe(
        "The day's site.provenance (/api/citable/{date}); null for days frozen before provenance was published.",
      ),
    missingSlots: missingSlotsSchema,
    simulated: simulatedSchema,
  })
  .meta({ id: 'DatasetManifest' });

export type DatasetManifest = z.infer<typeof datasetManifestSchema>;

const dateParts = (what: string) =>
  z
    .object({ 'date-parts': z.array(z.array(z.int()).min(1).max(3)).length(1) })
    .describe(`${what}: CSL date-parts, [[year]] or [[year, month, day]].`);

/**
 * One CSL-JSON item as src/core/citations.ts writes it: a `dataset` by the site, accessed that day;
 * a frozen day's is issued that day and has no access date (its content cannot change).
 */
export const cslItemSchema = z
  .object({
    id: z.string().describe('The BibTeX key of the same citation.'),
    type: z.literal('dataset'),
    title: z.string(),
    author: z
      .array(z.object({ literal: z.string() }))
      .describe('The site as one institutional (literal) author, never split into given and family.'),
    publisher: z.string(),
    issued: dateParts("Year of retrieval; a frozen day's citation: that day"),
    accessed: dateParts('Day of retrieval (live citations only)').optional(),
    URL: z.url(),
    note: z.string().describe('"Retrieved YYYY-MM-DD".'),
  })
  .meta({ id: 'CslItem' });

/** GET /api/cite/{slug}/csl: CSL-JSON, an array with one item (Zotero, Mendeley and CSL processors import it). */
export const cslJsonSchema = z.array(cslItemSchema).length(1).meta({ id: 'CslJson' });

export type CslJson = z.infer<typeof cslJsonSchema>;
