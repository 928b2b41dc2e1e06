import { DAY_MS } from './dates.ts';
import { sparklineMinSpan } from './sparkline-svg.ts';

/**
 * The axes of the history chart (src/core/history-svg.ts): a value axis of a few round ticks and a
 * time axis labelled at UTC midnights. Pure; every label is derived from the data and the grid.
 */

/** A y axis: the domain drawn (its ends are ticks, so the scale starts where its label says). */
export interface ValueAxis {
  readonly lo: number;
  readonly hi: number;
  readonly ticks: readonly number[];
  /** Decimals every tick label is written with (the step's own). */
  readonly decimals: number;
}

/** 1, 2 or 5 times a power of ten: steps a reader adds up at a glance. */
function niceStep(raw: number): number {
  const p = 10 ** Math.floor(Math.log10(raw));
  const f = raw / p;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

/**
 * Round ticks covering [min, max] with about `target` intervals. A flat or near-flat series is
 * widened to the sparkline's minimum span (1 point for a percentage, 2% of the value otherwise), so
 * a wobble is never stretched to the full height; a percentage stays within 0–100 and a count's
 * step is a whole number.
 */
export function valueAxis(min: number, max: number, unit: string, target = 4): ValueAxis {
  let a = min;
  let b = max;
  const span = sparklineMinSpan(unit, min, max);
  if (b - a < span) {
    const mid = (a + b) / 2;
    a = mid - span / 2;
    b = mid + span / 2;
  }
  let step = niceStep((b - a) / target);
  if (unit === 'count') step = Math.max(1, step);
  let lo = Math.floor(a / step) * step;
  let hi = Math.ceil(b / step) * step;
  if (unit === 'pct') {
    if (hi > 100 && max <= 100) hi = 100;
    if (lo < 0 && min >= 0) lo = 0;
  }
  // A count or percentage never goes below zero when the data does not.
  if (lo < 0 && min >= 0) lo = 0;
  const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
  const ticks: number[] = [];
  // Integer multiples of the step: no floating drift in the labels (0.1 + 0.2).
  for (let k = Math.round(lo / step); k * step <= hi + step / 1e6; k++) ticks.push(k * step);
  if (ticks[0] !== lo) ticks.unshift(lo);
  if (ticks.at(-1) !== hi) ticks.push(hi);
  return { lo, hi, ticks: [...new Set(ticks.map((t) => Number(t.toFixed(decimals))))], decimals };
}

/** A tick value as its label: the axis's decimals, thousands grouped ("1,250", "99.5"). */
export function tickLabel(v: number, decimals: number): string {
  const s = v.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
  return s === '-0' ? '0' : s;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "Nov 21": a UTC day as the time axis names it. */
export function shortUtcDay(ms: number): string {
  const d = new Date(ms);
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}`;
}

/** Day steps the time axis may take: daily for a week, then multiples a reader counts in. */
const DAY_STEPS = [1, 2, 5, 10, 15, 30] as const;

/**
 * UTC midnights within [from, to], every `step` days, at most `maxLabels` of them. Midnights are
 * picked on epoch-day multiples of the step, so a label never jumps to another day as the grid
 * slides by 2 h between two renders of the same range.
 */
export function dayTicks(from: number, to: number, maxLabels: number): { t: number; label: string }[] {
  const first = Math.ceil(from / DAY_MS);
  const last = Math.floor(to / DAY_MS);
  const days = last - first + 1;
  const step = DAY_STEPS.find((s) => Math.ceil(days / s) <= maxLabels) ?? 30;
  const out: { t: number; label: string }[] = [];
  for (let d = Math.ceil(first / step) * step; d <= last; d += step) {
    out.push({ t: d * DAY_MS, label: shortUtcDay(d * DAY_MS) });
  }
  return out;
}
