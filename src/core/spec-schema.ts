import { z } from 'zod';
import { FAMILIES, type FamilyShape, metricLabels } from './family.ts';
import { isSyntheticProvider, PROVIDERS, type ProviderInfo } from './providers.ts';
import { DEFAULT_MIN_SAMPLES, DEFAULT_RELIABILITY_MARGIN } from './uncertainty.ts';

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

const metricName = z.string().regex(/^[a-z_][a-z0-9_]*$/);

const latestDerivation = z.strictObject({
  /** A provider's value is its latest successful sample of `metric` at or before evaluation time. */
  mode: z.literal('latest'),
  metric: metricName,
});

/**
 * Quantiles and mean over the samples of `metric` in the window, on comparable (cell, cycle) pairs.
 * What else a family's rows read (trade capture's union baseline, its unresponsive marker) is the
 * family's business, declared with its metrics (src/harness/families), never here.
 */
const windowDerivation = z.strictObject({
  mode: z.literal('window'),
  metric: metricName,
  /** 1 = the probe succeeded; 0 = a failure the provider caused. Drives successRate. */
  probeMetric: metricName,
  /** Labels that identify one cell, e.g. [chain, token]. */
  cellLabels: z.array(metricName).min(1),
  /**
   * Narrows the probe outcomes to those of the samples' own probes when one probe metric serves
   * several value metrics (head lag comes from the `block` probes only: `{ kind: block }`).
   */
  probeMatch: z.record(metricName, z.string().regex(DIMENSION_VALUE_RE)).optional(),
  /**
   * The smallest p50 difference worth a verdict, in the benchmark's unit: a lead or a compare win
   * within it is a statistical tie however significant (src/core/uncertainty.ts `verdict`).
   */
  tieMargin: z.number().min(0).max(1e9),
  /** Rows with fewer samples are listed, never ranked; compare rows need as many shared ones. */
  minSamples: z.int().min(6).max(1_000_000).default(DEFAULT_MIN_SAMPLES),
  /**
   * The statistic rows are ranked by and the value is: p50, or the mean where p50 is degenerate
   * (head lag steps by block times, so the best p50s are all 0).
   */
  rankBy: z.enum(['p50', 'mean']).default('p50'),
  /**
   * A failure share higher than another provider's by more than this many percentage points, with
   * a significant paired test, ranks a provider below it whatever its speed (core/reliability.ts).
   */
  reliabilityMargin: z.number().min(0).max(100).default(DEFAULT_RELIABILITY_MARGIN),
  /**
   * Where a family stores a sample for a failed probe whose value has no timeout to stand at (a
   * lag), the least it counts as, in the benchmark's unit: never below the worst value answered
   * on the same cell in the slot, so failing never scores better than answering.
   */
  failedValue: z.number().min(0).max(1e9).optional(),
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

export const benchmarkSpecSchema = z.strictObject({
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
  license: z.literal('CC-BY-4.0'),
  window: z.literal('24h'),
  cadence: duration,
  /** The benchmark family that measures it (src/harness/families/<family>/). */
  family: z.string().regex(SLUG_RE, 'must match ^[a-z0-9][a-z0-9-]{0,79}$'),
  derivation: z.discriminatedUnion('mode', [latestDerivation, windowDerivation]),
  /**
   * The headline's word for the leader, a superlative: "Alchemy is <superlative> at 41 ms". A
   * spec without one keeps "<leader> leads with <value>".
   */
  superlative: z
    .string()
    .regex(/^[a-z][a-z -]{0,30}[a-z]$/, 'must be lower-case words, such as a superlative')
    .optional(),
  /**
   * Consecutive down cycles (as the family defines one) before a provider is marked unresponsive;
   * its next cycle that is not clears it. Window derivations only.
   */
  unresponsiveAfter: z.int().min(1).max(10_000).optional(),
  dimensions: z.partialRecord(z.enum(DIMENSION_NAMES), dimension).default({}),
  providers: z.array(providerEntry).min(1),
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

/** What a spec is checked against besides its own shape: the provider catalogue and the families. */
export interface SpecContext {
  readonly providers: ReadonlyMap<string, ProviderInfo>;
  readonly families: ReadonlyMap<string, FamilyShape>;
}

/** The registered catalogue and families (loadSpecs registers them before parsing). */
export function registeredSpecContext(): SpecContext {
  return { providers: PROVIDERS, families: FAMILIES };
}

type Issue = { readonly field: string; readonly message: string };

/**
 * Fields specs no longer take, with what to do instead: named as such rather than as an unknown
 * key, so an operator upgrading with an old YAML knows the fix (issue 25: the harness source is
 * one setting for the whole site).
 */
const RETIRED_FIELDS: Readonly<Record<string, string>> = {
  source:
    "is no longer a spec field: delete it and set SOURCE_URL (the public http(s) URL of the harness source; {family} becomes each benchmark's family)",
};

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The checks that need more than one field or the context: file name, family, its metrics and
 * cadence, providers from the catalogue and measurable in the family, provider dimensions. They
 * read the raw input defensively, so they run even when the shape check failed elsewhere and a
 * file's every problem is reported at once.
 */
function referenceIssues(file: string, data: unknown, ctx: SpecContext): Issue[] {
  if (!isRecord(data)) return [];
  const out: Issue[] = [];
  const expected = file.replace(/^.*\//, '').replace(/\.ya?ml$/, '');
  if (typeof data.slug === 'string' && data.slug !== expected) {
    out.push({ field: 'slug', message: `must equal the file name "${expected}"` });
  }
  const family = typeof data.family === 'string' ? ctx.families.get(data.family) : undefined;
  if (typeof data.family === 'string' && !family) {
    const known = [...ctx.families.keys()].join(', ') || 'none registered';
    out.push({ field: 'family', message: `unknown family "${data.family}" (known: ${known})` });
  }
  if (family) out.push(...familyIssues(family, data));
  const providers = Array.isArray(data.providers) ? data.providers : [];
  const seen = new Set<string>();
  providers.forEach((p: unknown, i) => {
    if (!isRecord(p) || typeof p.slug !== 'string') return;
    const info = ctx.providers.get(p.slug);
    if (!info) {
      out.push({
        field: `providers.${i}.slug`,
        message: `unknown provider "${p.slug}" (not in the provider catalogue, benchmarks/providers.yml)`,
      });
    } else if (family && !isSyntheticProvider(p.slug) && !info.families.includes(family.name)) {
      out.push({
        field: `providers.${i}.slug`,
        message: `provider "${p.slug}" cannot be measured in family "${family.name}" (its families: ${info.families.join(', ') || 'none'})`,
      });
    }
    if (info && family?.chainsFromEndpoints && Array.isArray(p.chains)) {
      const served = new Set(Object.keys(info.rpc ?? {}));
      p.chains.forEach((c: unknown, j) => {
        if (typeof c === 'string' && !served.has(c)) {
          out.push({
            field: `providers.${i}.chains.${j}`,
            message: `provider "${p.slug}" has no endpoint for chain "${c}" in the provider catalogue (it serves: ${[...served].join(', ') || 'none'})`,
          });
        }
      });
    }
    if (seen.has(p.slug))
      out.push({ field: `providers.${i}.slug`, message: `duplicate provider "${p.slug}"` });
    seen.add(p.slug);
  });
  const dimensions = isRecord(data.dimensions) ? data.dimensions : {};
  for (const [name, dim] of Object.entries(dimensions)) {
    if (!isRecord(dim) || dim.appliesTo !== 'provider' || !Array.isArray(dim.values)) continue;
    const allowed = new Set(dim.values.flatMap((v: unknown) => (isRecord(v) ? [v.value] : [])));
    providers.forEach((p: unknown, i) => {
      const attr = isRecord(p) ? p[name] : undefined;
      if (typeof attr !== 'string' || !allowed.has(attr)) {
        out.push({
          field: `providers.${i}.${name}`,
          message: `must be one of ${[...allowed].join(', ')} (dimension "${name}" applies to providers)`,
        });
      }
    });
  }
  return out;
}

/** A spec's derivation and cadence against what its family writes and how often it probes. */
function familyIssues(family: FamilyShape, data: Record<string, unknown>): Issue[] {
  const out: Issue[] = [];
  if (typeof data.cadence === 'string' && data.cadence !== family.cadence) {
    out.push({
      field: 'cadence',
      message: `must be ${family.cadence}, the cadence of family "${family.name}" (one probe serves all its benchmarks)`,
    });
  }
  const d = isRecord(data.derivation) ? data.derivation : {};
  if (data.unresponsiveAfter !== undefined && family.derivation !== 'window') {
    out.push({ field: 'unresponsiveAfter', message: 'applies to window derivations only' });
  }
  if (typeof d.mode === 'string' && d.mode !== family.derivation) {
    out.push({
      field: 'derivation.mode',
      message: `must be ${family.derivation} for family "${family.name}"`,
    });
  }
  const writes = family.metrics.map((m) => m.name).join(', ');
  for (const key of ['metric', 'probeMetric'] as const) {
    const m = d[key];
    if (typeof m === 'string' && !metricLabels(family, m)) {
      out.push({
        field: `derivation.${key}`,
        message: `family "${family.name}" does not write metric "${m}" (it writes ${writes})`,
      });
    }
  }
  const labels = typeof d.metric === 'string' ? metricLabels(family, d.metric) : undefined;
  if (labels && Array.isArray(d.cellLabels)) {
    d.cellLabels.forEach((l: unknown, i) => {
      if (typeof l === 'string' && !labels.includes(l)) {
        out.push({
          field: `derivation.cellLabels.${i}`,
          message: `metric "${String(d.metric)}" has no label "${l}" (its labels: ${labels.join(', ')})`,
        });
      }
    });
  }
  return out;
}

function withoutKeys(data: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(data).filter(([k]) => !keys.includes(k)));
}

/**
 * Parses one spec against the provider catalogue and the families. Every problem of the file is
 * reported, one line each, naming the file and the field: the shape's and the references' alike.
 */
export function parseSpec(
  file: string,
  data: unknown,
  ctx: SpecContext = registeredSpecContext(),
): BenchmarkSpec {
  const retired = isRecord(data) ? Object.keys(data).filter((k) => k in RETIRED_FIELDS) : [];
  const issues: Issue[] = retired.map((k) => ({ field: k, message: RETIRED_FIELDS[k] ?? '' }));
  // Checked without them, so they are not reported a second time as unknown keys.
  const shaped = retired.length > 0 && isRecord(data) ? withoutKeys(data, retired) : data;
  const res = benchmarkSpecSchema.safeParse(shaped);
  if (!res.success) {
    for (const iss of res.error.issues) {
      issues.push({
        field: iss.path.length ? iss.path.map(String).join('.') : '(root)',
        message: iss.message,
      });
    }
  }
  issues.push(...referenceIssues(file, data, ctx));
  if (issues.length === 0 && res.success) return res.data;
  throw new SpecError(issues.map((i) => `${file}: field "${i.field}": ${i.message}`).join('\n'));
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
  const firstOfFamily = new Map<string, BenchmarkSpec>();
  for (const s of specs) {
    if (!FAMILIES.get(s.family)?.scoresAgainstProbedProviders) continue;
    const first = firstOfFamily.get(s.family);
    if (!first) {
      firstOfFamily.set(s.family, s);
      continue;
    }
    const set = (x: BenchmarkSpec) =>
      x.providers
        .map((p) => p.slug)
        .sort()
        .join(', ');
    if (set(first) !== set(s)) {
      throw new SpecError(
        `benchmarks "${first.slug}" and "${s.slug}" (family "${s.family}") must list the same providers: the family scores each provider against every provider probed with it (${set(first)} vs ${set(s)})`,
      );
    }
  }
}
