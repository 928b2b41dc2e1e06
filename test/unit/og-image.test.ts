import { crc32 } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import type { RankingRow, Stat } from '../../src/core/api-schemas.ts';
import { SIMULATED_NOTE } from '../../src/core/headline.ts';
import { loadInterFonts } from '../../src/render/fonts.ts';
import { OG_HEIGHT, OG_WIDTH, type OgChild, type OgNode, ogElement } from '../../src/render/og-layout.ts';
import {
  AWAITING_TEXT,
  NO_COMPARISON_TEXT,
  NO_DATA_TEXT,
  NO_RESPONSES_TEXT,
  ogModelFromStat,
} from '../../src/render/og-model.ts';
import { renderOgPng } from '../../src/render/og-render.ts';
import { fitFontSize } from '../../src/render/text-fit.ts';
import { ServiceWorkers } from '../../src/workers/service-workers.ts';
import { makeStat, sampleStats } from '../fixtures/sample-stats.ts';

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function pngSize(png: Uint8Array): { width: number; height: number } {
  const v = new DataView(png.buffer, png.byteOffset, png.byteLength);
  // The first chunk must be IHDR: length(4) "IHDR"(4) width(4) height(4).
  expect(new TextDecoder().decode(png.subarray(12, 16))).toBe('IHDR');
  return { width: v.getUint32(16), height: v.getUint32(20) };
}

function texts(node: OgChild): string[] {
  if (typeof node === 'string') return [node];
  const c = node.props.children;
  if (c === undefined) return [];
  return (Array.isArray(c) ? c : [c]).flatMap((x: OgChild) => texts(x));
}

function findByText(node: OgChild, text: string): OgNode | undefined {
  if (typeof node === 'string') return undefined;
  const c = node.props.children;
  if (c === text) return node;
  const kids: readonly OgChild[] = c === undefined ? [] : Array.isArray(c) ? c : [c as OgChild];
  for (const k of kids) {
    const hit = findByText(k, text);
    if (hit) return hit;
  }
  return undefined;
}

const [coverage, trades, headLag, draft] = sampleStats('https://citebench.org');
const fonts = loadInterFonts();

describe('OG model', () => {
  it('carries site, category, metric, formatted value, leader line and watermark data', () => {
    const m = ogModelFromStat(coverage!, 'Citebench');
    expect(m).toMatchObject({
      siteName: 'Citebench',
      category: 'Aggregators',
      metric: 'networks supported',
      valueText: '263',
      hasValue: true,
      isDraft: false,
      leadLine: 'GeckoTerminal leads · Network coverage of DEX data providers',
      pageUrl: 'citebench.org/benchmarks/network-coverage',
      asOfDate: '2026-07-01',
      license: 'CC-BY-4.0',
    });
    expect(ogModelFromStat(trades!, 'x').valueText).toBe('98.4%');
    expect(ogModelFromStat(headLag!, 'x').higherIsBetter).toBe(false);
  });

  it('renders a draft as "awaiting first run" with no date', () => {
    const m = ogModelFromStat(draft!, 'Citebench');
    expect(m.valueText).toBe(AWAITING_TEXT);
    expect(m).toMatchObject({
      hasValue: false,
      isDraft: true,
      asOfDate: null,
      leadLine: 'Bridge quote latency',
    });
  });

  it('the layout shows every required text', () => {
    const tree = ogElement(ogModelFromStat(coverage!, 'Citebench'));
    const all = texts(tree).join('\n');
    for (const t of [
      'Citebench',
      'AGGREGATORS · NO. 001',
      'NETWORKS SUPPORTED',
      '263',
      'GeckoTerminal leads · Network coverage of DEX data providers',
      'citebench.org/benchmarks/network-coverage',
      'as of 2026-07-01 · CC-BY-4.0',
    ]) {
      expect(all).toContain(t);
    }
    expect(texts(ogElement(ogModelFromStat(draft!, 'Citebench')))).toContain(AWAITING_TEXT);
  });

  it('shrinks and clamps long titles instead of overflowing', () => {
    const long = makeStat({
      slug: 'long',
      number: '009',
      title:
        'A very long benchmark title that goes on and on about settlement latency across many routes '.repeat(
          3,
        ),
      metric: 'm',
      unit: 'ms',
      higherIsBetter: false,
      providers: [{ name: 'Provider', slug: 'p', value: 5 }],
      sparkline: [1, 2],
    });
    const short = ogModelFromStat(coverage!, 'Citebench');
    const m = ogModelFromStat(long, 'Citebench');
    const leadStyle = (mm: typeof m) => findByText(ogElement(mm), mm.leadLine)?.props.style ?? {};
    expect(Number(leadStyle(m).fontSize)).toBeLessThan(Number(leadStyle(short).fontSize));
    expect(leadStyle(m)).toMatchObject({ lineClamp: 2, overflow: 'hidden' });
    // The big value is one line, shrunk to fit and ellipsised as a last resort.
    const big = ogModelFromStat({ ...coverage!, value: 123456789012345 }, 'Citebench');
    const valueStyle = findByText(ogElement(big), big.valueText)?.props.style ?? {};
    expect(Number(valueStyle.fontSize)).toBeLessThan(132);
    expect(valueStyle).toMatchObject({ whiteSpace: 'nowrap', textOverflow: 'ellipsis' });
  });

  it('fitFontSize honours its bounds', () => {
    expect(fitFontSize('x', { width: 1000, max: 40, min: 10, weight: 400 })).toBe(40);
    expect(fitFontSize('x'.repeat(10_000), { width: 1000, max: 40, min: 10, weight: 400 })).toBe(10);
  });
});

describe('OG PNG', () => {
  it('is a 1200×630 PNG', async () => {
    const { png } = await renderOgPng(ogModelFromStat(coverage!, 'Citebench'), fonts);
    expect([...png.subarray(0, 8)]).toEqual(PNG_SIGNATURE);
    expect(pngSize(png)).toEqual({ width: OG_WIDTH, height: OG_HEIGHT });
    expect(OG_WIDTH).toBe(1200);
    expect(OG_HEIGHT).toBe(630);
  });

  it('same data gives the same bytes; different data different bytes', async () => {
    const model = ogModelFromStat(trades!, 'Citebench');
    const a = await renderOgPng(model, fonts);
    const b = await renderOgPng(structuredClone(model), loadInterFonts());
    expect(Buffer.from(a.png).equals(Buffer.from(b.png))).toBe(true);
    const c = await renderOgPng(ogModelFromStat({ ...trades!, value: 97.1 }, 'Citebench'), fonts);
    expect(Buffer.from(a.png).equals(Buffer.from(c.png))).toBe(false);
  });

  it('renders drafts and lower-is-better benchmarks', async () => {
    for (const s of [draft!, headLag!]) {
      const { png } = await renderOgPng(ogModelFromStat(s, 'Citebench'), fonts);
      expect(pngSize(png)).toEqual({ width: 1200, height: 630 });
    }
  });
});

/** Every chunk of a PNG, its CRC checked: [type, data]. */
function pngChunks(png: Uint8Array): [string, Uint8Array][] {
  const v = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const out: [string, Uint8Array][] = [];
  for (let at = 8; at < png.length; ) {
    const len = v.getUint32(at);
    const type = new TextDecoder().decode(png.subarray(at + 4, at + 8));
    const crc = v.getUint32(at + 8 + len);
    expect(crc, `${type} CRC`).toBe(crc32(png.subarray(at + 4, at + 8 + len)));
    out.push([type, png.subarray(at + 8, at + 8 + len)]);
    at += 12 + len;
  }
  return out;
}

/** The tEXt (Latin-1) and iTXt (UTF-8, uncompressed) entries by keyword. */
function pngText(png: Uint8Array): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [type, data] of pngChunks(png)) {
    const nul = data.indexOf(0);
    const key = new TextDecoder('latin1').decode(data.subarray(0, nul));
    if (type === 'tEXt') out[key] = new TextDecoder('latin1').decode(data.subarray(nul + 1));
    if (type === 'iTXt') {
      expect(data[nul + 1], 'uncompressed').toBe(0);
      let at = data.indexOf(0, nul + 3); // language tag
      at = data.indexOf(0, at + 1); // translated keyword
      out[key] = new TextDecoder().decode(data.subarray(at + 1));
    }
  }
  return out;
}

const row = (over: Partial<RankingRow>): RankingRow => ({
  rank: null,
  name: 'Mobula',
  slug: 'mobula',
  ms: { p50: 100, p90: 100, p99: 100, mean: 100 },
  successRate: 100,
  sampleSize: 4,
  unresponsive: false,
  noComparison: false,
  lastSampleAt: '2026-07-01T12:00:00.000Z',
  audit: 'https://citebench.org/api/audit/x/mobula',
  ...over,
});
const withoutValue = (rankings: RankingRow[]): Stat => ({
  ...trades!,
  value: null,
  leader: null,
  rankings,
  filters: { chain: 'stellar' },
  dimensions: { chain: [{ value: 'stellar', label: 'Stellar' }] },
});

describe('OG card without a value', () => {
  it('mirrors the headline: "awaiting first run" only for a draft', () => {
    expect(ogModelFromStat(draft!, 'x').valueText).toBe(AWAITING_TEXT);
    const cases: [Stat, string][] = [
      [withoutValue([row({ noComparison: true })]), NO_COMPARISON_TEXT],
      [
        withoutValue([row({ unresponsive: true }), row({ slug: 'codex', unresponsive: true })]),
        NO_RESPONSES_TEXT,
      ],
      [withoutValue([]), NO_DATA_TEXT],
      [{ ...withoutValue([]), status: 'stale' }, NO_DATA_TEXT],
    ];
    for (const [stat, text] of cases) {
      const m = ogModelFromStat(stat, 'Citebench');
      expect(m).toMatchObject({ valueText: text, hasValue: false, isDraft: false });
      expect(texts(ogElement(m))).toContain(text);
      expect(texts(ogElement(m))).not.toContain(AWAITING_TEXT);
    }
    expect([NO_COMPARISON_TEXT, NO_RESPONSES_TEXT, NO_DATA_TEXT]).toEqual([
      'no comparison',
      'no responses',
      'no data in 24 h',
    ]);
  });
});

describe('OG PNG text chunks', () => {
  it('carries Title, Description (the text as drawn), Source and Copyright; valid CRCs', async () => {
    const m = ogModelFromStat(withoutValue([row({ noComparison: true })]), 'Citebench');
    const { png } = await renderOgPng(m, fonts);
    expect(pngSize(png)).toEqual({ width: OG_WIDTH, height: OG_HEIGHT });
    const types = pngChunks(png).map(([t]) => t);
    expect(types[0]).toBe('IHDR');
    expect(types.at(-1)).toBe('IEND');
    const text = pngText(png);
    expect(text).toEqual({
      Title: 'Token trade capture rate (Stellar)',
      Description: texts(ogElement(m)).join('\n'),
      Source: 'https://citebench.org/benchmarks/token-trade-coverage',
      Copyright: 'CC-BY-4.0, Citebench',
    });
    expect(text.Description).toContain('no comparison');
    expect(text.Description).toContain('citebench.org/benchmarks/token-trade-coverage');
  });

  it('adds a Disclaimer for simulated data, and keeps text outside Latin-1 (iTXt)', async () => {
    const stat: Stat = { ...coverage!, simulated: true, title: 'Coverage ≥ 100 networks' };
    const { png } = await renderOgPng(ogModelFromStat(stat, 'Citebench'), fonts);
    const text = pngText(png);
    expect(text.Disclaimer).toBe(SIMULATED_NOTE);
    expect(text.Title).toBe('Coverage ≥ 100 networks');
    expect(text.Description?.split('\n')[0]).toBe('SIMULATED');
    const keys = (type: string) =>
      pngChunks(png)
        .filter(([t]) => t === type)
        .map(([, d]) => new TextDecoder().decode(d.subarray(0, d.indexOf(0))));
    // The title (also drawn in the lead line) is outside Latin-1; the rest stays tEXt.
    expect(keys('iTXt')).toEqual(['Title', 'Description']);
    expect(keys('tEXt')).toEqual(['Source', 'Copyright', 'Disclaimer']);
    expect(
      pngText((await renderOgPng(ogModelFromStat(coverage!, 'C'), fonts)).png).Disclaimer,
    ).toBeUndefined();
  });
});

describe('render worker', () => {
  const client = new ServiceWorkers(1);
  afterAll(() => client.close());

  it('renders in a worker thread (loaded through tsx) the same bytes as in-process', async () => {
    const model = ogModelFromStat(coverage!, 'Citebench');
    const [viaWorker, inProcess] = await Promise.all([client.render(model), renderOgPng(model, fonts)]);
    expect(Buffer.from(viaWorker.png).equals(Buffer.from(inProcess.png))).toBe(true);
    expect(client.pool.starts).toBe(1);
  });

  it('restarts the worker after it dies', async () => {
    const model = ogModelFromStat(draft!, 'Citebench');
    const first = await client.render(model);
    const pending = expect(client.render(model)).rejects.toThrow(/terminated/);
    await client.pool.terminateWorkers();
    await pending;
    const again = await client.render(model);
    expect(client.pool.starts).toBe(2);
    expect(Buffer.from(again.png).equals(Buffer.from(first.png))).toBe(true);
  });

  it('rejects after close', async () => {
    const c = new ServiceWorkers(1);
    await c.close();
    await expect(c.render(ogModelFromStat(coverage!, 'x'))).rejects.toThrow(/closed/);
  });
});
