import { Resvg } from '@resvg/resvg-js';
import satori from 'satori';
import type { OgFont } from './fonts.ts';
import { cardTexts, OG_HEIGHT, OG_WIDTH, ogElement } from './og-layout.ts';
import { type OgModel, ogTextChunks } from './og-model.ts';
import { withTextChunks } from './png-text.ts';

export interface OgRenderResult {
  readonly png: Uint8Array<ArrayBuffer>;
  readonly satoriMs: number;
  readonly resvgMs: number;
}

/** satori (layout + text to paths) then resvg (rasterise + PNG encode). Deterministic per model. */
export async function renderOgPng(model: OgModel, fonts: readonly OgFont[]): Promise<OgRenderResult> {
  const t0 = performance.now();
  const tree = ogElement(model);
  const svg = await satori(tree, {
    width: OG_WIDTH,
    height: OG_HEIGHT,
    fonts: fonts.map((f) => ({ name: f.name, data: f.data, weight: f.weight, style: f.style })),
  });
  const t1 = performance.now();
  // Satori already turned text into paths; resvg needs no fonts at all, least of all system ones.
  const png = new Resvg(svg, { fitTo: { mode: 'original' }, font: { loadSystemFonts: false } })
    .render()
    .asPng();
  const t2 = performance.now();
  return {
    png: withTextChunks(png, ogTextChunks(model, cardTexts(tree))),
    satoriMs: t1 - t0,
    resvgMs: t2 - t1,
  };
}
