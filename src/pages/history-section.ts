import type { Filters } from '../core/api-schemas.ts';
import {
  CHART_RANGE_WORDS,
  CHART_RANGES,
  type ChartRange,
  DEFAULT_CHART_RANGE,
} from '../core/history-svg.ts';
import { esc } from './html.ts';

export interface HistoryInput {
  /** The chart's SVG document (GET /api/chart/{slug}'s bytes for the same query). */
  readonly svg: string;
  readonly range: ChartRange;
  /** The view's filters: every range link and data link keeps them. */
  readonly filters: Filters | null;
}

const FILTER_ORDER = ['chain', 'region', 'kind', 'venue'] as const;

/** `chain=solana&range=30d`: the view's filters, then the range unless it is the default. */
function query(filters: Filters | null, range: ChartRange | null): string {
  const q = new URLSearchParams();
  for (const d of FILTER_ORDER) {
    const v = filters?.[d];
    if (v !== undefined) q.set(d, v);
  }
  if (range !== null) q.set('range', range);
  const s = q.toString();
  return s ? `?${s}` : '';
}

/**
 * The benchmark page's History section: range links (plain links to this page, filters kept, so
 * they work without JavaScript; the default range links to the page's own canonical URL) and the
 * chart inline, server-rendered, at most 560 px wide so its text stays near the body's size.
 */
export function historySection(slug: string, pagePath: string, h: HistoryInput): string {
  const links = CHART_RANGES.map((r) => {
    const href = `${pagePath}${query(h.filters, r === DEFAULT_CHART_RANGE ? null : r)}#history`;
    return `<a href="${esc(href)}"${r === h.range ? ' aria-current="true"' : ''}>${esc(CHART_RANGE_WORDS[r].replace('last ', ''))}</a>`;
  });
  const svg = h.svg
    .replace(/^<\?xml[^>]*>\s*/, '')
    .replace('<svg ', '<svg class="spark" preserveAspectRatio="xMidYMid meet" ');
  const data = query(h.filters, h.range);
  return `<h2 id="history">History</h2>
<nav class="chips" aria-label="History range" data-testid="history-ranges"><span class="eyebrow">range</span> ${links.join('')}</nav>
<figure style="margin:0;max-width:560px" data-testid="history">${svg}<figcaption class="muted small">Each ranked provider's value as the Stat published it at each instant of the ${esc(CHART_RANGE_WORDS[h.range])} (UTC); a break in a line is an instant without a value. <a href="/api/chart/${esc(slug)}${esc(data)}">SVG</a> · <a href="/api/series/${esc(slug)}${esc(data)}">JSON</a></figcaption></figure>`;
}
