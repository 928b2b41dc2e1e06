import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Running, startServer } from '../helpers/server.ts';

let srv: Running;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv?.close();
});

describe('filtered views point at filtered images', () => {
  it('a filtered Stat and page name the images of that view', async () => {
    const stat = await (await srv.get('/api/stat/token-trade-coverage?chain=solana')).json();
    expect(stat.ogImage).toBe('http://bench.test/api/og/token-trade-coverage?chain=solana');
    expect(stat.sparklineSvg).toBe('http://bench.test/api/sparkline/token-trade-coverage?chain=solana');
    const page = await (await srv.get('/benchmarks/network-coverage?kind=dex-index')).text();
    expect(page).toContain(
      '<meta property="og:image" content="http://bench.test/api/og/network-coverage?kind=dex-index">',
    );
  });

  it('/api/sparkline and /api/og accept the same filters and draw that view', async () => {
    // The unfiltered leader (CoinGecko) is not the DEX-index leader: the images must differ.
    const all = await (await srv.get('/api/sparkline/network-coverage')).text();
    const dex = await srv.get('/api/sparkline/network-coverage?kind=dex-index');
    expect(dex.status).toBe(200);
    const svg = await dex.text();
    expect(svg).not.toBe(all);
    const stat = await (await srv.get('/api/stat/network-coverage?kind=dex-index')).json();
    expect(svg).toContain(`(${stat.leader.name})`);
    const og = await srv.get('/api/og/network-coverage?kind=dex-index');
    expect(og.status).toBe(200);
    expect(og.headers.get('content-type')).toBe('image/png');
    const ogAll = await srv.get('/api/og/network-coverage');
    expect(og.headers.get('etag')).not.toBe(ogAll.headers.get('etag'));
  });

  it('with the same 400 and 404 rules as /api/stat', async () => {
    for (const q of ['?chain=atlantis', '?kind=dex-index', '?chain=solana&chain=base']) {
      for (const route of ['/api/stat', '/api/sparkline', '/api/og']) {
        const stat = await srv.get(`/api/stat/token-trade-coverage${q}`);
        const img = await srv.get(`${route}/token-trade-coverage${q}`);
        expect(img.status, `${route}${q}`).toBe(stat.status);
        expect((await img.json()).error).toBe((await stat.json()).error);
      }
    }
    const dated = await srv.get('/api/og/token-trade-coverage?chain=solana&date=2026-11-19');
    expect(dated.status).toBe(400);
    expect((await srv.get('/api/sparkline/nope?chain=solana')).status).toBe(404);
  });
});
