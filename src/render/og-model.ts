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
  readonly higherIsBetter: boolean;
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
    higherIsBetter: stat.higherIsBetter,
    pageUrl: stripScheme(stat.pageUrl),
    asOfDate: stat.asOf ? stat.asOf.slice(0, 10) : null,
    license: stat.license,
  };
}
