import type { TieReason } from './uncertainty.ts';
/** Formats a value in its declared unit for headlines, Markdown and images. */
export function formatValue(value: number, unit: string): string {
  switch (unit) {
    case 'count':
      return Number.isInteger(value)
        ? value.toLocaleString('en-US')
        : value.toLocaleString('en-US', { maximumFractionDigits: 2 });
    case 'pct': {
      const a = Math.abs(value);
      const digits = a >= 10 ? 1 : a >= 1 ? 2 : 3;
      return `${value.toFixed(digits)}%`;
    }
    case 'ms':
      if (Math.abs(value) >= 1000) return `${(value / 1000).toFixed(2)} s`;
      // A head at the head: no lag reads "0 ms", not "0.0 ms".
      if (value === 0) return '0 ms';
      return `${Math.abs(value) >= 10 ? Math.round(value) : value.toFixed(1)} ms`;
    case 'usd':
      return `$${value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
    default:
      return `${value} ${unit}`;
  }
}

/** "A and B", "A, B and C". */
export function listed(xs: readonly string[]): string {
  return xs.length <= 1 ? (xs[0] ?? '') : `${xs.slice(0, -1).join(', ')} and ${xs.at(-1)}`;
}

/**
 * Why a row is tied with the leader, as a reader is told: "within the 0.5-point margin", "most
 * cycles favour Mobula" or "sign test p = 0.41"; with `pairs`, the cycle count is said too ("most
 * of 47 cycles favour Mobula", "sign test p = 0.41, 47 cycles").
 */
export function tieReasonPhrase(
  t: { readonly reason: TieReason; readonly name: string; readonly pValue: number; readonly margin: number },
  unit: string,
  pairs?: number,
): string {
  if (t.reason === 'within-margin') return `within the ${marginPhrase(t.margin, unit)} margin`;
  if (t.reason === 'conflicting')
    return pairs === undefined
      ? `the evidence conflicts: most cycles favour ${t.name}`
      : `the evidence conflicts: most of ${pairs} cycles favour ${t.name}`;
  return `sign test ${formatP(t.pValue)}${pairs === undefined ? '' : `, ${pairs} cycles`}`;
}

/** "p = 0.41"; below 0.001, "p < 0.001": more digits claim a precision the model does not have. */
export function formatP(p: number): string {
  return p < 0.001 ? 'p < 0.001' : `p = ${Number(p.toPrecision(2))}`;
}

/** "0.5-point" for percentages, "2 ms" otherwise: the margin as a reader says it. */
export function marginPhrase(margin: number, unit: string): string {
  return unit === 'pct' ? `${formatValue(margin, 'count')}-point` : formatValue(margin, unit);
}

/**
 * An interval as a reader sees it: "94.1–95.6" for percentages (the value beside it carries the
 * sign), "39–44 ms" when both ends share a unit, "950 ms–1.20 s" when they do not.
 */
export function formatInterval(ci: readonly [number, number], unit: string): string {
  const lo = formatValue(ci[0], unit);
  const hi = formatValue(ci[1], unit);
  if (unit === 'pct') return `${lo.replace(/%$/, '')}–${hi.replace(/%$/, '')}`;
  const suffix = / [a-z]+$/i.exec(hi)?.[0];
  return suffix && lo.endsWith(suffix) ? `${lo.slice(0, -suffix.length)}–${hi}` : `${lo}–${hi}`;
}

/** "94.9% (95% CI 94.1–95.6)": a window p50 never shown without its interval; the value alone without one. */
export function formatWithCi(
  value: number,
  ci: readonly [number, number] | null | undefined,
  unit: string,
): string {
  const v = formatValue(value, unit);
  return ci ? `${v} (95% CI ${formatInterval(ci, unit)})` : v;
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

export function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function longDay(ms: number): string {
  const d = new Date(ms);
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()}`;
}

export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
