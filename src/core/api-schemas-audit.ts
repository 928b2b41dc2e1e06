/** GET /api/audit/{slug}/{provider}: the raw measurements behind a ranking row. */
import { z } from 'zod';
import { filtersSchema, simulatedSchema } from './api-schemas-common.ts';

/** Why a cell had no ground truth; `not-recorded`: the cycle was stored before truth was read. */
export const truthReasonSchema = z.enum([
  'no-reference-node',
  'before-history',
  'node-error',
  'limit',
  'not-recorded',
]);

export const groundTruthSchema = z
  .object({
    status: z.enum(['ok', 'unavailable']),
    reason: truthReasonSchema
      .nullable()
      .describe(
        "Why there is no truth: no-reference-node (Solana, Stellar, or a chain without one), before-history (the window starts before the node's first retained block), node-error, limit (a single block over a provider limit), not-recorded (stored before truth was read); null when ok.",
      ),
    count: z
      .number()
      .nullable()
      .describe(
        "|T_fin|: distinct transactions with a Swap log of the token's pools in the window's blocks up to the node's finalized block.",
      ),
    recallPct: z
      .number()
      .nullable()
      .describe(
        "|P ∩ T_fin| / (|T_fin| + phantoms) × 100 for this provider's distinct transactions P (0 for a failure it caused): with no phantom, |P ∩ T_fin| / |T_fin| × 100; null when count is 0 or the probe was not scored.",
      ),
    unmatched: z
      .number()
      .nullable()
      .describe(
        "|P \\ T|: the provider's transactions with no Swap log of the token's pools in the window (T runs to latest), phantoms included.",
      ),
    phantoms: z
      .number()
      .nullable()
      .describe(
        "Verified phantoms: hashes of P \\ T the chain shows are no trade of the token (no such transaction on the reference node, or no log of the token's contract in its receipt). Each counts against recall as a missed swap; null when unmatched is null or the cycle was stored before phantoms were checked.",
      ),
    fromBlock: z.int().nullable().describe('First block of the window.'),
    toBlock: z.int().nullable().describe('Last block counted in T_fin (at most the finalized block).'),
  })
  .meta({ id: 'GroundTruth' });

export type GroundTruth = z.infer<typeof groundTruthSchema>;

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
    groundTruth: groundTruthSchema,
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
      .describe(
        'Listing benchmarks (family chain-listing): every network counted in the latest successful listing.',
      ),
    unmapped: z
      .array(z.object({ chainId: z.string(), name: z.string(), rawId: z.string() }))
      .optional()
      .describe(
        'Listing benchmarks (family chain-listing): counted networks with no CAIP-2 id (no chain id listed and no row in the reviewed table); each counts once.',
      ),
    dropped: z
      .array(z.object({ rawId: z.string(), name: z.string(), reason: z.string() }))
      .optional()
      .describe(
        'Listing benchmarks (family chain-listing): invalid listing entries dropped from the count (reason missing_id, bad_id or bad_entry); at most 500.',
      ),
    testnets: z
      .array(z.object({ chainId: z.string(), name: z.string(), rawId: z.string(), reason: z.string() }))
      .optional()
      .describe(
        'Listing benchmarks (family chain-listing): testnets not counted, with what caught them (provider_flag, chain_metadata or name); at most 500 with dropped.',
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
          groundTruth: groundTruthSchema,
        }),
      )
      .optional()
      .describe(
        'Trade-capture benchmarks: the latest cycle per (chain, token): distinct transactions, union, capture.',
      ),
    probes: z
      .array(
        z.object({
          chain: z.string(),
          region: z.string().optional().describe('Where the harness measured from, when it says.'),
          kind: z.string().describe('The method probed.'),
          latencyMs: z
            .number()
            .describe('Request write to last body byte, ms; the timeout for a failed probe.'),
          ok: z.boolean(),
          reason: z.string().nullable().describe('Why the probe failed (a closed list of codes), or null.'),
        }),
      )
      .optional()
      .describe('JSON-RPC benchmarks (family json-rpc): every probe of the provider in its latest slot.'),
    reasons: z
      .record(z.string(), z.number())
      .optional()
      .describe(
        "JSON-RPC benchmarks: the provider's probes in the 24-hour window by outcome (ok, or the failure reason), narrowed by the Stat's filters.",
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
        'Trade-capture benchmarks with ?window=24h: one entry per (cycle, cell) the provider was probed on in the window. successRate = share of probeOk; sampleSize and p50 = the entries with comparable, capture = count / cellMax × 100 (none comparable: the row is noComparison, sampleSize 0, no value).',
      ),
    pageUrl: z.url(),
    license: z.literal('CC-BY-4.0'),
    simulated: simulatedSchema,
  })
  .meta({ id: 'Audit' });

export type Audit = z.infer<typeof auditSchema>;
