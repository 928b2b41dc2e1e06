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
