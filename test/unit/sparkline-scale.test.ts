import { describe, expect, it } from 'vitest';
import {
  renderSparklineSvg,
  SPARKLINE_MIN_SPAN,
  sparklineCoords,
  sparklineLabels,
  sparklineScale,
} from '../../src/core/sparkline-svg.ts';

const H = 100;
const PAD = 0;
/** Share of the drawing height a series covers (0–1). */
function heightUsed(points: number[], unit: string, higherIsBetter = true): number {
  const ys = sparklineCoords(points, 200, H, PAD, higherIsBetter, unit).map(([, y]) => y);
  return (Math.max(...ys) - Math.min(...ys)) / H;
}

describe('sparkline scale: a small change is never stretched to the full height', () => {
  it('pct: a 99.7–100 wobble covers 30% of the height (minimum span 1 point), inside 0–100', () => {
    expect(SPARKLINE_MIN_SPAN.pctPoints).toBe(1);
    expect(heightUsed([99.8, 100, 99.7, 100], 'pct')).toBeCloseTo(0.3, 5);
    const s = sparklineScale([99.8, 100, 99.7, 100], 'pct');
    expect(s).toMatchObject({ min: 99.7, max: 100, lo: 99, hi: 100, flat: false });
  });

  it('count: a change under 2% of the value is drawn at its share of 2%', () => {
    // 263 → 265: a span of 2 against a minimum of 5.3 (2% of 265).
    expect(heightUsed([263, 264, 265], 'count')).toBeCloseTo(2 / (0.02 * 265), 5);
    // A change larger than the threshold uses the full height.
    expect(heightUsed([200, 265], 'count')).toBeCloseTo(1, 5);
  });

  it('a large pct change still fills the height; lower-is-better keeps up = better', () => {
    expect(heightUsed([80, 95, 90], 'pct')).toBeCloseTo(1, 5);
    const [a, b] = sparklineCoords([900, 640], 200, H, PAD, false, 'ms').map(([, y]) => y);
    expect(b).toBeLessThan(a as number);
  });

  it('a flat series is a flat line at mid height (or at the top edge of 0–100) with its value labelled', () => {
    const ys = sparklineCoords([263, 263, 263], 200, H, PAD, true, 'count').map(([, y]) => y);
    expect(new Set(ys).size).toBe(1);
    expect(ys[0]).toBe(H / 2);
    const labels = sparklineLabels([263, 263, 263], H, PAD, true, 'count', 12);
    expect(labels.map((l) => l.text)).toEqual(['263']);
    const svg = renderSparklineSvg({
      points: [100, 100, 100],
      width: 240,
      height: 60,
      theme: 'light',
      higherIsBetter: true,
      title: 'T',
      leaderName: null,
      unit: 'pct',
    });
    expect(svg).toContain('>100.0%</text>');
    expect(svg).toContain('flat at 100.0%');
  });

  it('labels the min and max of the series in the SVG, best on top', () => {
    const svg = renderSparklineSvg({
      points: [99.8, 100, 99.7],
      width: 240,
      height: 60,
      theme: 'light',
      higherIsBetter: true,
      title: 'T',
      leaderName: 'L',
      unit: 'pct',
    });
    const texts = [...svg.matchAll(/<text [^>]*? y="([\d.]+)"[^>]*>([^<]+)<\/text>/g)].map((m) => ({
      y: Number(m[1]),
      t: m[2],
    }));
    expect(texts.map((x) => x.t)).toEqual(['100.0%', '99.7%']);
    expect(texts[0]!.y).toBeLessThan(texts[1]!.y);
    // Labels never overlap the line: the polyline ends left of the label gutter.
    const xs = (/points="([^"]+)"/.exec(svg)?.[1] ?? '').split(' ').map((p) => Number(p.split(',')[0]));
    expect(Math.max(...xs)).toBeLessThan(240 - 30);
  });

  it('tiny embeds keep the scale in the accessible name only', () => {
    const svg = renderSparklineSvg({
      points: [1, 2],
      width: 60,
      height: 20,
      theme: 'dark',
      higherIsBetter: true,
      title: 'T',
      leaderName: null,
    });
    expect(svg).not.toContain('<text');
    expect(svg).toContain('(1 to 2)');
  });
});
