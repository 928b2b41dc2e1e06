import { formatValue } from './format.ts';

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
}

/** "Networks supported" reads "networks supported" mid-sentence; acronyms such as "RPC" stay. */
export function metricPhrase(metric: string): string {
  return /^[A-Z][a-z]/.test(metric) ? metric[0]?.toLowerCase() + metric.slice(1) : metric;
}

/** The window note says what the number is: a count is the latest value, other units a p50. */
function windowNote(unit: string, filterLabel: string | null): string {
  const parts = unit === 'count' ? ['24h'] : ['p50, 24h'];
  if (filterLabel) parts.push(filterLabel);
  return parts.join(', ');
}

export function headline(h: HeadlineInput): string {
  const scope = h.filterLabel ? ` (${h.filterLabel})` : '';
  if (h.leaderName === null || h.value === null) {
    if (h.neverRun) return `${h.title}. Awaiting its first run.`;
    if (h.allUnresponsive) return `${h.title}${scope}. No provider responded in the last 24h.`;
    return `${h.title}${scope}. No measurements in the last 24h.`;
  }
  return `${h.leaderName} leads ${metricPhrase(h.metric)} at ${formatValue(h.value, h.unit)} (${windowNote(
    h.unit,
    h.filterLabel,
  )}) on ${h.title}.`;
}

export function quote(headlineText: string, siteName: string, pageUrl: string): string {
  return `${headlineText} Source: ${siteName} (${pageUrl}).`;
}
