import type { Stat } from '../core/api-schemas.ts';
import { formatValue } from '../core/format.ts';

/** Everything the OG layout shows; plain data so it crosses the worker boundary as-is. */
export interface OgModel {
  readonly siteName: string;
  readonly category: string;
  readonly number: string;
  readonly metric: string;
  /** The formatted current value, or the draft placeholder. */
  readonly valueText: string;
  readonly hasValue: boolean;
  readonly isDraft: boolean;
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
  /** UTC day of the last measurement, YYYY-MM-DD, or null before the first run. */
  readonly asOfDate: string | null;
  readonly license: string;
}

export const AWAITING_TEXT = 'awaiting first run';

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

export function ogModelFromStat(stat: Stat, siteName: string): OgModel {
  const hasValue = stat.value !== null && Number.isFinite(stat.value);
  return {
    siteName,
    category: stat.category,
    number: stat.number,
    metric: stat.metric,
    valueText: stat.value !== null && hasValue ? formatValue(stat.value, stat.unit) : AWAITING_TEXT,
    hasValue,
    isDraft: stat.status === 'draft',
    leadLine: stat.leader ? `${stat.leader.name} leads · ${stat.title}` : stat.title,
    points: stat.sparkline,
    gaps: stat.sparklineGaps ?? [],
    higherIsBetter: stat.higherIsBetter,
    unit: stat.unit,
    simulated: stat.simulated === true,
    filterLabel: filterText(stat),
    pageUrl: stripScheme(stat.pageUrl),
    asOfDate: stat.asOf ? stat.asOf.slice(0, 10) : null,
    license: stat.license,
  };
}
