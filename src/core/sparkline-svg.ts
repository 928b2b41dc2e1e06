import { formatValue } from './format.ts';
import { sparklineSegments } from './series.ts';

/**
 * Standalone SVG sparkline of a leader's 24 h series (GET /api/sparkline/{slug}).
 *
 * Orientation: "up means better". When higher is better the largest value sits at the top; when
 * lower is better the y axis is inverted, so the smallest value (e.g. the lowest latency) sits at
 * the top and an improving series always rises. The OG image uses the same convention.
 *
 * Scale: the series' best and worst values are labelled at their heights, and the y-domain never
 * stretches a change smaller than SPARKLINE_MIN_SPAN to the full height.
 *
 * Carried points (Stat.sparklineGaps: no value there, the previous one carried forward) are drawn
 * dashed, measured stretches solid, so a chart never shows a carried value as a measurement.
 */

export type SparklineTheme = 'light' | 'dark';

export const SPARKLINE_LIMITS = {
  w: { min: 40, max: 1200, default: 240 },
  h: { min: 20, max: 400, default: 60 },
} as const;

export const SPARKLINE_THEMES: Readonly<
  Record<SparklineTheme, { stroke: string; background: string; simulated: string }>
> = {
  light: { stroke: '#1d2330', background: '#ffffff', simulated: '#b42318' },
  dark: { stroke: '#e6e9ef', background: '#10141b', simulated: '#f97066' },
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
 * The smallest change drawn at full height: 1 point for a percentage, else 2% of the value (at
 * least 1 for a count). A smaller wobble (99.7–100%) is drawn as the small move it is, not as a
 * crash from top to bottom.
 */
export const SPARKLINE_MIN_SPAN = { pctPoints: 1, relative: 0.02, countAbsolute: 1 } as const;

export function sparklineMinSpan(unit: string, min: number, max: number): number {
  if (unit === 'pct') return SPARKLINE_MIN_SPAN.pctPoints;
  const rel = SPARKLINE_MIN_SPAN.relative * Math.max(Math.abs(min), Math.abs(max));
  return unit === 'count' ? Math.max(rel, SPARKLINE_MIN_SPAN.countAbsolute) : rel > 0 ? rel : 1;
}

/** The y-domain of a series and the values its labels show. */
export interface SparklineScale {
  /** Smallest and largest finite value of the series. */
  readonly min: number;
  readonly max: number;
  /** The domain drawn: [min, max] widened symmetrically to the minimum span (kept in 0–100 for pct). */
  readonly lo: number;
  readonly hi: number;
  readonly flat: boolean;
}

/** Null for a series without a finite value. */
export function sparklineScale(points: readonly number[], unit = 'count'): SparklineScale | null {
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const v of points) {
    if (!Number.isFinite(v)) continue;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  if (min > max) return null;
  const span = sparklineMinSpan(unit, min, max);
  let lo = min;
  let hi = max;
  if (max - min < span) {
    const mid = (min + max) / 2;
    lo = mid - span / 2;
    hi = mid + span / 2;
    // A percentage never leaves 0–100: a series near 100% keeps its headroom below.
    if (unit === 'pct' && hi > 100 && max <= 100) [lo, hi] = [Math.max(0, 100 - span), 100];
    if (unit === 'pct' && lo < 0 && min >= 0) [lo, hi] = [0, Math.min(100, span)];
  }
  return { min, max, lo, hi, flat: min === max };
}

/** The y of `v` in a box of `height` with `pad`, better values higher. */
function yOf(v: number, scale: SparklineScale, height: number, pad: number, higherIsBetter: boolean): number {
  const drawH = height - 2 * pad;
  const norm = (v - scale.lo) / (scale.hi - scale.lo);
  return pad + drawH - (higherIsBetter ? norm : 1 - norm) * drawH;
}

/**
 * Polyline coordinates for `points` in a `width`×`height` box with `pad` on every side, oriented
 * so that better values sit higher, on the domain of sparklineScale (a change smaller than the
 * minimum span never fills the height; a flat series sits mid-height). Non-finite points are
 * dropped. Returns [] for fewer than 2 points.
 */
export function sparklineCoords(
  points: readonly number[],
  width: number,
  height: number,
  pad: number,
  higherIsBetter: boolean,
  unit = 'count',
): Array<[number, number]> {
  const vals = points.filter((v) => Number.isFinite(v));
  const scale = sparklineScale(vals, unit);
  if (vals.length < 2 || !scale) return [];
  const step = (width - 2 * pad) / (vals.length - 1);
  return vals.map((v, i) => [pad + i * step, yOf(v, scale, height, pad, higherIsBetter)]);
}

/**
 * Where the scale labels go: the series' best and worst values at their own heights (a flat
 * series has one label), nudged apart so they never overlap. `y` is the text baseline.
 */
export function sparklineLabels(
  points: readonly number[],
  height: number,
  pad: number,
  higherIsBetter: boolean,
  unit: string,
  fontSize: number,
): Array<{ value: number; text: string; y: number }> {
  const scale = sparklineScale(points, unit);
  if (!scale) return [];
  const place = (v: number) => yOf(v, scale, height, pad, higherIsBetter);
  const best = higherIsBetter ? scale.max : scale.min;
  const worst = higherIsBetter ? scale.min : scale.max;
  const half = fontSize * 0.35;
  const clampY = (y: number) => Math.min(height - 2, Math.max(fontSize, y + half));
  if (scale.flat) return [{ value: best, text: formatValue(best, unit), y: clampY(place(best)) }];
  let top = clampY(place(best));
  let bottom = clampY(place(worst));
  // Keep a line of space between the two labels.
  if (bottom - top < fontSize + 1) {
    const mid = (top + bottom) / 2;
    top = Math.max(fontSize, mid - (fontSize + 1) / 2);
    bottom = Math.min(height - 2, top + fontSize + 1);
  }
  return [
    { value: best, text: formatValue(best, unit), y: top },
    { value: worst, text: formatValue(worst, unit), y: bottom },
  ];
}

export function coordsToString(coords: ReadonlyArray<readonly [number, number]>): string {
  return coords.map(([x, y]) => `${num(x)},${num(y)}`).join(' ');
}

/** A stretch of the drawn line: `carried` when it touches a carried point (drawn dashed). */
export interface SparklineRun {
  readonly coords: ReadonlyArray<readonly [number, number]>;
  readonly carried: boolean;
}

/**
 * Splits `coords` (sparklineCoords of `points`) into solid and carried runs by sparklineSegments;
 * runs share their end points, so the line stays continuous. `gaps` index `points`: a non-finite
 * point is dropped from the coordinates, so the gaps are re-indexed onto the kept points. Without
 * gaps the result is one solid run of every coordinate (the drawing of a gap-free series).
 */
export function sparklineRuns(
  points: readonly number[],
  coords: ReadonlyArray<readonly [number, number]>,
  gaps: readonly number[] = [],
): SparklineRun[] {
  if (coords.length < 2) return [];
  const carried = new Set(gaps);
  const kept: number[] = [];
  let k = 0;
  points.forEach((v, i) => {
    if (!Number.isFinite(v)) return;
    if (carried.has(i)) kept.push(k);
    k++;
  });
  return sparklineSegments(coords.length, kept).map((s) => ({
    coords: coords.slice(s.from, s.to + 1),
    carried: s.carried,
  }));
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
  /** The benchmark unit, for the scale labels and the minimum span (default count). */
  readonly unit?: string;
  /** Indices of carried points (Stat.sparklineGaps), drawn dashed; absent or empty: all solid. */
  readonly gaps?: readonly number[];
  /** Simulated data: said in the title and, where there is room, in a visible word. */
  readonly simulated?: boolean;
}

export function sparklineLabel(title: string, leaderName: string | null): string {
  return leaderName ? `${title} 24h sparkline (${leaderName})` : `${title} 24h sparkline`;
}

/** Labels need room: below this size the scale is only in the title (read by screen readers). */
const LABEL_MIN = { w: 120, h: 36 } as const;

export const SIMULATED_WORD = 'Simulated';

/**
 * The visible "Simulated" of an embed at w ≥ 120 (LABEL_MIN.w), so a chart pasted into a page
 * cannot pass as measured. It sits top left inside the plot, clear of the scale gutter: its size
 * shrinks to fit the plot (about 0.6 em per character, never below 7 px), and a halo of the
 * background keeps it legible over the line.
 */
function simulatedText(
  plotW: number,
  pad: number,
  fontSize: number,
  colors: { background: string; simulated: string },
): string {
  const fit = Math.floor((plotW - 2 * pad) / (0.6 * SIMULATED_WORD.length));
  const size = Math.max(7, Math.min(fontSize, fit));
  return `<text x="${pad}" y="${size + 1}" font-family="system-ui,-apple-system,Segoe UI,Roboto,sans-serif" font-size="${size}" font-weight="700" fill="${colors.simulated}" stroke="${colors.background}" stroke-width="3" stroke-linejoin="round" paint-order="stroke">${SIMULATED_WORD}</text>`;
}

/** A self-contained SVG document (no external references), deterministic for the same input. */
export function renderSparklineSvg(input: SparklineInput): string {
  const { width: w, height: h } = input;
  const unit = input.unit ?? 'count';
  const colors = SPARKLINE_THEMES[input.theme];
  const strokeWidth = Math.max(1, Math.round(Math.min(w, h) / 40));
  // Keep round caps inside the box even for thick strokes.
  const pad = Math.max(4, Math.ceil(strokeWidth / 2) + 2);
  const finite = input.points.filter((v) => Number.isFinite(v));
  const scale = sparklineScale(finite, unit);
  const fontSize = Math.min(14, Math.max(9, Math.round(h / 6)));
  const labels =
    w >= LABEL_MIN.w && h >= LABEL_MIN.h
      ? sparklineLabels(finite, h, pad, input.higherIsBetter, unit, fontSize)
      : [];
  // The labels sit in a right-hand gutter as wide as the longest one (about 0.6 em per character).
  const gutter = labels.length
    ? Math.ceil(Math.max(...labels.map((l) => l.text.length)) * fontSize * 0.6) + 6
    : 0;
  const plotW = w - gutter;
  const range = scale
    ? scale.flat
      ? ` (flat at ${formatValue(scale.min, unit)})`
      : ` (${formatValue(scale.min, unit)} to ${formatValue(scale.max, unit)})`
    : '';
  const coords = sparklineCoords(finite, plotW, h, pad, input.higherIsBetter, unit);
  const runs = sparklineRuns(input.points, coords, input.gaps);
  const dashed = runs.some((r) => r.carried) ? ', dashed where no value was measured' : '';
  const simulated = input.simulated ? `${SIMULATED_WORD} data: ` : '';
  // Up means better on every chart; a lower-is-better one says so, since its axis is inverted.
  const lower = input.higherIsBetter ? '' : ', lower is better (drawn inverted: up means better)';
  const label = escapeXml(
    `${simulated}${sparklineLabel(input.title, input.leaderName)}${range}${lower}${dashed}`,
  );
  const stroke = `fill="none" stroke="${colors.stroke}" stroke-width="${strokeWidth}" stroke-linecap="round" stroke-linejoin="round"`;
  // Carried runs: round caps lengthen each dash by one stroke width, so they show 3 widths on, 2 off.
  const dash = `stroke-dasharray="${2 * strokeWidth} ${3 * strokeWidth}"`;
  const lines =
    runs.length > 0
      ? runs.map(
          (r) => `<polyline points="${coordsToString(r.coords)}" ${stroke}${r.carried ? ` ${dash}` : ''}/>`,
        )
      : [
          `<line x1="${pad}" y1="${num(h / 2)}" x2="${plotW - pad}" y2="${num(h / 2)}" stroke="${colors.stroke}" stroke-width="${strokeWidth}" ${dash} stroke-opacity="0.5"/>`,
        ];
  const text = labels.map(
    (l) =>
      `<text x="${w - 2}" y="${num(l.y)}" text-anchor="end" font-family="system-ui,-apple-system,Segoe UI,Roboto,sans-serif" font-size="${fontSize}" fill="${colors.stroke}" fill-opacity="0.75">${escapeXml(l.text)}</text>`,
  );
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}" role="img" aria-label="${label}">`,
    `<title>${label}</title>`,
    `<rect width="${w}" height="${h}" fill="${colors.background}"/>`,
    ...lines,
    ...text,
    ...(input.simulated && w >= LABEL_MIN.w ? [simulatedText(plotW, pad, fontSize, colors)] : []),
    '</svg>',
    '',
  ].join('\n');
}
