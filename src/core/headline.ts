import { formatValue, listed, tieReasonPhrase } from './format.ts';
import type { TieReason } from './uncertainty.ts';

export interface HeadlineInput {
  readonly title: string;
  readonly metric: string;
  readonly unit: string;
  readonly leaderName: string | null;
  readonly value: number | null;
  /** True when the view has rows but every one is unresponsive. */
  readonly allUnresponsive: boolean;
  /** Label of the applied filter (e.g. "Solana"), or null for the aggregate. */
  readonly filterLabel: string | null;
  /** True when the benchmark has never produced a sample. */
  readonly neverRun: boolean;
  /** For a value carried forward (latest mode): the epoch ms of the leader's own sample. */
  readonly asOf?: number | null;
  /** Names of the providers shown without a comparison (nobody else measured their cells). */
  readonly noComparison?: readonly string[];
  /** The spec's word for the leader (`superlative`): "<leader> is <superlative> at 41 ms". */
  readonly superlative?: string;
  /** Ranked rows the data cannot separate from the leader (tiedWithLeader), in rank order. */
  readonly tiedWithLeader?: readonly TiedRow[];
  /** The ranked statistic the value is (window benchmarks; default p50). */
  readonly statistic?: 'p50' | 'mean';
  /** The spec's minSamples, when nothing is ranked because every candidate row has fewer samples. */
  readonly tooFewSamples?: number;
}

export interface TiedRow {
  readonly name: string;
  readonly value: number;
  readonly pValue: number;
  readonly margin: number;
  readonly reason: TieReason;
}

/** "Networks supported" reads "networks supported" mid-sentence; acronyms such as "RPC" stay. */
export function metricPhrase(metric: string): string {
  return /^[A-Z][a-z]/.test(metric) ? metric[0]?.toLowerCase() + metric.slice(1) : metric;
}

/** "2026-11-20 12:00 UTC": the time of a sample, to the minute. */
export function utcMinute(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * The window note says what the number is: a value carried forward between measurements (a
 * listing count) is dated by its own sample; a window statistic is the ranked one (p50 or mean) over 24 h.
 */
function windowNote(asOf: number | null | undefined, filterLabel: string | null, statistic: string): string {
  const parts =
    asOf !== null && asOf !== undefined ? [`as of ${utcMinute(asOf)}`] : [`${statistic} over 24h`];
  if (filterLabel) parts.push(filterLabel);
  return parts.join(', ');
}

/** "263 networks supported" for a count; "a trade capture rate of 98.4%" for anything else. */
function measure(metric: string, unit: string, value: number): string {
  const phrase = metricPhrase(metric);
  const v = formatValue(value, unit);
  if (unit === 'count') return `${v} ${phrase}`;
  return `${/^[aeiou]/i.test(phrase) ? 'an' : 'a'} ${phrase} of ${v}`;
}

/**
 * The benchmark's question, then its answer: "Onchain data API with most networks supported:
 * GeckoTerminal leads with 263 networks supported (as of 2026-11-20 12:00 UTC)."
 */
export function headline(h: HeadlineInput): string {
  const scope = h.filterLabel ? ` (${h.filterLabel})` : '';
  if (h.leaderName === null || h.value === null) {
    if (h.neverRun) return `${h.title}. Awaiting its first run.`;
    if (h.noComparison && h.noComparison.length > 0) {
      const who = h.noComparison.join(' and ');
      return `${h.title}${scope}. Only ${who} ${h.noComparison.length > 1 ? 'were' : 'was'} measured here, so there is no comparison to publish.`;
    }
    if (h.allUnresponsive) return `${h.title}${scope}. No provider responded in the last 24h.`;
    if (h.tooFewSamples !== undefined) {
      return `${h.title}${scope}. Too few samples in the last 24h to rank (fewer than ${h.tooFewSamples} per provider).`;
    }
    return `${h.title}${scope}. No measurements in the last 24h.`;
  }
  const note = windowNote(h.asOf, h.filterLabel, h.statistic ?? 'p50');
  const tied = h.tiedWithLeader ?? [];
  if (tied.length > 0) {
    // A lead the data cannot support is not called a lead: the top is shared, and the reason given.
    const names = listed([h.leaderName, ...tied.map((t) => t.name)]);
    const values = listed([h.value, ...tied.map((t) => t.value)].map((v) => formatValue(v, h.unit)));
    const why =
      tied.length === 1
        ? tieReasonPhrase(tied[0] as TiedRow, h.unit)
        : tied.map((t) => `${t.name}: ${tieReasonPhrase(t, h.unit)}`).join('; ');
    // Data that separate two providers in opposite directions are not a statistical tie.
    const verb = tied.every((t) => t.reason !== 'conflicting')
      ? 'are statistically tied at the top'
      : 'cannot be separated at the top';
    return `${h.title}: ${names} ${verb} (${values}, ${note}; ${why}).`;
  }
  if (h.superlative !== undefined) {
    return `${h.title}: ${h.leaderName} is ${h.superlative} at ${formatValue(h.value, h.unit)} (${note}).`;
  }
  return `${h.title}: ${h.leaderName} leads with ${measure(h.metric, h.unit, h.value)} (${note}).`;
}

/** Said in every quote and citation of simulated data, so a copied number cannot pass as measured. */
export const SIMULATED_NOTE = 'Simulated demo data, not a measurement.';

/** Ends a simulated Stat's headline (its quote carries SIMULATED_NOTE instead). */
export const SIMULATED_HEADLINE = '(simulated demo data)';

export function quote(headlineText: string, siteName: string, pageUrl: string, simulated = false): string {
  return `${headlineText}${simulated ? ` ${SIMULATED_NOTE}` : ''} Source: ${siteName} (${pageUrl}).`;
}
