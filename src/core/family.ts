/**
 * What the core knows of a benchmark family: its shape, never its name or its metrics. A family
 * (src/harness/families/<family>/) declares what it probes, the metrics and labels it writes, which
 * shared derivation publishes it and the extras that derivation needs; the core validates specs
 * against these declarations and derives rows through them, so a benchmark of a known family is a
 * YAML file and a new family is a folder, never an edit here.
 */

/** One metric a family writes to the store (Prometheus data model). */
export interface MetricDeclaration {
  readonly name: string;
  /** Labels of every sample, besides the harness's own (`region`, `origin`). */
  readonly labels: readonly string[];
  readonly help: string;
}

/** The two shared derivations (src/core/rows.ts): a provider's latest value, or window statistics. */
export type DerivationMode = 'latest' | 'window';

export interface FamilyShape {
  /** A noun for what is probed (`chain-listing`), never a benchmark slug. */
  readonly name: string;
  readonly derivation: DerivationMode;
  /** Every metric the family writes, its headline value first. A spec's derivation may name only these. */
  readonly metrics: readonly MetricDeclaration[];
  /**
   * Metrics every probe writes whatever happens (a value or a probe outcome), so the newest sample
   * of each tells which origins (measured, simulated) a store holds.
   */
  readonly originMetrics: readonly string[];
  /**
   * Families whose benchmarks each have a value metric of their own (the generated synthetic
   * catalogue): the pattern those names follow. A spec's metric may match it instead of the list.
   */
  readonly benchmarkMetric?: RegExp;
  /** The labels of those per-benchmark metrics ([provider] when unsaid): a window spec's cells come from them. */
  readonly benchmarkMetricLabels?: readonly string[];
  /**
   * Metrics the family's derivation extras read besides the spec's own `metric` and `probeMetric`
   * (trade capture's counts, union and cycles of 5xx): their new samples change its views too.
   */
  readonly derivationMetrics: readonly string[];
  /** Ranking-row fields the family adds beside the shared ones (they exist in the row schema). */
  readonly rowFields: readonly string[];
  /** Cadence of its probe (a spec's `cadence` must equal it: one probe serves every benchmark). */
  readonly cadence: string;
  /**
   * The values it stores score each provider against the others probed with it (trade capture:
   * against the largest count on the cell), so they hold for one provider set only: every benchmark
   * of the family must list the same providers, or a narrower one would publish scores set by
   * providers it does not list.
   */
  readonly scoresAgainstProbedProviders?: boolean;
  /**
   * A provider is measured on a chain through the endpoint the catalogue lists for it (`rpc`), so
   * a spec may list for it only chains it has an endpoint for.
   */
  readonly chainsFromEndpoints?: boolean;
}

const families = new Map<string, FamilyShape>();

/** The registered families, by name (filled by src/harness/families at import). */
export const FAMILIES: ReadonlyMap<string, FamilyShape> = families;

/**
 * Every metric a registered family writes, plus the harness's cycle marker: the metrics query_prom
 * may read and the daily dataset holds. One array, filled in place as families register, so a
 * module that captured it before keeps reading the full list.
 */
export const STORED_METRIC_NAMES: string[] = [];

/** Metrics whose newest sample says which origins a store holds (see sample-origin.ts). */
export const ORIGIN_METRIC_NAMES: string[] = [];

/**
 * Marks one completed cycle: `{benchmark}`, 1 per benchmark a probe served, written in the cycle's
 * own append. The harness resumes from it, so its state lives with the samples on any store. It
 * belongs to the harness, not to a family.
 */
export const HARNESS_CYCLE_METRIC = 'harness_cycle';

/**
 * How far back a marker is looked for, by the harness resuming and by a replica following it:
 * 15 days, Prometheus' default retention, so the read is one bounded query on every engine.
 */
export const MARKER_LOOKBACK_MS = 15 * 86_400_000;

/** How far ahead of now: markers are stamped with their slot or, for a listing, its host's clock. */
export const MARKER_AHEAD_MS = 5 * 60_000;

/**
 * `{benchmark, version, revision, region}` = 1 beside each cycle marker (Prometheus' `*_build_info`
 * convention): which build of the harness measured the cycle. Stored like any sample, so it reaches
 * query_prom and the dataset, and a view's provenance counts the builds of its window.
 */
export const HARNESS_BUILD_INFO_METRIC = 'harness_build_info';

/** Registers families (idempotent by name). */
export function registerFamilies(list: readonly FamilyShape[]): void {
  for (const f of list) families.set(f.name, f);
  const stored = new Set<string>();
  const origin = new Set<string>();
  for (const f of families.values()) {
    for (const m of f.metrics) stored.add(m.name);
    for (const m of f.originMetrics) origin.add(m);
  }
  stored.add(HARNESS_CYCLE_METRIC);
  stored.add(HARNESS_BUILD_INFO_METRIC);
  origin.add(HARNESS_CYCLE_METRIC);
  STORED_METRIC_NAMES.splice(0, STORED_METRIC_NAMES.length, ...stored);
  ORIGIN_METRIC_NAMES.splice(0, ORIGIN_METRIC_NAMES.length, ...origin);
}

/** The labels a family declares for one of its metrics; undefined when it does not write it. */
export function metricLabels(family: FamilyShape, metric: string): readonly string[] | undefined {
  const declared = family.metrics.find((m) => m.name === metric)?.labels;
  if (declared) return declared;
  return family.benchmarkMetric?.test(metric) ? (family.benchmarkMetricLabels ?? ['provider']) : undefined;
}
