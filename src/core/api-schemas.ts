/**
 * Response shapes. The same zod schemas type the builders and generate /api/openapi.json, so the
 * document cannot drift from what is served.
 */
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
    successRate: z.number().min(0).max(100),
    sampleSize: z.int().min(0),
    unresponsive: z.boolean(),
    noComparison: z
      .boolean()
      .describe(
        'True when no other provider was measured on any cell and cycle behind this row (e.g. the only provider on a chain): shown, never ranked.',
      ),
    unionCapture: z
      .object({ p50: z.number(), mean: z.number() })
      .nullable()
      .optional()
      .describe(
        "token-trade-coverage: capture against the union of every provider's distinct transactions on the same cells and cycles, percent.",
      ),
    lastSampleAt: z.iso.datetime(),
    audit: z
      .url()
      .describe(
        "The raw measurements behind this row (GET /api/audit/{slug}/{provider}); window benchmarks link ?window=24h with the view's filters, from which the row can be recomputed.",
      ),
  })
  .meta({ id: 'Ranking' });

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

export const dimensionValueSchema = z.object({ value: z.string(), label: z.string() });

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
    asOf: z.iso.datetime().nullable(),
    headline: z.string(),
    quote: z.string(),
    cite: citeSchema,
    pageUrl: z.url(),
    api: z.url(),
    ogImage: z.url(),
    sparklineSvg: z.url(),
    source: z.url(),
    methodology: z.array(z.string()),
    license: z.literal('CC-BY-4.0'),
    window: z.string(),
    dimensions: z.record(z.string(), z.array(dimensionValueSchema)),
    simulated: simulatedSchema,
    degraded: degradedSchema,
  })
  .meta({ id: 'Stat' });

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
    source: z.url(),
    license: z.literal('CC-BY-4.0'),
  })
  .meta({ id: 'CitableRow' });

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
    }),
    count: z.int().min(0),
    benchmarks: z.array(citableRowSchema),
  })
  .meta({ id: 'CitableIndex' });

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
  })
  .meta({ id: 'Featured' });

export type ApiError = z.infer<typeof errorSchema>;
export type Filters = z.infer<typeof filtersSchema>;
export type Leader = z.infer<typeof leaderSchema>;
export type RankingRow = z.infer<typeof rankingRowSchema>;
export type Cite = z.infer<typeof citeSchema>;
export type Stat = z.infer<typeof statSchema>;
export type ChainBests = z.infer<typeof chainBestsSchema>;
export type CitableRow = z.infer<typeof citableRowSchema>;
export type CitableIndex = z.infer<typeof citableIndexSchema>;
export type Compare = z.infer<typeof compareSchema>;
export type CompareRow = z.infer<typeof compareRowSchema>;
export type Freshness = z.infer<typeof freshnessSchema>;
export type FeaturedCard = z.infer<typeof featuredCardSchema>;
export type Featured = z.infer<typeof featuredSchema>;

export const auditEntrySchema = z
  .object({
    t: z.iso.datetime().describe('The cycle (its slot time).'),
    chain: z.string(),
    token: z.string(),
    region: z.string().optional().describe('Where the harness measured from, when it says.'),
    count: z.number().nullable().describe("The provider's distinct transactions (0 for a failed probe)."),
    cellMax: z
      .number()
      .nullable()
      .describe('The baseline: the largest count any provider was scored with on the cell in that cycle.'),
    cellUnion: z
      .number()
      .nullable()
      .describe("Union of every provider's distinct transactions on the cell in that cycle."),
    capturePct: z
      .number()
      .nullable()
      .describe('count / cellMax × 100, rounded to 6 significant digits; null when cellMax is 0 (no 0/0).'),
    probeOk: z.boolean().describe("False for a probe that failed by the provider's doing."),
    comparable: z
      .boolean()
      .describe(
        'Whether at least two providers were scored on the cell in that cycle (the fair-aggregation rule).',
      ),
  })
  .meta({ id: 'AuditEntry' });

export type AuditEntry = z.infer<typeof auditEntrySchema>;

export const auditSchema = z
  .object({
    benchmark: z.string(),
    provider: z.object({ slug: z.string(), name: z.string() }),
    asOf: z.iso.datetime().nullable().describe('Time of the measurement shown (the latest one), or null.'),
    networks: z
      .array(
        z.object({
          chainId: z
            .string()
            .describe('The id the network is counted under: its CAIP-2 id, or unmapped:<slug>.'),
          caip2: z.string().nullable().describe('The CAIP-2 chain id, or null when unmapped.'),
          name: z.string(),
          rawId: z.string().describe("The provider's own id of the listing entry counted."),
        }),
      )
      .optional()
      .describe('network-coverage: every network counted in the latest successful listing.'),
    unmapped: z
      .array(z.object({ chainId: z.string(), name: z.string(), rawId: z.string() }))
      .optional()
      .describe(
        'network-coverage: counted networks with no CAIP-2 id (no chain id listed and no row in the reviewed table); each counts once.',
      ),
    dropped: z
      .array(z.object({ rawId: z.string(), name: z.string(), reason: z.string() }))
      .optional()
      .describe(
        'network-coverage: invalid listing entries dropped from the count (reason missing_id, bad_id or bad_entry); at most 500.',
      ),
    testnets: z
      .array(z.object({ chainId: z.string(), name: z.string(), rawId: z.string(), reason: z.string() }))
      .optional()
      .describe(
        'network-coverage: testnets not counted, with what caught them (provider_flag, chain_metadata or name); at most 500 with dropped.',
      ),
    cells: z
      .array(
        z.object({
          chain: z.string(),
          token: z.string(),
          count: z.number().nullable(),
          unionCount: z.number().nullable(),
          capturePct: z
            .number()
            .nullable()
            .describe('count / largest count on the cell × 100; null when no provider found a trade.'),
          unionCapturePct: z
            .number()
            .nullable()
            .describe("count / union of every provider's distinct transactions on the cell × 100."),
          probeOk: z.boolean().nullable(),
          capped: z.boolean().nullable(),
        }),
      )
      .optional()
      .describe(
        'token-trade-coverage: the latest cycle per (chain, token): distinct transactions, union, capture.',
      ),
    window: z
      .literal('24h')
      .optional()
      .describe("Present with ?window=24h: entries cover the Stat's window instead of the latest cycle."),
    filters: filtersSchema
      .nullable()
      .optional()
      .describe('With ?window=24h: the Stat filters (chain, region) the entries were narrowed by, or null.'),
    entries: z
      .array(auditEntrySchema)
      .optional()
      .describe(
        'token-trade-coverage with ?window=24h: one entry per (cycle, cell) the provider was probed on in the window. successRate = share of probeOk; sampleSize and p50 = the entries with comparable (none comparable: every entry with a capture, and the row is noComparison), capture = count / cellMax × 100.',
      ),
    pageUrl: z.url(),
    license: z.literal('CC-BY-4.0'),
    simulated: simulatedSchema,
  })
  .meta({ id: 'Audit' });

export type Audit = z.infer<typeof auditSchema>;

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
      }),
    ),
  })
  .meta({ id: 'DatasetIndex' });

export type DatasetIndex = z.infer<typeof datasetIndexSchema>;
