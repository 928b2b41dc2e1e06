import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Resvg } from '@resvg/resvg-js';
import { describe, expect, it } from 'vitest';
import {
  parseSparklineParams,
  renderSparklineSvg,
  type SparklineInput,
  sparklineCoords,
} from '../../src/core/sparkline-svg.ts';

const GOLDEN_DIR = resolve(import.meta.dirname, '../golden/sparkline');
const UPDATE = process.env.UPDATE_GOLDEN === '1';

const WAVE = [10, 12, 11, 15, 14, 18, 17, 20];
const base: SparklineInput = {
  points: WAVE,
  width: 240,
  height: 60,
  theme: 'light',
  higherIsBetter: true,
  title: 'Network coverage of DEX data providers',
  leaderName: 'GeckoTerminal',
};

/** Parses w/h/theme like the route does, then renders. */
function viaParams(query: Record<string, string>, over: Partial<SparklineInput> = {}): string {
  const p = parseSparklineParams(query);
  if (!p.ok) throw new Error(p.message);
  return renderSparklineSvg({ ...base, ...over, width: p.w, height: p.h, theme: p.theme });
}

const GOLDEN: Record<string, () => string> = {
  'light-default': () => viaParams({}),
  'dark-default': () => viaParams({ theme: 'dark' }),
  'size-600x120': () => viaParams({ w: '600', h: '120' }),
  'clamped-min': () => viaParams({ w: '1', h: '2' }),
  'clamped-max': () => viaParams({ w: '99999', h: '5000', theme: 'dark' }),
  'floored-100x30': () => viaParams({ w: '100.9', h: '30.2' }),
  escaping: () => viaParams({}, { title: 'A <b>&"quoted"</b> \'title\'', leaderName: 'Tom & Jerry <x>' }),
  'lower-is-better': () => viaParams({}, { points: [900, 850, 870, 700, 650, 640], higherIsBetter: false }),
  'one-point': () => viaParams({}, { points: [42] }),
  'no-points': () => viaParams({ theme: 'dark' }, { points: [], leaderName: null }),
};

describe('sparkline golden files', () => {
  for (const [name, make] of Object.entries(GOLDEN)) {
    it(name, () => {
      const svg = make();
      const file = join(GOLDEN_DIR, `${name}.svg`);
      if (UPDATE) {
        mkdirSync(GOLDEN_DIR, { recursive: true });
        writeFileSync(file, svg);
      }
      expect(existsSync(file), `${file} missing: run with UPDATE_GOLDEN=1`).toBe(true);
      expect(svg).toBe(readFileSync(file, 'utf8'));
    });
  }
});

describe('renderSparklineSvg', () => {
  it('is a well-formed standalone SVG document', () => {
    for (const make of Object.values(GOLDEN)) {
      const svg = make();
      expect(svg.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<svg ')).toBe(true);
      expect(svg).toMatch(/viewBox="0 0 \d+ \d+"/);
      expect(svg).toContain('role="img"');
      expect(svg).toMatch(/aria-label="[^"]+"/);
      expect(svg).toMatch(/<title>[^<]+<\/title>/);
      // No external references of any kind.
      expect(svg).not.toMatch(/href|url\(|<image|<script|@import/i);
      // resvg's XML parser rejects malformed documents.
      expect(() => new Resvg(svg, { font: { loadSystemFonts: false } }).render()).not.toThrow();
    }
  });

  it('labels with title and leader and escapes XML', () => {
    const svg = GOLDEN.escaping!();
    expect(svg).toContain(
      'aria-label="A &lt;b&gt;&amp;&quot;quoted&quot;&lt;/b&gt; &apos;title&apos; 24h sparkline (Tom &amp; Jerry &lt;x&gt;) (10 to 20)"',
    );
    expect(svg).not.toContain('<b>');
    expect(GOLDEN['light-default']!()).toContain(
      // The scale is in the title too, for readers of the accessible name (issue 15).
      '<title>Network coverage of DEX data providers 24h sparkline (GeckoTerminal) (10 to 20)</title>',
    );
  });

  it('drops characters XML 1.0 forbids', () => {
    const svg = renderSparklineSvg({ ...base, title: 'bad\u0000\u0007char\ud800s' });
    expect(svg).toContain('<title>badchars 24h sparkline (GeckoTerminal) (10 to 20)</title>');
  });

  it('sets the size and theme colours', () => {
    const light = viaParams({ w: '300', h: '80' });
    expect(light).toContain('width="300" height="80"');
    expect(light).toContain('viewBox="0 0 300 80"');
    const dark = viaParams({ theme: 'dark' });
    expect(dark).not.toBe(viaParams({}));
    expect(light).toMatch(/<rect [^>]*fill="#ffffff"/);
    expect(dark).toMatch(/<rect [^>]*fill="#10141b"/);
  });

  it('draws fewer than two points as a flat dashed line, not an error', () => {
    for (const points of [[], [5], [Number.NaN, 3]]) {
      const svg = renderSparklineSvg({ ...base, points });
      expect(svg).toContain('stroke-dasharray');
      expect(svg).not.toContain('<polyline');
      expect(svg).toMatch(/<line x1="\d+" y1="30" x2="\d+" y2="30"/);
    }
  });

  it('keeps every vertex inside the box, thick strokes included', () => {
    for (const [w, h] of [
      [40, 20],
      [1200, 400],
      [240, 60],
    ] as const) {
      const svg = renderSparklineSvg({ ...base, width: w, height: h });
      const pts = /points="([^"]+)"/.exec(svg)?.[1] ?? '';
      const sw = Number(/stroke-width="(\d+)"/.exec(svg)?.[1]);
      for (const pair of pts.split(' ')) {
        const [x, y] = pair.split(',').map(Number) as [number, number];
        expect(x - sw / 2).toBeGreaterThanOrEqual(0);
        expect(x + sw / 2).toBeLessThanOrEqual(w);
        expect(y - sw / 2).toBeGreaterThanOrEqual(0);
        expect(y + sw / 2).toBeLessThanOrEqual(h);
      }
    }
  });
});

describe('orientation: up means better', () => {
  const pts = [5, 1, 9, 3];
  it('higher is better: the largest value is highest (smallest y)', () => {
    const c = sparklineCoords(pts, 100, 50, 4, true);
    const ys = c.map(([, y]) => y);
    expect(ys[2]).toBe(Math.min(...ys));
    expect(ys[1]).toBe(Math.max(...ys));
    expect(ys[2]).toBe(4);
    expect(ys[1]).toBe(46);
  });
  it('lower is better: the axis is inverted, the smallest value is highest', () => {
    const c = sparklineCoords(pts, 100, 50, 4, false);
    const ys = c.map(([, y]) => y);
    expect(ys[1]).toBe(4);
    expect(ys[2]).toBe(46);
  });
  it('spreads points evenly from pad to width - pad; a flat series sits mid-height', () => {
    const c = sparklineCoords([7, 7, 7], 100, 50, 4, true);
    expect(c.map(([x]) => x)).toEqual([4, 50, 96]);
    expect(c.every(([, y]) => y === 25)).toBe(true);
  });
});

describe('parseSparklineParams', () => {
  it('defaults to 240×60 light', () => {
    expect(parseSparklineParams({})).toEqual({ ok: true, w: 240, h: 60, theme: 'light' });
  });
  it('clamps out-of-range numbers to the limits', () => {
    expect(parseSparklineParams({ w: '39', h: '19' })).toMatchObject({ ok: true, w: 40, h: 20 });
    expect(parseSparklineParams({ w: '1201', h: '401' })).toMatchObject({ ok: true, w: 1200, h: 400 });
    expect(parseSparklineParams({ w: '-5', h: '0' })).toMatchObject({ ok: true, w: 40, h: 20 });
    expect(parseSparklineParams({ w: '99999999999999999999999' })).toMatchObject({ ok: true, w: 1200 });
    expect(parseSparklineParams({ w: '40', h: '400' })).toMatchObject({ ok: true, w: 40, h: 400 });
  });
  it('floors non-integers', () => {
    expect(parseSparklineParams({ w: '100.9', h: '59.99' })).toMatchObject({ ok: true, w: 100, h: 59 });
  });
  it('refuses non-numeric values and unknown themes', () => {
    for (const q of [
      { w: 'abc' },
      { w: '' },
      { h: '12px' },
      { h: 'NaN' },
      { w: 'Infinity' },
      { w: '0x20' },
      { theme: 'blue' },
      { theme: '' },
      { theme: 'DARK' },
    ]) {
      const r = parseSparklineParams(q);
      expect(r.ok, JSON.stringify(q)).toBe(false);
      if (!r.ok) expect(r.message.length).toBeGreaterThan(0);
    }
  });
  it('accepts dark', () => {
    expect(parseSparklineParams({ theme: 'dark' })).toMatchObject({ ok: true, theme: 'dark' });
  });
});

describe('simulated data (issue 28 item 14)', () => {
  const title = (svg: string) => /<title>([^<]*)<\/title>/.exec(svg)?.[1] ?? '';
  const visible = (svg: string) => [...svg.matchAll(/<text [^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);

  it('says "Simulated" in the title at every size, and in a visible <text> from w = 120', () => {
    for (const [w, h] of [
      [40, 20],
      [119, 60],
      [120, 20],
      [120, 60],
      [240, 60],
      [1200, 400],
    ] as const) {
      const svg = renderSparklineSvg({ ...base, width: w, height: h, simulated: true });
      expect(title(svg), `${w}×${h}`).toMatch(/^Simulated data: Network coverage/);
      expect(svg).toMatch(/aria-label="Simulated data: /);
      expect(visible(svg).includes('Simulated'), `${w}×${h}`).toBe(w >= 120);
      expect(() => new Resvg(svg, { font: { loadSystemFonts: false } }).render()).not.toThrow();
    }
    for (const theme of ['light', 'dark'] as const)
      expect(renderSparklineSvg({ ...base, theme, simulated: true })).toContain('>Simulated</text>');
  });

  it('keeps the word inside the plot, clear of the scale labels', () => {
    for (const [w, h, unit, points] of [
      [120, 84, 'ms', [12345, 12000, 11000]],
      [120, 36, 'pct', [98.4, 97.1]],
      [240, 60, 'count', WAVE],
    ] as const) {
      const svg = renderSparklineSvg({
        ...base,
        width: w,
        height: h,
        unit,
        points: [...points],
        simulated: true,
      });
      const texts = [...svg.matchAll(/<text x="([\d.]+)"[^>]*font-size="(\d+)"[^>]*>([^<]*)<\/text>/g)];
      const word = texts.find((t) => t[3] === 'Simulated');
      const right = Number(word?.[1]) + 0.6 * Number(word?.[2]) * 'Simulated'.length;
      for (const l of texts.filter((t) => t[3] !== 'Simulated')) {
        // Scale labels are anchored at their end (x = w - 2).
        const left = Number(l[1]) - 0.6 * Number(l[2]) * (l[3]?.length ?? 0);
        expect(right, `${w}×${h} ${l[3]}`).toBeLessThanOrEqual(left);
      }
      expect(right).toBeLessThanOrEqual(w);
    }
  });

  it('measured data is unchanged: no word, no prefix', () => {
    expect(renderSparklineSvg({ ...base, simulated: false })).toBe(renderSparklineSvg(base));
    expect(renderSparklineSvg(base)).not.toContain('Simulated');
  });
});
