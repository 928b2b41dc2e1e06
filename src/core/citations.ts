import type { Cite } from './api-schemas.ts';
import { isoDay, longDay } from './format.ts';

/** The spec's four formats, then CSL-JSON (Zotero, Mendeley and every CSL processor import it). */
export const CITE_FORMATS = ['bib', 'ris', 'apa', 'txt', 'csl'] as const;
export type CiteFormat = (typeof CITE_FORMATS)[number];

export const CITE_CONTENT_TYPES: Readonly<Record<CiteFormat, string>> = {
  bib: 'application/x-bibtex; charset=utf-8',
  ris: 'application/x-research-info-systems; charset=utf-8',
  apa: 'text/plain; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
  csl: 'application/vnd.citationstyles.csl+json',
};

export const CITE_EXTENSIONS: Readonly<Record<CiteFormat, string>> = {
  bib: 'bib',
  ris: 'ris',
  apa: 'apa.txt',
  txt: 'txt',
  csl: 'csl.json',
};

export interface CiteInput {
  readonly siteName: string;
  readonly slug: string;
  readonly title: string;
  readonly url: string;
  /** Retrieval time, epoch ms (UTC date is used); a frozen day's: any instant of that day. */
  readonly retrieved: number;
  /**
   * A frozen day's citation: its content never changes, so it carries no retrieval date, only the
   * day it is a snapshot of (as issued date and note).
   */
  readonly frozen?: boolean;
  /** Data from simulated providers: every format says "simulated demo data" in its title. */
  readonly simulated?: boolean;
}

/** The cited title; simulated data says so where every reference manager shows it. */
function citedTitle(c: CiteInput): string {
  return c.simulated ? `${c.title} (simulated demo data)` : c.title;
}

const BIBTEX_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\textbackslash{}',
  '{': '\\{',
  '}': '\\}',
  $: '\\$',
  '&': '\\&',
  '%': '\\%',
  '#': '\\#',
  _: '\\_',
  '~': '\\textasciitilde{}',
  '^': '\\textasciicircum{}',
};

/** Escapes LaTeX specials so titles such as "Fees in $ & %" survive every BibTeX parser. */
export function bibtexEscape(s: string): string {
  return s.replace(/[\\{}$&%#_~^]/g, (ch) => BIBTEX_ESCAPES[ch] ?? ch);
}

/** URL fields are verbatim in BibTeX; only braces (which would unbalance the entry) are encoded. */
function bibtexUrl(u: string): string {
  return u.replaceAll('{', '%7B').replaceAll('}', '%7D');
}

export function bibtexKey(siteName: string, slug: string): string {
  const site = siteName.toLowerCase().replace(/[^a-z0-9]+/g, '');
  return `${site || 'site'}_${slug.replace(/[^a-z0-9]+/g, '_')}`;
}

export function citeBibtex(c: CiteInput): string {
  const day = isoDay(c.retrieved);
  const fields: [string, string][] = [
    // Double braces keep a corporate author from being split into given and family names.
    ['author', `{${bibtexEscape(c.siteName)}}`],
    ['title', bibtexEscape(citedTitle(c))],
    ['year', day.slice(0, 4)],
    ['url', bibtexUrl(c.url)],
    ...(c.frozen
      ? ([['note', `Frozen snapshot of ${day}`]] as [string, string][])
      : ([
          ['urldate', day],
          ['note', `Retrieved ${day}`],
        ] as [string, string][])),
  ];
  const width = Math.max(...fields.map(([k]) => k.length));
  const body = fields.map(([k, v]) => `  ${k.padEnd(width)} = {${v}}`).join(',\n');
  return `@misc{${bibtexKey(c.siteName, c.slug)},\n${body}\n}\n`;
}

/** RIS: CRLF line endings, TY first, ER last. */
export function citeRis(c: CiteInput): string {
  const day = isoDay(c.retrieved);
  const clean = (s: string) => s.replace(/[\r\n]+/g, ' ');
  const lines = [
    'TY  - DATA',
    `AU  - ${clean(c.siteName)}`,
    `TI  - ${clean(citedTitle(c))}`,
    `PY  - ${day.slice(0, 4)}`,
    `PB  - ${clean(c.siteName)}`,
    `UR  - ${c.url}`,
    // A frozen day: the date it is a snapshot of (DA), no access date (Y2).
    c.frozen ? `DA  - ${day.replaceAll('-', '/')}` : `Y2  - ${day.replaceAll('-', '/')}`,
    'ER  - ',
  ];
  return `${lines.join('\r\n')}\r\n`;
}

export function citeApa(c: CiteInput): string {
  // APA gives unchanging content its date and no retrieval date.
  if (c.frozen) return `${c.siteName}. (${apaDate(c.retrieved)}). ${citedTitle(c)} [Data set]. ${c.url}`;
  return `${c.siteName}. (${isoDay(c.retrieved).slice(0, 4)}). ${citedTitle(c)} [Data set]. Retrieved ${longDay(c.retrieved)}, from ${c.url}`;
}

/** "2026, November 19": APA's date of a dated work. */
function apaDate(ms: number): string {
  const [month, day, year] = longDay(ms).replace(',', '').split(' ');
  return `${year}, ${month} ${day}`;
}

export function citePlain(c: CiteInput): string {
  const when = c.frozen ? `Frozen snapshot of ${isoDay(c.retrieved)}` : `Retrieved ${isoDay(c.retrieved)}`;
  return `${c.siteName}. "${citedTitle(c)}". ${when}. ${c.url}`;
}

/**
 * CSL-JSON: an array with one `dataset` item. The site is a literal (institutional) author so no
 * processor splits it into given and family names; `accessed` is the retrieval day.
 */
export function citeCsl(c: CiteInput): string {
  const day = isoDay(c.retrieved);
  const [y, m, d] = day.split('-').map(Number);
  const item = {
    id: bibtexKey(c.siteName, c.slug),
    type: 'dataset',
    title: citedTitle(c),
    author: [{ literal: c.siteName }],
    publisher: c.siteName,
    ...(c.frozen
      ? { issued: { 'date-parts': [[y, m, d]] } }
      : { issued: { 'date-parts': [[y]] }, accessed: { 'date-parts': [[y, m, d]] } }),
    URL: c.url,
    note: c.frozen ? `Frozen snapshot of ${day}` : `Retrieved ${day}`,
  };
  return `${JSON.stringify([item], null, 2)}\n`;
}

export function citeBundle(c: CiteInput): Cite {
  return { plain: citePlain(c), bibtex: citeBibtex(c), apa: citeApa(c), ris: citeRis(c) };
}

export function citeAs(format: CiteFormat, c: CiteInput): string {
  switch (format) {
    case 'bib':
      return citeBibtex(c);
    case 'ris':
      return citeRis(c);
    case 'apa':
      return `${citeApa(c)}\n`;
    case 'txt':
      return `${citePlain(c)}\n`;
    case 'csl':
      return citeCsl(c);
  }
}
