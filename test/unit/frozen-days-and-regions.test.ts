import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Stat } from '../../src/core/api-schemas.ts';
import type { Sample } from '../../src/core/samples.ts';
import { buildDataset } from '../../src/demo/dataset.ts';
import { loadSpecs } from '../../src/publication/load-specs.ts';
import { BENCHMARKS_DIR, NOW } from '../helpers/fixture.ts';
import { RPC_REGIONS, writeRpcSlots } from '../helpers/rpc-dataset.ts';
import { type Running, startServer } from '../helpers/server.ts';
import { until } from '../helpers/until.ts';

/**
 * Regions a reader can pick, filtered pages that agree with themselves, and frozen days that look
 * frozen: a past day's page is never taken for a live one, nor today's for one that stays true.
 */

const CLOSED = '2026-11-19';

describe('regions and frozen days on the site', () => {
  let srv: Running;
  beforeAll(async () => {
    const specs = await loadSpecs(BENCHMARKS_DIR);
    const rpc: Sample[] = [];
    await writeRpcSlots(specs, NOW - 30 * 60_000, 30, async (s) => {
      rpc.push(...s);
      return s.length;
    });
    srv = await startServer({
      simulated: true,
      samples: [...buildDataset({ seed: 7, days: 3, end: NOW }), ...rpc],
    });
  });
  afterAll(() => srv.close());

  const stat = async (path: string) => (await (await srv.get(path)).json()) as Stat;

  it('dimensions.region lists the measured regions, which the region filter accepts', async () => {
    // The measured values are read from the store once it has them: the view is redone then.
    let regions: string[] = [];
    await until(
      async () => {
        regions = ((await stat('/api/stat/rpc-latency')).dimensions.region ?? []).map((v) => v.value);
        return regions.length > 0;
      },
      30_000,
      'measured regions in the Stat',
    );
    expect(regions).toEqual([...RPC_REGIONS].sort());
    for (const r of regions) expect((await srv.get(`/api/stat/rpc-latency?region=${r}`)).status, r).toBe(200);
  });

  it('the RPC page has region chips with All, and its matrices follow the page filters and say so', async () => {
    const page = await (await srv.get('/benchmarks/rpc-latency')).text();
    const nav = /<nav class="chips" aria-label="Filter by region">(.*?)<\/nav>/s.exec(page)?.[1] ?? '';
    expect(nav).toContain('>All</a>');
    for (const r of RPC_REGIONS) expect(nav).toContain(`href="/benchmarks/rpc-latency?region=${r}"`);
    const filtered = await (await srv.get('/benchmarks/rpc-latency?region=eu-west&kind=logs')).text();
    // The "By chain" matrix under region=eu-west and kind=logs: its values are that view's, per chain.
    const headings = [...filtered.matchAll(/<h2 id="matrix">(.*?)<\/h2>/gs)].map((m) => m[1] ?? '');
    expect(headings.length).toBeGreaterThan(0);
    for (const h of headings) expect(h).toContain('eu-west');
    expect(headings.some((h) => h.startsWith('By kind'))).toBe(false);
    const view = await stat('/api/stat/rpc-latency?region=eu-west&kind=logs&chain=base');
    const leader = view.rankings.find((r) => r.rank === 1);
    expect(leader).toBeDefined();
    const matrix = /data-dimension="chain">(.*?)<\/table>/s.exec(filtered)?.[1] ?? '';
    const row =
      new RegExp(`<tr><td class="name">${leader?.name}</td>(.*?)</tr>`, 's').exec(matrix)?.[1] ?? '';
    expect(row).toContain(String(leader?.ms.p50 !== undefined ? Math.round(leader.ms.p50) : 'x'));
  });

  it('a dated page has the frozen banner, no LIVE badge and no filter chips that would leave the day', async () => {
    const live = await (await srv.get('/benchmarks/network-coverage')).text();
    expect(live).not.toContain('data-testid="frozen-banner"');
    const dated = await (await srv.get(`/benchmarks/network-coverage?date=${CLOSED}`)).text();
    expect(dated).toContain('data-testid="frozen-banner"');
    expect(dated).toContain(`Frozen snapshot of ${CLOSED}`);
    expect(dated).not.toMatch(/class="badge live"/);
    expect(dated).toContain('data-testid="frozen-badge"');
    expect(dated).not.toContain('aria-label="Filter by');
    expect(dated).toContain('data-testid="frozen-filters"');
  });

  it('"cite this day" is the last closed day, never today; the archives list every frozen day', async () => {
    const live = await (await srv.get('/benchmarks/network-coverage')).text();
    const cite = /data-testid="cite-day">.*?<a href="([^"]+)"/s.exec(live)?.[1];
    expect(cite).toBe(`/benchmarks/network-coverage?date=${CLOSED}`);
    expect(live).not.toContain('/api/citable/2026-11-20');
    const days = ['2026-11-19', '2026-11-18', '2026-11-17'];
    const site = await (await srv.get('/days')).text();
    const one = await (await srv.get('/benchmarks/network-coverage/days')).text();
    for (const d of days) {
      expect(site).toContain(`/api/citable/${d}`);
      expect(site).toContain(`/benchmarks/rpc-latency?date=${d}`);
      expect(one).toContain(`/benchmarks/network-coverage?date=${d}`);
      expect(one).toContain(`/api/cite/network-coverage/bib?date=${d}`);
    }
    expect(site).not.toContain('2026-11-20');
    expect(site.indexOf(days[0] as string)).toBeLessThan(site.indexOf(days[2] as string));
    expect((await srv.get('/benchmarks/nope/days')).status).toBe(404);
    for (const link of [...one.matchAll(/href="(\/[^"]+)"/g)].map((m) =>
      (m[1] ?? '').replaceAll('&amp;', '&'),
    )) {
      expect((await srv.get(link)).status, link).toBeLessThan(400);
    }
  });
});
