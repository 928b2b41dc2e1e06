/**
 * Standalone SVG sparkline of a leader's 24 h series (GET /api/sparkline/{slug}).
 *
 * Orientation: "up means better". When higher is better the largest value sits at the top; when
 * lower is better the y axis is inverted, so the smallest value (e.g. the fastest latency) sits at
 * the top and an improving series always rises. The OG image uses the same convention.
 */

export type SparklineTheme = 'light' | 'dark';

export const SPARKLINE_LIMITS = {
  w: { min: 40, max: 1200, default: 240 },
  h: { min: 20, max: 400, default: 60 },
} as const;

export const SPARKLINE_THEMES: Readonly<Record<SparklineTheme, { stroke: string; background: string }>> = {
  light: { stroke: '#1d2330', background: '#ffffff' },
  dark: { stroke: '#e6e9ef', background: '#10141b' },
};

export interface SparklineParams {
  readonly w: number;
  readonly h: number;
  readonly theme: SparklineTheme;
}

export type SparklineParamsResult = ({ ok: true } & SparklineParams) | { ok: false; message: string };

const NUMERIC_RE = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

function parseDimension(
  name: 'w' | 'h',
  raw: string | undefined,
): { ok: true; value: number } | { ok: false; message: string } {
  const lim = SPARKLINE_LIMITS[name];
  if (raw === undefined) return { ok: true, value: lim.default };
  if (!NUMERIC_RE.test(raw.trim())) {
    return { ok: false, message: `${name} must be a number between ${lim.min} and ${lim.max}` };
  }
  // Out-of-range numbers are clamped rather than refused: embeds keep working at the limits.
  const n = Math.floor(Number(raw));
  return { ok: true, value: Math.min(lim.max, Math.max(lim.min, n)) };
}

/** Validates `w`, `h` and `theme`; absent values take the defaults, numbers are floored and clamped. */
export function parseSparklineParams(
  query: Readonly<Record<string, string | undefined>>,
): SparklineParamsResult {
  const w = parseDimension('w', query.w);
  if (!w.ok) return w;
  const h = parseDimension('h', query.h);
  if (!h.ok) return h;
  const theme = query.theme ?? 'light';
  if (theme !== 'light' && theme !== 'dark') {
    return { ok: false, message: 'theme must be "light" or "dark"' };
  }
  return { ok: true, w: w.value, h: h.value, theme };
}

/** Rounds to 2 decimals without trailing zeros, so output is compact and stable. */
function num(n: number): string {
  const r = Math.round(n * 100) / 100;
  return Object.is(r, -0) ? '0' : String(r);
}

/**
 * Polyline coordinates for `points` in a `width`×`height` box with `pad` on every side, oriented
 * so that better values sit higher. Non-finite points are dropped. Returns [] for fewer than 2 points.
 */
export function sparklineCoords(
  points: readonly number[],
  width: number,
  height: number,
  pad: number,
  higherIsBetter: boolean,
): Array<[number, number]> {
  const vals = points.filter((v) => Number.isFinite(v));
  if (vals.length < 2) return [];
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const v of vals) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const drawW = width - 2 * pad;
  const drawH = height - 2 * pad;
  const step = drawW / (vals.length - 1);
  const range = max - min;
  return vals.map((v, i) => {
    // A flat series is drawn at mid height rather than pinned to an edge.
    const norm = range === 0 ? 0.5 : (v - min) / range;
    const better = higherIsBetter ? norm : 1 - norm;
    return [pad + i * step, pad + drawH - better * drawH];
  });
}

export function coordsToString(coords: ReadonlyArray<readonly [number, number]>): string {
  return coords.map(([x, y]) => `${num(x)},${num(y)}`).join(' ');
}

/** Escapes XML text/attribute content and drops characters XML 1.0 forbids even when escaped. */
export function escapeXml(s: string): string {
  return (
    s
      // biome-ignore lint/suspicious/noControlCharactersInRegex: removing the characters XML forbids
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
      .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;')
  );
}

export interface SparklineInput {
  readonly points: readonly number[];
  readonly width: number;
  readonly height: number;
  readonly theme: SparklineTheme;
  readonly higherIsBetter: boolean;
  readonly title: string;
  readonly leaderName: string | null;
}

export function sparklineLabel(title: string, leaderName: string | null): string {
  return leaderName ? `${title} 24h sparkline (${leaderName})` : `${title} 24h sparkline`;
}

/** A self-contained SVG document (no external references), deterministic for the same input. */
export function renderSparklineSvg(input: SparklineInput): string {
  const { width: w, height: h } = input;
  const colors = SPARKLINE_THEMES[input.theme];
  const strokeWidth = Math.max(1, Math.round(Math.min(w, h) / 40));
  // Keep round caps inside the box even for thick strokes.
  const pad = Math.max(4, Math.ceil(strokeWidth / 2) + 2);
  const label = escapeXml(sparklineLabel(input.title, input.leaderName));
  const coords = sparklineCoords(input.points, w, h, pad, input.higherIsBetter);
  const line =
    coords.length >= 2
      ? `<polyline points="${coordsToString(coords)}" fill="none" stroke="${colors.stroke}" stroke-width="${strokeWidth}" stroke-linecap="round" stroke-linejoin="round"/>`
      : `<line x1="${pad}" y1="${num(h / 2)}" x2="${w - pad}" y2="${num(h / 2)}" stroke="${colors.stroke}" stroke-width="${strokeWidth}" stroke-dasharray="${2 * strokeWidth} ${3 * strokeWidth}" stroke-opacity="0.5"/>`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}" role="img" aria-label="${label}">`,
    `<title>${label}</title>`,
    `<rect width="${w}" height="${h}" fill="${colors.background}"/>`,
    line,
    '</svg>',
    '',
  ].join('\n');
}
