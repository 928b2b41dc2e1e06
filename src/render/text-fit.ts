/**
 * Rough advance widths of Inter, in em, to pick font sizes before layout. Satori cannot measure
 * for us ahead of rendering, so sizes come from this slightly generous estimate and the layout
 * keeps line clamps / ellipses as a backstop against any residual overflow.
 */
const NARROW = new Set("iljI.,:;'|!·");
const SEMI = new Set('ftr()[]-/1 ');
const WIDE = new Set('mwMW%@');

function charEm(ch: string): number {
  if (NARROW.has(ch)) return 0.3;
  if (SEMI.has(ch)) return 0.42;
  if (WIDE.has(ch)) return 0.95;
  if (ch >= '0' && ch <= '9') return 0.65;
  if (ch >= 'A' && ch <= 'Z') return 0.72;
  if (ch >= 'a' && ch <= 'z') return 0.56;
  return 0.7;
}

const WEIGHT_FACTOR: Readonly<Record<number, number>> = { 400: 1, 600: 1.04, 800: 1.1 };

/** Estimated width in em of `text` set in Inter at `weight`, with `tracking` em of letter-spacing. */
export function estimateEm(text: string, weight: number, tracking = 0): number {
  let em = 0;
  let n = 0;
  for (const ch of text) {
    em += charEm(ch);
    n += 1;
  }
  return em * (WEIGHT_FACTOR[weight] ?? 1.1) + tracking * n;
}

/** The largest size in [min, max] (integer px) at which `text` fits `width` over `lines` lines. */
export function fitFontSize(
  text: string,
  opts: { width: number; max: number; min: number; weight: number; lines?: number; tracking?: number },
): number {
  const lines = opts.lines ?? 1;
  // Word wrapping wastes part of each line; keep 10% slack per extra line.
  const usable = opts.width * (lines === 1 ? 1 : lines * 0.9);
  const em = estimateEm(text, opts.weight, opts.tracking ?? 0);
  if (em === 0) return opts.max;
  return Math.max(opts.min, Math.min(opts.max, Math.floor(usable / em)));
}
