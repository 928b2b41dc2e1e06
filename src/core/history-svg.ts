import type { Series } from './api-schemas.ts';
import { dayTicks, tickLabel, valueAxis } from './chart-axes.ts';
import { formatValue, isoTime } from './format.ts';
import type { SeriesRange } from './series.ts';
import { escapeXml, SIMULATED_WORD, SPARKLINE_THEMES } from './sparkline-svg.ts';

/**
 * The history chart of a benchmark view (the benchmark page's History section and GET
 * /api/chart/{slug}): every ranked provider's /api/series values on the range's grid, one line each
 * in the provider's stable colour. Pure and deterministic: the same series gives the same bytes.
 *
 * Gaps stay gaps: a null point (the Stat had no value there) breaks the line, and a measured point
 * between two nulls is drawn as a dot, never joined across the missing instant. The value axis is
 * drawn the usual way up (bigger values higher) with round ticks, its ends labelled, and a caption
 * says which direction is better. Sizes are in viewBox units: the SVG scales to its container, and at
 * 480 units wide a 390 px phone (about 350 px of content) shows 15-unit text at about 11 px.
 */

/** Ranges a chart draws: the /api/series grids of a week and more (24 h is the sparkline's). */
export const CHART_RANGES = ['7d', '30d', '90d'] as const satisfies readonly SeriesRange[];
export type ChartRange = (typeof CHART_RANGES)[number];
export const DEFAULT_CHART_RANGE: ChartRange = '7d';

export function isChartRange(s: string): s is ChartRange {
  return (CHART_RANGES as readonly string[]).includes(s);
}

export const CHART_RANGE_WORDS: Readonly<Record<ChartRange, string>> = {
  '7d': 'last 7 days',
  '30d': 'last 30 days',
  '90d': 'last 90 days',
};

export type HistoryChartInput = Pick<
  Series,
  | 'slug'
  | 'title'
  | 'metric'
  | 'unit'
  | 'higherIsBetter'
  | 'stepMs'
  | 'timestamps'
  | 'providers'
  | 'simulated'
> & { readonly range: ChartRange };

const W = 480;
const FONT = 16;
const TICK_FONT = 15;
const PLOT = { top: 52, height: 190, right: 14 } as const;
const LEGEND = { columns: 2, row: 24, swatch: 18 } as const;
const INK = SPARKLINE_THEMES.light.stroke;
const MUTED = '#5d6675';
const GRID = '#e4e7ec';
const FAMILY = 'system-ui,-apple-system,Segoe UI,Roboto,sans-serif';
/** About 0.6 em per character of system-ui digits and letters: enough to keep labels apart. */
const CHAR = 0.6;

/** Rounds to 1 decimal: a tenth of a viewBox unit is below a pixel at any width the page allows. */
function num(n: number): string {
  const r = Math.round(n * 10) / 10;
  return Object.is(r, -0) ? '0' : String(r);
}

/** "%" for a percentage, the unit's own name otherwise ("ms", "count"). */
export function unitName(unit: string): string {
  return unit === 'pct' ? '%' : unit;
}

/** Runs of consecutive non-null indices: a line is drawn within a run, never across a gap. */
export function measuredRuns(values: readonly (number | null)[]): number[][] {
  const runs: number[][] = [];
  let run: number[] = [];
  values.forEach((v, i) => {
    if (v === null || !Number.isFinite(v)) {
      if (run.length) runs.push(run);
      run = [];
    } else run.push(i);
  });
  if (run.length) runs.push(run);
  return runs;
}

/** "2 h", "6 h", "1 day": the grid step as the caption says it. */
function stepWords(stepMs: number): string {
  const h = stepMs / 3_600_000;
  return h % 24 === 0 ? (h === 24 ? '1 day' : `${h / 24} days`) : `${h} h`;
}

function text(x: number, y: number, s: string, attrs = ''): string {
  return `<text x="${num(x)}" y="${num(y)}"${attrs ? ` ${attrs}` : ''}>${escapeXml(s)}</text>`;
}

/** A name that fits `room` units at the legend's size, cut with an ellipsis. */
function fitName(s: string, room: number): string {
  const max = Math.max(4, Math.floor(room / (CHAR * FONT)));
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

/** Words for screen readers and the <desc>: the span, the grid, each provider's latest value. */
function description(input: HistoryChartInput, better: string): string {
  const t = input.timestamps;
  const from = t[0];
  const to = t.at(-1);
  const span =
    from === undefined || to === undefined
      ? ''
      : `from ${isoTime(from).slice(0, 16)} to ${isoTime(to).slice(0, 16)} UTC, one point every ${stepWords(input.stepMs)} (${t.length} points)`;
  const latest = input.providers.map((p) => {
    const last = [...p.values].reverse().find((v) => v !== null);
    return last === undefined || last === null
      ? `${p.name}: no value`
      : `${p.name}: ${formatValue(last, input.unit)} at the latest point with one`;
  });
  const who = latest.length ? ` ${latest.join('; ')}.` : ' No ranked provider in this view.';
  return `${input.metric} (${unitName(input.unit)}) of each ranked provider over the ${CHART_RANGE_WORDS[input.range]}${span ? `, ${span}` : ''}. ${better}. Gaps are left where no value was published.${who}`;
}

/** A self-contained SVG document (no external reference, no script). */
export function renderHistorySvg(input: HistoryChartInput): string {
  const unit = input.unit;
  const better = input.higherIsBetter ? 'Higher is better' : 'Lower is better';
  const ts = input.timestamps;
  const t0 = ts[0] ?? 0;
  const t1 = ts.at(-1) ?? t0;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const p of input.providers)
    for (const v of p.values) {
      if (v === null || !Number.isFinite(v)) continue;
      if (v < min) min = v;
      if (v > max) max = v;
    }
  const hasData = min <= max;
  const axis = hasData ? valueAxis(min, max, unit) : null;
  const labels = axis ? axis.ticks.map((v) => tickLabel(v, axis.decimals)) : [];
  // The tick labels and the unit above them sit in a left gutter as wide as the longest of them.
  const widest = Math.max(unitName(unit).length, ...labels.map((l) => l.length));
  const left = Math.max(34, Math.ceil(widest * CHAR * TICK_FONT) + 12);
  const plotW = W - left - PLOT.right;
  const bottom = PLOT.top + PLOT.height;
  const xOf = (t: number) => left + (t1 > t0 ? ((t - t0) / (t1 - t0)) * plotW : plotW);
  const yOf = (v: number) =>
    axis ? bottom - ((v - axis.lo) / (axis.hi - axis.lo || 1)) * PLOT.height : bottom - PLOT.height / 2;

  const out: string[] = [];
  // Header: what is drawn and in which unit, which way is better, and a visible "Simulated".
  out.push(
    text(
      0,
      18,
      // Cut before it reaches the "Simulated" on its right (bold text is about 0.65 em a character).
      fitName(
        `${input.metric} (${unitName(unit)})`,
        W - (input.simulated ? SIMULATED_WORD.length * FONT * 0.65 + 12 : 0),
      ),
      `font-size="${FONT}" font-weight="700" fill="${INK}"`,
    ),
  );
  if (input.simulated) {
    out.push(
      text(
        W,
        18,
        SIMULATED_WORD,
        `font-size="${FONT}" font-weight="700" fill="${SPARKLINE_THEMES.light.simulated}" text-anchor="end" data-testid="chart-simulated"`,
      ),
    );
  }
  out.push(text(left, PLOT.top - 12, better, `font-size="${FONT}" fill="${INK}" data-testid="chart-better"`));
  // The y axis title: its unit, above the tick labels.
  out.push(
    text(
      left - 8,
      PLOT.top - 12,
      unitName(unit),
      `font-size="${TICK_FONT}" fill="${MUTED}" text-anchor="end" data-testid="chart-unit"`,
    ),
  );

  // Grid and value ticks.
  const grid: string[] = [];
  if (axis) {
    axis.ticks.forEach((v, i) => {
      const y = yOf(v);
      grid.push(`<line x1="${left}" y1="${num(y)}" x2="${W - PLOT.right}" y2="${num(y)}"/>`);
      out.push(
        text(
          left - 8,
          y + TICK_FONT * 0.35,
          labels[i] ?? '',
          `font-size="${TICK_FONT}" fill="${MUTED}" text-anchor="end" class="ytick"`,
        ),
      );
    });
  }
  // Time ticks at UTC midnights, as many as fit without touching ("Nov 21" is ~6 characters).
  const maxLabels = Math.max(2, Math.floor(plotW / (7 * CHAR * TICK_FONT + 8)));
  let labelledTo = Number.NEGATIVE_INFINITY;
  for (const d of dayTicks(t0, t1, maxLabels)) {
    const x = xOf(d.t);
    grid.push(`<line x1="${num(x)}" y1="${PLOT.top}" x2="${num(x)}" y2="${bottom}"/>`);
    // Labels near the ends are anchored inside the chart rather than cut by its edge.
    const half = (d.label.length * CHAR * TICK_FONT) / 2;
    const anchor = x - half < left - 8 ? 'start' : x + half > W ? 'end' : 'middle';
    // An end-anchored label moves left by half its width and could run into its neighbour: then
    // the gridline stays and the label is left out (two dates printed over each other read as one).
    const from = anchor === 'start' ? x : anchor === 'end' ? x - 2 * half : x - half;
    if (from < labelledTo + 4) continue;
    labelledTo = from + 2 * half;
    out.push(
      text(
        x,
        bottom + 18,
        d.label,
        `font-size="${TICK_FONT}" fill="${MUTED}" text-anchor="${anchor}" class="xtick"`,
      ),
    );
  }
  out.push(
    text(
      left,
      bottom + 38,
      `Date (UTC) · ${CHART_RANGE_WORDS[input.range]}, a point every ${stepWords(input.stepMs)}`,
      `font-size="${TICK_FONT}" fill="${MUTED}" data-testid="chart-time"`,
    ),
  );

  // One group per provider: polylines within measured runs, a dot for a lone measured point.
  const lines: string[] = [];
  for (const p of input.providers) {
    const parts = measuredRuns(p.values).map((run) => {
      if (run.length === 1) {
        const i = run[0] as number;
        return `<circle cx="${num(xOf(ts[i] ?? t0))}" cy="${num(yOf(p.values[i] as number))}" r="3" fill="${escapeXml(p.color)}" stroke="none"/>`;
      }
      const pts = run.map((i) => `${num(xOf(ts[i] ?? t0))},${num(yOf(p.values[i] as number))}`).join(' ');
      return `<polyline points="${pts}"/>`;
    });
    lines.push(
      `<g data-provider="${escapeXml(p.slug)}" stroke="${escapeXml(p.color)}" fill="none" stroke-width="2.5" stroke-linejoin="round" stroke-linecap="round">${parts.join('')}</g>`,
    );
  }
  if (!hasData) {
    const why = input.providers.length === 0 ? 'No ranked provider in this view' : 'No value in this range';
    out.push(
      text(
        left + plotW / 2,
        PLOT.top + PLOT.height / 2,
        why,
        `font-size="${FONT}" fill="${MUTED}" text-anchor="middle"`,
      ),
    );
  }

  // Legend below the plot: a swatch of the provider's colour, its name in dark text.
  const legendTop = bottom + 64;
  const colW = W / LEGEND.columns;
  const legend = input.providers.map((p, k) => {
    const x = (k % LEGEND.columns) * colW;
    const y = legendTop + Math.floor(k / LEGEND.columns) * LEGEND.row;
    return `<g class="legend" data-provider="${escapeXml(p.slug)}"><rect x="${num(x)}" y="${num(y - 9)}" width="${LEGEND.swatch}" height="6" rx="3" fill="${escapeXml(p.color)}"/>${text(x + LEGEND.swatch + 6, y, fitName(p.name, colW - LEGEND.swatch - 12), `font-size="${FONT}" fill="${INK}"`)}</g>`;
  });
  const rows = Math.ceil(input.providers.length / LEGEND.columns);
  // Room below the last baseline for descenders (about 0.25 em).
  const height = legendTop + Math.max(0, rows - 1) * LEGEND.row + Math.ceil(FONT * 0.25) + 6;

  const simulated = input.simulated ? `${SIMULATED_WORD} data: ` : '';
  const title = `${simulated}${input.title}, ${CHART_RANGE_WORDS[input.range]}`;
  const id = `chart-${input.slug}`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${height}" width="${W}" height="${height}" role="img" aria-labelledby="${id}-title ${id}-desc" font-family="${FAMILY}">`,
    `<title id="${id}-title">${escapeXml(title)}</title>`,
    `<desc id="${id}-desc">${escapeXml(description(input, better))}</desc>`,
    `<rect width="${W}" height="${height}" fill="#ffffff"/>`,
    `<g stroke="${GRID}" stroke-width="1">${grid.join('')}</g>`,
    `<rect x="${left}" y="${PLOT.top}" width="${plotW}" height="${PLOT.height}" fill="none" stroke="#c9ced6"/>`,
    ...out,
    ...lines,
    ...legend,
    '</svg>',
    '',
  ].join('\n');
}
