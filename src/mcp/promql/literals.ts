import { PromQueryError } from './errors.ts';

const UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
  y: 31_536_000_000,
};

/** `1h30m`-style duration (or plain seconds, as Prometheus 3 allows) in milliseconds. */
export function parseDurationMs(text: string): number {
  const t = text.trim();
  if (/^\d+(\.\d+)?$/.test(t)) return Math.round(Number(t) * 1000);
  if (!/^(\d+(ms|s|m|h|d|w|y))+$/.test(t)) throw new PromQueryError('parse', `bad duration "${text}"`);
  let total = 0;
  for (const m of t.matchAll(/(\d+)(ms|s|m|h|d|w|y)/g)) {
    total += Number(m[1]) * (UNIT_MS[m[2] as string] as number);
  }
  return total;
}

/** A PromQL number literal: decimal, hex, Inf/NaN, or a duration read as seconds. */
export function parseNumber(text: string): number {
  const t = text.trim();
  const sign = t.startsWith('-') ? -1 : 1;
  const body = t.replace(/^[+-]/, '');
  if (/^inf$/i.test(body)) return sign * Number.POSITIVE_INFINITY;
  if (/^nan$/i.test(body)) return Number.NaN;
  if (/^0x[0-9a-f]+$/i.test(body)) return sign * Number.parseInt(body.slice(2), 16);
  if (/^(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(body)) return sign * Number(body);
  if (/^(\d+(ms|s|m|h|d|w|y))+$/.test(body)) return (sign * parseDurationMs(body)) / 1000;
  throw new PromQueryError('parse', `bad number "${text}"`);
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  '"': '"',
  "'": "'",
};

/** A PromQL string literal ("…", '…' with Go escapes, or `raw`) to its value. */
export function parseString(text: string): string {
  const q = text[0];
  if (text.length < 2 || text[text.length - 1] !== q) throw new PromQueryError('parse', `bad string ${text}`);
  const inner = text.slice(1, -1);
  if (q === '`') return inner;
  if (q !== '"' && q !== "'") throw new PromQueryError('parse', `bad string ${text}`);
  let out = '';
  for (let i = 0; i < inner.length; i++) {
    const ch = inner[i] as string;
    if (ch !== '\\') {
      out += ch;
      continue;
    }
    const e = inner[i + 1];
    if (e === undefined) throw new PromQueryError('parse', `bad escape in ${text}`);
    const simple = SIMPLE_ESCAPES[e];
    if (simple !== undefined) {
      out += simple;
      i += 1;
      continue;
    }
    const hexLen = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
    if (hexLen > 0) {
      const hex = inner.slice(i + 2, i + 2 + hexLen);
      if (!new RegExp(`^[0-9a-fA-F]{${hexLen}}$`).test(hex))
        throw new PromQueryError('parse', `bad escape in ${text}`);
      out += String.fromCodePoint(Number.parseInt(hex, 16));
      i += 1 + hexLen;
      continue;
    }
    const oct = inner.slice(i + 1, i + 4);
    if (/^[0-7]{3}$/.test(oct)) {
      out += String.fromCharCode(Number.parseInt(oct, 8));
      i += 3;
      continue;
    }
    throw new PromQueryError('parse', `unknown escape \\${e} in ${text}`);
  }
  return out;
}
