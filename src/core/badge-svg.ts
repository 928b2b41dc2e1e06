import { formatValue } from './format.ts';

/** What a provider's badge says: the benchmark, its value and rank there, and if simulated. */
export interface BadgeInput {
  readonly label: string;
  readonly provider: string;
  readonly value: number | null;
  readonly unit: string;
  readonly rank: number | null;
  readonly simulated: boolean;
}

const esc = (s: string) =>
  s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

/** Verdana 11px averages about 6.6 px per character: the width each half is drawn at. */
const widthOf = (text: string) => Math.round(text.length * 6.6) + 14;

/** The right half: "<value> · #<rank>", "unranked" when the row has none; "(simulated)" when so. */
export function badgeValueText(b: BadgeInput): string {
  const value = b.value === null ? 'no value' : formatValue(b.value, b.unit);
  const rank = b.rank === null ? 'unranked' : `#${b.rank}`;
  return `${b.provider}: ${value} · ${rank}${b.simulated ? ' (simulated)' : ''}`;
}

/** A flat two-part badge (shields.io's shape), self-contained SVG with its text as <title>. */
export function badgeSvg(b: BadgeInput): string {
  const left = b.label;
  const right = badgeValueText(b);
  const lw = widthOf(left);
  const rw = widthOf(right);
  const w = lw + rw;
  const color = b.simulated ? '#b45309' : b.rank === 1 ? '#15803d' : '#1d4ed8';
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="20" viewBox="0 0 ${w} 20" role="img" aria-label="${esc(`${left}: ${right}`)}">
<title>${esc(`${left}: ${right}`)}</title>
<rect width="${lw}" height="20" rx="3" fill="#374151"/><rect x="${lw}" width="${rw}" height="20" rx="3" fill="${color}"/><rect x="${lw}" width="4" height="20" fill="${color}"/>
<g fill="#fff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11" text-anchor="middle">
<text x="${lw / 2}" y="14">${esc(left)}</text><text x="${lw + rw / 2}" y="14">${esc(right)}</text>
</g>
</svg>
`;
}
