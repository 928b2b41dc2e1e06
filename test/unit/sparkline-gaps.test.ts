import { describe, expect, it } from 'vitest';
import {
  renderSparklineSvg,
  type SparklineInput,
  sparklineCoords,
  sparklineRuns,
} from '../../src/core/sparkline-svg.ts';
import { type OgChild, type OgNode, ogElement } from '../../src/render/og-layout.ts';
import { ogModelFromStat } from '../../src/render/og-model.ts';
import { sampleStats } from '../fixtures/sample-stats.ts';

const WAVE = [10, 12, 11, 15, 14, 18, 17, 20];
const base: SparklineInput = {
  points: WAVE,
  width: 240,
  height: 60,
  theme: 'light',
  higherIsBetter: true,
  title: 'Network coverage',
  leaderName: 'GeckoTerminal',
};

/** The <polyline> elements of an SVG document, with their points and whether they are dashed. */
function polylines(svg: string): { points: string; dashed: boolean }[] {
  return [...svg.matchAll(/<polyline points="([^"]*)"([^>]*)\/>/g)].map((m) => ({
    points: m[1] as string,
    dashed: (m[2] as string).includes('stroke-dasharray'),
  }));
}

describe('SVG sparkline: carried points are drawn dashed', () => {
  it('without gaps (absent or empty) the drawing is the single solid line of today', () => {
    const plain = renderSparklineSvg(base);
    expect(renderSparklineSvg({ ...base, gaps: [] })).toBe(plain);
    expect(polylines(plain)).toEqual([{ points: expect.any(String), dashed: false }]);
    expect(plain).not.toContain('stroke-dasharray');
    expect(plain).not.toContain('dashed');
  });

  it('a series with gaps has a dashed polyline for exactly the carried stretches', () => {
    // Points 3 and 4 carried: the segments 2→3, 3→4 and 4→5 touch them.
    const svg = renderSparklineSvg({ ...base, gaps: [3, 4] });
    const lines = polylines(svg);
    expect(lines.map((l) => l.dashed)).toEqual([false, true, false]);
    // The same coordinates as the single line of the gap-free drawing, split where the runs meet.
    const whole = (polylines(renderSparklineSvg(base))[0] as { points: string }).points.split(' ');
    expect(whole).toHaveLength(WAVE.length);
    expect(lines.map((l) => l.points)).toEqual([
      whole.slice(0, 3).join(' '),
      whole.slice(2, 6).join(' '),
      whole.slice(5).join(' '),
    ]);
    // Screen readers are told too; the scale labels stay.
    expect(svg).toContain('dashed where no value was measured');
    expect(svg).toContain('>10</text>');
    expect(svg).toContain('>20</text>');
  });

  it('leading carried points (before the first value) give a dashed start, then solid', () => {
    const svg = renderSparklineSvg({ ...base, gaps: [0, 1, 2] });
    expect(polylines(svg).map((l) => l.dashed)).toEqual([true, false]);
  });

  it('every point carried but the last: one dashed line', () => {
    const gaps = WAVE.slice(0, -1).map((_, i) => i);
    expect(polylines(renderSparklineSvg({ ...base, gaps })).map((l) => l.dashed)).toEqual([true]);
  });

  it('dark theme and lower-is-better keep their colours and orientation with gaps', () => {
    const svg = renderSparklineSvg({ ...base, theme: 'dark', higherIsBetter: false, gaps: [1] });
    const lines = polylines(svg);
    expect(lines.map((l) => l.dashed)).toEqual([true, false]);
    expect(svg).toContain('stroke="#e6e9ef"');
    // Lower is better: the first point (10, the best) sits at the top.
    const firstY = Number((lines[0] as { points: string }).points.split(' ')[0]?.split(',')[1]);
    expect(firstY).toBe(4);
  });

  it('escapes the title with gaps as without', () => {
    const svg = renderSparklineSvg({ ...base, title: 'A <b>&', leaderName: 'Tom & Jerry', gaps: [2] });
    expect(svg).toContain('A &lt;b&gt;&amp; 24h sparkline (Tom &amp; Jerry)');
    expect(svg).not.toContain('<b>');
  });

  it('sparklineRuns re-indexes gaps past dropped non-finite points', () => {
    const points = [1, Number.NaN, 2, 3, 4];
    const coords = sparklineCoords(points, 100, 50, 0, true);
    expect(coords).toHaveLength(4);
    // Index 3 of points (value 3) is index 2 of the coordinates.
    const runs = sparklineRuns(points, coords, [3]);
    expect(runs.map((r) => [r.coords.length, r.carried])).toEqual([
      [2, false],
      [3, true],
    ]);
    expect(runs[1]?.coords[0]).toEqual(coords[1]);
    expect(sparklineRuns(points, coords.slice(0, 1), [3])).toEqual([]);
  });
});

function nodes(node: OgChild, type: string): OgNode[] {
  if (typeof node === 'string') return [];
  const c = node.props.children;
  const kids: readonly OgChild[] = c === undefined ? [] : Array.isArray(c) ? c : [c as OgChild];
  return [...(node.type === type ? [node] : []), ...kids.flatMap((k) => nodes(k, type))];
}

function texts(node: OgChild): string[] {
  if (typeof node === 'string') return [node];
  const c = node.props.children;
  if (c === undefined) return [];
  return (Array.isArray(c) ? c : [c]).flatMap((x: OgChild) => texts(x));
}

describe('OG card: carried points are drawn dashed', () => {
  const [coverage] = sampleStats('https://citebench.org');
  if (!coverage) throw new Error('no sample stat');

  it('the model carries the Stat gaps (none: empty)', () => {
    expect(ogModelFromStat(coverage, 'x').gaps).toEqual([]);
    expect(ogModelFromStat({ ...coverage, sparklineGaps: [0, 1, 2] }, 'x').gaps).toEqual([0, 1, 2]);
  });

  it('without gaps: one solid polyline and the caption of today', () => {
    const tree = ogElement(ogModelFromStat(coverage, 'x'));
    const lines = nodes(tree, 'polyline');
    expect(lines).toHaveLength(1);
    expect(lines[0]?.props['stroke-dasharray']).toBeUndefined();
    expect(texts(tree).join('\n')).not.toContain('DASHED');
  });

  it('with gaps: dashed polylines for exactly the carried stretches, fill and labels kept', () => {
    // The publication's shape: the first 12 of 73 points carried.
    const gaps = Array.from({ length: 12 }, (_, i) => i);
    const tree = ogElement(ogModelFromStat({ ...coverage, sparklineGaps: gaps }, 'x'));
    const lines = nodes(tree, 'polyline');
    expect(lines.map((l) => l.props['stroke-dasharray'] !== undefined)).toEqual([true, false]);
    // Carried 0→12 (13 points), measured 12→72 (61 points): they meet at point 12.
    const pts = lines.map((l) => String(l.props.points).split(' '));
    expect(pts.map((p) => p.length)).toEqual([13, 61]);
    expect(pts[0]?.at(-1)).toBe(pts[1]?.[0]);
    expect(nodes(tree, 'polygon')).toHaveLength(1);
    const all = texts(tree).join('\n');
    expect(all).toContain('UP = BETTER · DASHED = NOT MEASURED');
    expect(all).toContain('263');
  });
});
