import { Cite } from '@citation-js/core';
import '@citation-js/plugin-bibtex';
import '@citation-js/plugin-ris';
import '@citation-js/plugin-csl';
import { parse as parseBibtex } from '@retorquere/bibtex-parser';
import { describe, expect, it } from 'vitest';
import { bibtexEscape, citeApa, citeBibtex, citePlain, citeRis } from '../../src/core/citations.ts';

const retrieved = Date.UTC(2026, 10, 21, 15, 30);
const nasty = {
  siteName: 'Citebench',
  slug: 'perp-fees',
  title: 'Fees in $ & 100% #1 of {all} perp_venues ~ ^ \\ today',
  url: 'http://bench.test/benchmarks/perp-fees?chain=a_b',
  retrieved,
};

describe('BibTeX', () => {
  it('escapes every LaTeX special so parsers read the title back exactly', () => {
    const bib = citeBibtex(nasty);
    expect(bib.startsWith('@misc{citebench_perp_fees,\n')).toBe(true);
    const parsed = parseBibtex(bib);
    expect(parsed.errors).toEqual([]);
    const entry = parsed.entries[0];
    expect(entry?.type).toBe('misc');
    expect(entry?.key).toBe('citebench_perp_fees');
    expect(entry?.fields.title).toBe(nasty.title);
    expect(entry?.fields.url).toBe(nasty.url);
    expect(entry?.fields.urldate).toBe('2026-11-21');
    expect(entry?.fields.author).toEqual([{ name: 'Citebench' }]);
  });

  it('is read by citation-js with the corporate author intact and the access date', () => {
    const data = new Cite(citeBibtex(nasty)).data[0] as Record<string, unknown>;
    expect(data.title).toBe(nasty.title);
    expect(data.author).toEqual([{ family: 'Citebench' }]);
    expect(data.URL).toBe(nasty.url);
    expect(data.accessed).toEqual({ 'date-parts': [[2026, 11, 21]] });
  });

  it('has a stable key and aligned fields', () => {
    const a = citeBibtex({ ...nasty, retrieved: retrieved + 86_400_000 * 40 });
    expect(a.split('\n')[0]).toBe(citeBibtex(nasty).split('\n')[0]);
    expect(bibtexEscape('a_b$c')).toBe('a\\_b\\$c');
    for (const line of citeBibtex(nasty).split('\n').slice(1, -2)) expect(line).toMatch(/^ {2}\w+ +=/);
  });
});

describe('RIS', () => {
  it('uses CRLF, TY first and ER last, and parses with citation-js', () => {
    const ris = citeRis(nasty);
    expect(ris.includes('\n') && !/[^\r]\n/.test(ris)).toBe(true);
    const lines = ris.split('\r\n');
    expect(lines[0]).toBe('TY  - DATA');
    expect(lines.at(-2)).toBe('ER  - ');
    expect(lines.at(-1)).toBe('');
    const data = new Cite(ris, { forceType: '@ris/file' }).data[0] as Record<string, unknown>;
    expect(data.title).toBe(nasty.title);
    expect(data.URL).toBe(nasty.url);
    expect(data.type).toBe('dataset');
    expect(data.accessed).toEqual({ 'date-parts': [[2026, 11, 21]] });
  });
});

describe('APA and plain text', () => {
  it('name the site, title, retrieval date and URL', () => {
    expect(citeApa(nasty)).toBe(
      `Citebench. (2026). ${nasty.title} [Data set]. Retrieved November 21, 2026, from ${nasty.url}`,
    );
    expect(citePlain(nasty)).toBe(`Citebench. "${nasty.title}". Retrieved 2026-11-21. ${nasty.url}`);
  });
});
