import { z } from 'zod';
import { PROVIDERS } from './providers.ts';

export const SLUG_RE = /^[a-z0-9][a-z0-9-]{0,79}$/;
export const DIMENSION_VALUE_RE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
export const DIMENSION_NAMES = ['chain', 'region', 'kind', 'venue'] as const;
export type DimensionName = (typeof DIMENSION_NAMES)[number];

const dimensionValue = z.strictObject({
  value: z.string().regex(DIMENSION_VALUE_RE, 'must match ^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$'),
  label: z.string().min(1).max(64),
});

/**
 * `label`: the dimension narrows samples by the label of the same name (e.g. `chain`).
 * `provider`: it narrows the provider set by the provider's attribute of the same name in this
 * spec (e.g. `kind: dex-index`), for listings whose samples carry no such label.
 */
const dimension = z
  .strictObject({
    appliesTo: z.enum(['label', 'provider']),
    /**
     * The values come from the data (e.g. `region`: whatever HARNESS_REGION the harnesses ran
     * with), not from the spec; an unknown value is still a 404.
     */
    fromData: z.boolean().default(false),
    values: z
      .array(dimensionValue)
      .default([])
      .refine((vs) => new Set(vs.map((v) => v.value)).size === vs.length, 'dimension values must be unique'),
  })
  .refine((d) => d.fromData || d.values.length > 0, 'needs values (or fromData: true)')
  .refine((d) => !(d.fromData && d.appliesTo !== 'label'), 'fromData applies to label dimensions only');

const duration = z.string().regex(/^\d+[smhd]$/, 'must be a duration such as 30m, 6h or 24h');

const latestDerivation = z.strictObject({
  /** A provider's value is its latest successful sample of `metric` at or before evaluation time. */
  mode: z.literal('latest'),
  metric: z.string().regex(/^[a-z_][a-z0-9_]*$/),
});

const metricName = z.string().regex(/^[a-z_][a-z0-9_]*$/);

const windowDerivation = z.strictObject({
  /** Quantiles and mean over the samples of `metric` in the window, on comparable (cell, cycle) pairs. */
  mode: z.literal('window'),
  metric: metricName,
  /** 1 = the probe succeeded; 0 = a failure the provider caused. Drives successRate. */
  probeMetric: metricName,
  /** Distinct transactions per provider and cell (numerator of the union baseline). */
  countMetric: metricName,
  /** Union of every provider's distinct transactions per cell (the union baseline). */
  unionMetric: metricName,
  /** One sample per provider and cycle, 1 for a cycle of 5xx: drives the unresponsive marker. */
  cycle5xxMetric: metricName,
  /** Labels that identify one cell, e.g. [chain, token]. */
  cellLabels: z.array(metricName).min(1),
});

const providerEntry = z.strictObject({
  slug: z.string().regex(SLUG_RE),
  tag: z.string().min(1).max(80).optional(),
  endpoint: z.string().min(1).max(300),
  formula: z.string().min(1).max(240).optional(),
  kind: z.string().regex(DIMENSION_VALUE_RE).optional(),
  /** Chains this provider is measured on (others are excluded, not zero). */
  chains: z.array(z.string().regex(DIMENSION_VALUE_RE)).optional(),
});

export const benchmarkSpecSchema = z
  .strictObject({
    slug: z.string().regex(SLUG_RE, 'must match ^[a-z0-9][a-z0-9-]{0,79}$'),
    number: z.string().regex(/^\d{3}$/, 'must be a three-digit string such as "005"'),
    title: z.string().min(1).max(200),
    subtitle: z.string().min(1).max(400),
    category: z.enum(['Aggregators', 'Bridges', 'Blockchains', 'Trading', 'Wallets', 'RPCs', 'Explorers']),
    metric: z.string().min(1).max(100),
    unit: z.enum(['ms', 'pct', 'count', 'usd']),
    higherIsBetter: z.boolean(),
    status: z.enum(['live', 'draft']).default('live'),
    abstract: z.string().min(40).max(4000),
    methodology: z.array(z.string().min(1).max(500)).min(1).max(40),
    source: z.url(),
    license: z.literal('CC-BY-4.0'),
    window: z.literal('24h'),
    cadence: duration,
    derivation: z.discriminatedUnion('mode', [latestDerivation, windowDerivation]),
    dimensions: z.partialRecord(z.enum(DIMENSION_NAMES), dimension).default({}),
    providers: z.array(providerEntry).min(1),
  })
  .superRefine((spec, ctx) => {
    const seen = new Set<string>();
    spec.providers.forEach((p, i) => {
      if (!PROVIDERS.has(p.slug)) {
        ctx.addIssue({
          code: 'custom',
          path: ['providers', i, 'slug'],
          message: `unknown provider "${p.slug}" (not in src/core/providers.ts)`,
        });
      }
      if (seen.has(p.slug)) {
        ctx.addIssue({
          code: 'custom',
          path: ['providers', i, 'slug'],
          message: `duplicate provider "${p.slug}"`,
        });
      }
      seen.add(p.slug);
    });
    for (const [name, dim] of Object.entries(spec.dimensions)) {
      if (dim?.appliesTo !== 'provider') continue;
      const allowed = new Set(dim.values.map((v) => v.value));
      spec.providers.forEach((p, i) => {
        const attr = (p as Record<string, unknown>)[name];
        if (typeof attr !== 'string' || !allowed.has(attr)) {
          ctx.addIssue({
            code: 'custom',
            path: ['providers', i, name],
            message: `must be one of ${[...allowed].join(', ')} (dimension "${name}" applies to providers)`,
          });
        }
      });
    }
  });

export type BenchmarkSpecInput = z.input<typeof benchmarkSpecSchema>;
type ParsedSpec = z.output<typeof benchmarkSpecSchema>;
export type BenchmarkSpec = ParsedSpec;
export type ProviderEntry = ParsedSpec['providers'][number];
export type Derivation = ParsedSpec['derivation'];

export function durationMs(d: string): number {
  const m = /^(\d+)([smhd])$/.exec(d);
  if (!m) throw new Error(`bad duration ${d}`);
  const n = Number(m[1]);
  const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 's' | 'm' | 'h' | 'd'];
  return n * unit;
}

export class SpecError extends Error {}

/** Parses one spec; the error names the file, the field and the problem. */
export function parseSpec(file: string, data: unknown): BenchmarkSpec {
  const res = benchmarkSpecSchema.safeParse(data);
  if (res.success) {
    const expected = file.replace(/^.*\//, '').replace(/\.ya?ml$/, '');
    if (expected !== res.data.slug) {
      throw new SpecError(`${file}: field "slug": must equal the file name "${expected}"`);
    }
    return res.data;
  }
  const lines = res.error.issues.map((iss) => {
    const field = iss.path.length ? iss.path.map(String).join('.') : '(root)';
    return `${file}: field "${field}": ${iss.message}`;
  });
  throw new SpecError(lines.join('\n'));
}

/** Cross-spec checks: unique slugs and numbers. */
export function checkSpecSet(specs: readonly BenchmarkSpec[]): void {
  const slugs = new Set<string>();
  const numbers = new Map<string, string>();
  for (const s of specs) {
    if (slugs.has(s.slug)) throw new SpecError(`duplicate benchmark slug "${s.slug}"`);
    slugs.add(s.slug);
    const other = numbers.get(s.number);
    if (other) throw new SpecError(`benchmarks "${other}" and "${s.slug}" share number ${s.number}`);
    numbers.set(s.number, s.slug);
  }
}
