import type { Stat } from '../core/api-schemas.ts';
import { formatInterval, formatValue, listed } from '../core/format.ts';
import { SIMULATED_NOTE } from '../core/headline.ts';

/** Everything the OG layout shows; plain data so it crosses the worker boundary as-is. */
export interface OgModel {
  readonly siteName: string;
  readonly category: string;
  readonly number: string;
  readonly metric: string;
  /** The benchmark title, with the applied filter's label: the PNG's Title. */
  readonly title: string;
  /** The formatted current value, or the words of the headline's case without one. */
  readonly valueText: string;
  readonly hasValue: boolean;
  readonly isDraft: boolean;
  /** "95% CI 94.1–95.6": the interval of the leader's window p50, or null (a listing count has none). */
  readonly ciText: string | null;
  /** "<leader> leads · <title>", or "Statistically tied at the top: A and B · <title>". */
  readonly leadLine: string;
  readonly points: readonly number[];
  /** Indices of carried points (Stat.sparklineGaps): the sparkline draws them dashed. */
  readonly gaps: readonly number[];
  readonly higherIsBetter: boolean;
  /** The benchmark unit: the sparkline's scale labels and minimum span. */
  readonly unit: string;
  /** Simulated data: the card carries a SIMULATED watermark. */
  readonly simulated: boolean;
  /** The applied filter's label (e.g. "Solana"), or null for the unfiltered view. */
  readonly filterLabel: string | null;
  /** The benchmark page without scheme, so every screenshot carries a readable backlink. */
  readonly pageUrl: string;
  /** The benchmark page as published (with scheme): the PNG's Source. */
  readonly sourceUrl: string;
  /** UTC day of the last measurement, YYYY-MM-DD, or null before the first run. */
  readonly asOfDate: string | null;
  readonly license: string;
}

/** The card's words where a value would be, one per case of the headline (core/headline.ts). */
export const AWAITING_TEXT = 'awaiting first run';
export const NO_COMPARISON_TEXT = 'no comparison';
export const NO_RESPONSES_TEXT = 'no responses';
export const NO_DATA_TEXT = 'no data in 24 h';

export function stripScheme(url: string): string {
  return url.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/\/+$/, '');
}

/** "Solana" or "DEX index": the labels of the Stat's own filter values. */
function filterText(stat: Stat): string | null {
  if (!stat.filters) return null;
  const labels = Object.entries(stat.filters)
    .filter(([, v]) => v !== undefined)
    .map(([d, v]) => stat.dimensions[d]?.find((x) => x.value === v)?.label ?? String(v));
  return labels.length ? labels.join(', ') : null;
}

/**
 * A view without a value says why, in the headline's order: never run (a draft), only providers no
 * one else measured, every provider unresponsive, or nothing in the window. "Awaiting first run" on
 * a live view without a value (one provider alone on Stellar) told a reader it was never measured.
 */
function noValueText(stat: Stat): string {
  if (stat.status === 'draft') return AWAITING_TEXT;
  if (stat.rankings.some((r) => r.noComparison)) return NO_COMPARISON_TEXT;
  if (stat.rankings.length > 0 && stat.rankings.every((r) => r.unresponsive)) return NO_RESPONSES_TEXT;
  return NO_DATA_TEXT;
}

/**
 * Who is at the top. A shared image must not crown a leader the data cannot separate from the
 * next rows: when any ranked row is tied with the leader, the card says so and names them all.
 */
function leadText(stat: Stat): string {
  if (!stat.leader) return stat.title;
  const tied = stat.rankings.filter((r) => r.rank !== null && r.tiedWithLeader === true).map((r) => r.name);
  if (tied.length > 0)
    return `Statistically tied at the top: ${listed([stat.leader.name, ...tied])} · ${stat.title}`;
  return `${stat.leader.name} leads · ${stat.title}`;
}

export function ogModelFromStat(stat: Stat, siteName: string): OgModel {
  const hasValue = stat.value !== null && Number.isFinite(stat.value);
  const filterLabel = filterText(stat);
  const top = stat.leader && stat.rankings[0]?.rank === 1 ? stat.rankings[0] : null;
  const ci = hasValue ? top?.ci95?.p50 : null;
  return {
    siteName,
    category: stat.category,
    number: stat.number,
    metric: stat.metric,
    title: filterLabel ? `${stat.title} (${filterLabel})` : stat.title,
    valueText: stat.value !== null && hasValue ? formatValue(stat.value, stat.unit) : noValueText(stat),
    hasValue,
    isDraft: stat.status === 'draft',
    ciText: ci ? `95% CI ${formatInterval(ci, stat.unit)}` : null,
    leadLine: leadText(stat),
    points: stat.sparkline,
    gaps: stat.sparklineGaps ?? [],
    higherIsBetter: stat.higherIsBetter,
    unit: stat.unit,
    simulated: stat.simulated === true,
    filterLabel,
    pageUrl: stripScheme(stat.pageUrl),
    sourceUrl: stat.pageUrl,
    asOfDate: stat.asOf ? stat.asOf.slice(0, 10) : null,
    license: stat.license,
  };
}

/**
 * The PNG's text chunks (PNG 1.2 §11.3.4 keywords): a shared or re-hosted image keeps what it
 * shows, where it comes from and under which licence, and, for simulated data, that it is not a
 * measurement. `drawn` is the card's text in drawing order, so Description is exactly what it shows.
 */
export function ogTextChunks(m: OgModel, drawn: readonly string[]): [keyword: string, text: string][] {
  const chunks: [string, string][] = [
    ['Title', m.title],
    ['Description', drawn.join('\n')],
    ['Source', m.sourceUrl],
    ['Copyright', `${m.license}, ${m.siteName}`],
  ];
  if (m.simulated) chunks.push(['Disclaimer', SIMULATED_NOTE]);
  return chunks;
}
