/**
 * The history chart's SVG (src/core/history-svg.ts, issue 25 part 2): gaps stay gaps, the axes
 * carry the unit and UTC dates, the caption says which way is better, the legend uses each
 * provider's colour, simulated data says so. Crafted series, so every expectation is derived here.
 */
import { describe, expect, it } from 'vitest';
import { dayTicks, shortUtcDay, valueAxis } from '../../src/core/chart-axes.ts';
import { type HistoryChartInput, measuredRuns, renderHistorySvg } from '../../src/core/history-svg.ts';
import { SERIES_GRIDS, seriesGrid } from '../../src/core/series.ts';
import { H, NOW } from '../helpers/fixture.ts';

const DAY = 24 * H;
const grid = seriesGrid('7d', NOW);
const wave = (k: number) => grid.map((_, i) => 40 + 10 * Math.sin(i / 7 + k));

function input(over: Partial<HistoryChartInput> = {}): HistoryChartInput {
  return {
    slug: 'rpc-latency',
    title: 'Fastest RPC provider',
    metric: 'RPC latency',
    unit: 'ms',
    higherIsBetter: false,
    range: '7d',
    stepMs: SERIES_GRIDS['7d'].stepMs,
    timestamps: grid,
    providers: [
      { slug: 'alchemy', name: 'Alchemy', color: '#4e79a7', values: wave(0) },
      { slug: 'infura', name: 'Infura', color: '#f28e2b', values: wave(2) },
    ],
    simulated: false,
    ...over,
  };
}

/** The drawn parts of one provider: each polyline's points and each dot, in document order. */
function partsOf(svg: string, slug: string) {
  const g = new RegExp(`<g data-provider="${slug}" stroke="[^"]*"[^>]*>(.*?)</g>`).exec(svg)?.[1] ?? '';
  const lines = [...g.matchAll(/<polyline points="([^"]*)"/g)].map((m) =>
    (m[1] ?? '').split(' ').map((p) => p.split(',').map(Number) as [number, number]),
  );
  const dots = [...g.matchAll(/<circle cx="([^"]*)" cy="([^"]*)"/g)].map((m) => [Number(m[1]), Number(m[2])]);
  return { lines, dots };
}

const texts = (svg: string, cls: string) =>
  [...svg.matchAll(new RegExp(`<text [^>]*class="${cls}"[^>]*>([^<]*)</text>`, 'g'))].map((m) => m[1]);

describe('history chart SVG', () => {
  it('gaps stay gaps: a line per measured run, a dot for a lone point, nothing across a null', () => {
    const values: (number | null)[] = wave(0);
    // Runs 0–9, 11–39, a lone point at 41, then 43 to the end; leading and inner nulls elsewhere.
    for (const i of [10, 40, 42]) values[i] = null;
    const svg = renderHistorySvg(
      input({ providers: [{ slug: 'alchemy', name: 'Alchemy', color: '#4e79a7', values }] }),
    );
    const { lines, dots } = partsOf(svg, 'alchemy');
    expect(measuredRuns(values).map((r) => r.length)).toEqual([10, 29, 1, grid.length - 43]);
    expect(lines.map((l) => l.length)).toEqual([10, 29, grid.length - 43]);
    expect(dots).toHaveLength(1);
    // No segment spans a missing instant: consecutive vertices are one grid step apart.
    const step = (lines[0]?.[1]?.[0] ?? 0) - (lines[0]?.[0]?.[0] ?? 0);
    for (const l of lines)
      for (let k = 1; k < l.length; k++) expect((l[k]?.[0] ?? 0) - (l[k - 1]?.[0] ?? 0)).toBeCloseTo(step, 0);
    // The dot sits between the two runs around it.
    expect(dots[0]?.[0]).toBeGreaterThan(lines[1]?.at(-1)?.[0] ?? Infinity);
    expect(dots[0]?.[0]).toBeLessThan(lines[2]?.[0]?.[0] ?? -Infinity);
    // Bigger values are higher (smaller y): the drawn order follows the values.
    const l1 = lines[1] ?? [];
    const v1 = values.slice(11, 40) as number[];
    for (let k = 1; k < l1.length; k++)
      expect(Math.sign((l1[k - 1]?.[1] ?? 0) - (l1[k]?.[1] ?? 0))).toBe(
        Math.sign((v1[k] ?? 0) - (v1[k - 1] ?? 0)),
      );
  });

  it('the axes carry the unit and UTC dates; the scale is labelled at both ends', () => {
    const svg = renderHistorySvg(input());
    expect(svg).toContain('>RPC latency (ms)</text>');
    expect(/data-testid="chart-unit">([^<]*)</.exec(svg)?.[1]).toBe('ms');
    expect(/data-testid="chart-time">([^<]*)</.exec(svg)?.[1]).toMatch(
      /^Date \(UTC\) · last 7 days, a point every 2 h$/,
    );
    // Labels name UTC midnights of the week (as many as fit in 480 units): derived from the grid.
    const midnights: string[] = [];
    for (let t = Math.ceil((grid[0] ?? 0) / DAY) * DAY; t <= NOW; t += DAY) midnights.push(shortUtcDay(t));
    const x = texts(svg, 'xtick');
    expect(x.length).toBeGreaterThanOrEqual(3);
    expect(x.every((l) => midnights.includes(l ?? ''))).toBe(true);
    // In order, evenly spaced in days.
    const at = x.map((l) => midnights.indexOf(l ?? ''));
    const gaps = new Set(at.slice(1).map((v, k) => v - (at[k] ?? 0)));
    expect(gaps.size).toBe(1);
    expect([...gaps][0]).toBeGreaterThan(0);
    // The lowest and highest ticks enclose every value, and are labelled.
    const y = texts(svg, 'ytick').map((l) => Number((l ?? '').replaceAll(',', '')));
    const all = input().providers.flatMap((p) => p.values as number[]);
    expect(Math.min(...y)).toBeLessThanOrEqual(Math.min(...all));
    expect(Math.max(...y)).toBeGreaterThanOrEqual(Math.max(...all));
    expect(svg).toMatch(
      /<desc id="chart-rpc-latency-desc">[^<]*2026-11-13T12:00 to 2026-11-20T12:00 UTC[^<]*85 points/,
    );
  });

  it('the unit label fits left of the plot even when it is wider than every tick (count)', () => {
    const flat = grid.map(() => 12);
    const svg = renderHistorySvg(
      input({ unit: 'count', providers: [{ slug: 'a', name: 'A', color: '#000000', values: flat }] }),
    );
    const m = /<text x="([^"]+)" [^>]*font-size="(\d+)"[^>]*data-testid="chart-unit">count</.exec(svg);
    // Right-anchored at x: its left edge, at about 0.6 em a character, stays inside the image.
    expect(Number(m?.[1]) - 'count'.length * 0.6 * Number(m?.[2])).toBeGreaterThanOrEqual(0);
  });

  it('says which way is better', () => {
    const caption = (svg: string) => /data-testid="chart-better">([^<]*)</.exec(svg)?.[1];
    expect(caption(renderHistorySvg(input({ higherIsBetter: false })))).toBe('Lower is better');
    expect(caption(renderHistorySvg(input({ higherIsBetter: true, unit: 'pct' })))).toBe('Higher is better');
  });

  it('the legend names each provider in dark text beside a swatch of its colour, the line in the same colour', () => {
    const svg = renderHistorySvg(input());
    const legend = [
      ...svg.matchAll(
        /<g class="legend" data-provider="([^"]+)"><rect [^>]*fill="([^"]+)"\/><text [^>]*fill="([^"]+)">([^<]*)</g,
      ),
    ].map((m) => ({ slug: m[1], swatch: m[2], ink: m[3], name: m[4] }));
    expect(legend.map((l) => [l.slug, l.swatch, l.name])).toEqual(
      input().providers.map((p) => [p.slug, p.color, p.name]),
    );
    expect(new Set(legend.map((l) => l.ink))).toEqual(new Set(['#1d2330']));
    for (const p of input().providers)
      expect(svg).toContain(`<g data-provider="${p.slug}" stroke="${p.color}"`);
  });

  it('simulated data says so, visibly and in the title; measured data does not', () => {
    const sim = renderHistorySvg(input({ simulated: true }));
    expect(sim).toContain('data-testid="chart-simulated">Simulated</text>');
    expect(sim).toMatch(/<title [^>]*>Simulated data: /);
    expect(renderHistorySvg(input())).not.toContain('Simulated');
  });

  it('an empty view says why instead of drawing an empty frame silently', () => {
    expect(renderHistorySvg(input({ providers: [] }))).toContain('>No ranked provider in this view</text>');
    const nulls = grid.map(() => null);
    expect(
      renderHistorySvg(input({ providers: [{ slug: 'a', name: 'A', color: '#000000', values: nulls }] })),
    ).toContain('>No value in this range</text>');
  });

  it('is deterministic and escapes names', () => {
    const odd = input({ providers: [{ slug: 'x', name: 'A & <B>', color: '#123456', values: wave(1) }] });
    expect(renderHistorySvg(odd)).toBe(renderHistorySvg(odd));
    expect(renderHistorySvg(odd)).toContain('A &amp; &lt;B&gt;');
  });
});

describe('chart axes', () => {
  it('value ticks are round, cover the data, keep a percentage within 0–100 and widen a flat series', () => {
    const pct = valueAxis(93.9, 100, 'pct');
    expect(pct.hi).toBe(100);
    expect(pct.lo).toBeLessThanOrEqual(93.9);
    expect(pct.ticks[0]).toBe(pct.lo);
    expect(pct.ticks.at(-1)).toBe(100);
    const flat = valueAxis(12, 12, 'count');
    expect(flat.hi - flat.lo).toBeGreaterThanOrEqual(1);
    expect(flat.ticks.every((t) => Number.isInteger(t))).toBe(true);
    const ms = valueAxis(0.42, 0.47, 'ms');
    expect(ms.decimals).toBeGreaterThan(0);
  });

  it('date ticks are UTC midnights, at most the labels that fit, on every range', () => {
    for (const range of ['7d', '30d', '90d'] as const) {
      const g = seriesGrid(range, NOW);
      const ticks = dayTicks(g[0] ?? 0, NOW, 6);
      expect(ticks.length, range).toBeGreaterThanOrEqual(3);
      expect(ticks.length, range).toBeLessThanOrEqual(6);
      for (const t of ticks) {
        expect(t.t % DAY).toBe(0);
        expect(t.label).toBe(shortUtcDay(t.t));
      }
    }
  });

  it('no two date labels overlap, also when the last midnight sits at the right edge (a label anchored at its end)', () => {
    const extents = (svg: string) =>
      [
        ...svg.matchAll(
          /<text x="([^"]*)" y="[^"]*" font-size="([^"]*)"[^>]*text-anchor="([a-z]*)" class="xtick">([^<]*)</g,
        ),
      ].map((m) => {
        const x = Number(m[1]);
        const w = (m[4] ?? '').length * 0.6 * Number(m[2]);
        const from = m[3] === 'start' ? x : m[3] === 'end' ? x - w : x - w / 2;
        return [from, from + w] as const;
      });
    // Evaluated 2 h after a midnight: that midnight's label is pushed left by the chart's edge.
    const end = Math.floor(NOW / DAY) * DAY + 2 * H;
    for (const range of ['7d', '30d', '90d'] as const) {
      const g = seriesGrid(range, end);
      const values = g.map((_, i) => 50 + (i % 5));
      const svg = renderHistorySvg(
        input({
          range,
          stepMs: SERIES_GRIDS[range].stepMs,
          timestamps: g,
          providers: [{ slug: 'alchemy', name: 'Alchemy', color: '#4e79a7', values }],
        }),
      );
      const e = extents(svg);
      expect(e.length, range).toBeGreaterThanOrEqual(3);
      for (let i = 1; i < e.length; i++) {
        expect(
          (e[i]?.[0] ?? 0) - (e[i - 1]?.[1] ?? 0),
          `${range}: label ${i} runs into label ${i - 1}`,
        ).toBeGreaterThan(0);
      }
    }
  });
});
