import type { Stat } from '../core/api-schemas.ts';
import { formatInterval, formatValue } from '../core/format.ts';
import { renderSparklineSvg } from '../core/sparkline-svg.ts';
import type { Derivation } from '../core/spec-schema.ts';
import { agoTime, esc } from './html.ts';

/** How a benchmark's number is derived (its spec's `derivation.mode`): a listing read, or a window. */
export type DerivationMode = Derivation['mode'];

/** How a unit is named in a column header: "count", "%", "ms". */
export function unitLabel(unit: string): string {
  return unit === 'pct' ? '%' : unit;
}

/**
 * "updated <time>", or what is true instead: a draft is waiting for its first measurement, and a
 * view without a time says so (never "updated never measured").
 */
export function updatedPhrase(stat: Pick<Stat, 'status' | 'asOf'>): string {
  if (stat.status === 'draft') return 'waiting for its first measurement';
  return stat.asOf ? `updated ${agoTime(stat.asOf)}` : 'no measurement in the window';
}

/** A dimension value's label as the spec declares it ("asset-registry" → "Asset registry"). */
export function labelOf(stat: Pick<Stat, 'dimensions'>, dimension: string, value: string): string {
  return stat.dimensions[dimension]?.find((v) => v.value === value)?.label ?? value;
}

export function statusBadge(status: string): string {
  return `<span class="badge ${esc(status)}">${esc(status)}</span>`;
}

/**
 * An inline bar whose length is the value's share of the best one (for lower-is-better metrics,
 * the best's share of the value), so a longer bar is always better.
 */
export function bar(value: number, best: number, higherIsBetter: boolean, label: string): string {
  const share = higherIsBetter ? (best > 0 ? value / best : 0) : value > 0 ? best / value : 0;
  const pct = Math.max(1, Math.min(100, Math.round(share * 100)));
  return `<span class="bar" style="width:${pct}%" role="img" aria-label="${esc(label)}"></span>`;
}

/** The leader's 24 h series as an inline SVG that scales to its container (no request). */
export function inlineSparkline(stat: Stat, width: number, height: number): string {
  return renderSparklineSvg({
    points: stat.sparkline,
    width,
    height,
    theme: 'light',
    higherIsBetter: stat.higherIsBetter,
    title: stat.title,
    leaderName: stat.leader?.name ?? null,
    unit: stat.unit,
    gaps: stat.sparklineGaps,
  })
    .replace(/^<\?xml[^>]*>\s*/, '')
    .replace('<svg ', '<svg class="spark" preserveAspectRatio="xMidYMid meet" ');
}

export function fmt(value: number | null, unit: string): string {
  return value === null ? '–' : formatValue(value, unit);
}

/** Root-relative path of an absolute URL of this site (links work behind any BASE_URL). */
export function pathOf(url: string): string {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
}

/**
 * A window p50 and its interval: the text reads "94.9% (95% CI 94.1–95.6)" as formatWithCi writes
 * it, and the interval sits on its own smaller line (`.sub`), so a 390 px phone keeps the column
 * narrow. Without an interval (a listing count, or fewer than 6 samples) the value alone.
 */
export function valueWithCi(
  value: number,
  ci: readonly [number, number] | null | undefined,
  unit: string,
  narrow = false,
): string {
  const v = esc(formatValue(value, unit));
  if (!ci) return v;
  const range = esc(formatInterval(ci, unit));
  // Narrow (two value columns side by side, as on the compare page): the words and the range on
  // lines of their own, so each column stays within a 390 px screen.
  return narrow
    ? `${v} <span class="sub">(95% CI</span> <span class="sub">${range})</span>`
    : `${v} <span class="sub">(95% CI ${range})</span>`;
}

/** "95% CI 94.1–95.6", or null: for a title attribute where a second line has no room. */
export function ciTitle(ci: readonly [number, number] | null | undefined, unit: string): string | null {
  return ci ? `95% CI ${formatInterval(ci, unit)}` : null;
}

/** A provider's name linked to its profile page (/providers/{slug}). */
export function providerLink(slug: string, name: string): string {
  return `<a href="/providers/${encodeURIComponent(slug)}">${esc(name)}</a>`;
}
