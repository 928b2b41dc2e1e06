import { Cite } from '@citation-js/core';
import '@citation-js/plugin-csl';
import { describe, expect, it } from 'vitest';
import { CITE_FORMATS, citeCsl } from '../../src/core/citations.ts';
import { NOW } from '../helpers/fixture.ts';
import { serverWithApi } from '../helpers/openapi.ts';

const input = {
  siteName: 'Citebench',
  slug: 'token-trade-coverage',
  title: 'Fees in $ & % {braces} "quotes"',
  url: 'http://bench.test/benchmarks/token-trade-coverage?chain=solana',
  retrieved: Date.UTC(2026, 10, 20, 12),
};

describe('CSL-JSON', () => {
  it('is parsed by citation-js as a dataset with an institutional author and the access date', () => {
    const cite = new Cite(JSON.parse(citeCsl(input)));
    const item = cite.data[0] as Record<string, unknown>;
    expect(cite.data).toHaveLength(1);
    expect(item.type).toBe('dataset');
    expect(item.title).toBe(input.title);
    expect(item.author).toEqual([{ literal: 'Citebench' }]);
    expect(item.URL).toBe(input.url);
    expect(item.accessed).toEqual({ 'date-parts': [[2026, 11, 20]] });
    expect(item.issued).toEqual({ 'date-parts': [[2026]] });
    // Formats with a CSL style, as Zotero and every CSL processor would.
    const apa = cite.format('bibliography', { format: 'text', template: 'apa' }) as string;
    expect(apa).toContain('Citebench');
    expect(apa).toContain(input.url);
  });

  it('is the fifth format', () => {
    expect(CITE_FORMATS).toEqual(['bib', 'ris', 'apa', 'txt', 'csl']);
  });
});

describe('GET /api/cite/{slug}/csl', () => {
  const t = serverWithApi();

  it('serves CSL-JSON live and for a frozen day; the 400 answer lists csl', async () => {
    const live = await t.srv.get('/api/cite/network-coverage/csl');
    const body = await live.text();
    t.api.check('/api/cite/{slug}/{format}', 'get', live, body);
    expect(live.status).toBe(200);
    expect(live.headers.get('content-type')).toBe('application/vnd.citationstyles.csl+json');
    expect(live.headers.get('content-disposition')).toContain('.csl.json');
    const item = new Cite(JSON.parse(body)).data[0] as Record<string, unknown>;
    expect(item.URL).toBe('http://bench.test/benchmarks/network-coverage');
    const d = new Date(NOW);
    expect(item.accessed).toEqual({
      'date-parts': [[d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()]],
    });

    const dated = await t.srv.get('/api/cite/network-coverage/csl?date=2026-11-19');
    expect(dated.status).toBe(200);
    expect(dated.headers.get('cache-control')).toContain('immutable');
    const frozen = new Cite(await dated.json()).data[0] as Record<string, unknown>;
    // A frozen day cannot change: issued that day, no access date.
    expect(frozen.issued).toEqual({ 'date-parts': [[2026, 11, 19]] });
    expect(frozen.accessed).toBeUndefined();
    expect(frozen.URL).toBe('http://bench.test/benchmarks/network-coverage?date=2026-11-19');

    const bad = await t.srv.get('/api/cite/network-coverage/enw');
    expect(bad.status).toBe(400);
    expect((await bad.json()).message).toContain('csl');
  });
});
