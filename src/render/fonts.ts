import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

export type FontWeight = 400 | 600 | 800;

export interface OgFont {
  readonly name: string;
  readonly data: Buffer;
  readonly weight: FontWeight;
  readonly style: 'normal';
}

export const FONT_FAMILY = 'Inter';
const WEIGHTS: readonly FontWeight[] = [400, 600, 800];
// Latin first, then latin-ext as the glyph fallback for accented provider names.
const SUBSETS = ['latin', 'latin-ext'] as const;

/**
 * Inter from @fontsource/inter, read from node_modules (satori takes WOFF, not WOFF2). Never a system
 * font and never a download, so the rendered bytes depend only on the installed package.
 */
export function loadInterFonts(): OgFont[] {
  const require = createRequire(import.meta.url);
  const fonts: OgFont[] = [];
  for (const subset of SUBSETS) {
    for (const weight of WEIGHTS) {
      const path = require.resolve(`@fontsource/inter/files/inter-${subset}-${weight}-normal.woff`);
      fonts.push({ name: FONT_FAMILY, data: readFileSync(path), weight, style: 'normal' });
    }
  }
  return fonts;
}
