import { readFileSync } from 'node:fs';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { testConfig } from '../../src/config.ts';
import { loadHarnessConfig, simulatorEnv } from '../../src/harness/config.ts';
import { startHarness } from '../../src/harness/service.ts';
import { loadSpecs } from '../../src/publication/load-specs.ts';
import { createPublication } from '../../src/publication/publication.ts';
import { buildListings } from '../../src/sim/networks.ts';
import { PROFILE_RANGES, providerProfile } from '../../src/sim/profiles.ts';
import { startSimulator } from '../../src/sim/server.ts';
import { BENCHMARKS_DIR, NOW } from '../helpers/fixture.ts';
import { createMemoryStore } from '../helpers/memory-store.ts';

const TRADE = ['bitquery', 'codex', 'mobula'];
const NETWORK = [
  'coingecko',
  'coinpaprika',
  'coinstats',
  'codex',
  'covalent',
  'geckoterminal',
  'mobula',
  'sim-dune',
];

describe('the simulator favours no provider: behaviour is drawn from the seed', () => {
  it('no provider slug appears in the simulator code that draws capture or listing sizes', () => {
    for (const f of ['src/sim/trades.ts', 'src/sim/profiles.ts']) {
      const src = readFileSync(new URL(`../../${f}`, import.meta.url), 'utf8');
      for (const p of TRADE) expect(src, `${f} names ${p}`).not.toContain(`'${p}'`);
    }
  });

  it('every provider draws from the same ranges; listing leaders differ across seeds', () => {
    const leaders = new Set<string>();
    for (let seed = 1; seed <= 8; seed++) {
      for (const p of NETWORK) {
        const prof = providerProfile(seed, p);
        expect(prof.listingSize).toBeGreaterThanOrEqual(PROFILE_RANGES.listingSize[0]);
        expect(prof.listingSize).toBeLessThanOrEqual(PROFILE_RANGES.listingSize[1]);
        expect(prof.capture[0]).toBeLessThanOrEqual(prof.capture[1]);
      }
      const expected = buildListings(seed).expected;
      for (const p of NETWORK) expect(expected[p]).toBe(providerProfile(seed, p).listingSize);
      const top = Object.entries(expected).sort((a, b) => b[1] - a[1])[0]?.[0];
      if (top) leaders.add(top);
    }
    expect(leaders.size).toBeGreaterThanOrEqual(3);
  });

  it('the measured token-trade-coverage leader depends on the seed (real harness cycles)', async () => {
    const specs = (await loadSpecs(BENCHMARKS_DIR)).filter((s) => s.slug === 'token-trade-coverage');
    const leaders = new Map<number, string | undefined>();
    for (const seed of [1, 4, 7]) {
      const sim = await startSimulator({ seed, tradesPerHour: 120 });
      const store = createMemoryStore();
      try {
        const h = startHarness({
          store,
          specs,
          metrics: new Registry(),
          harnessConfig: loadHarnessConfig(simulatorEnv(sim.baseUrls, sim.keys)),
          autoStart: false,
          simulated: true,
        });
        const at = NOW - 30 * 60_000;
        await h.runCycle('token-trade-coverage', at - 30 * 60_000);
        await h.runCycle('token-trade-coverage', at);
        await h.stop();
        const pub = createPublication({ specs, store, config: testConfig(), clock: () => NOW });
        leaders.set(seed, (await pub.stat('token-trade-coverage', null)).value.leader?.slug);
        pub.close();
      } finally {
        await store.close();
        await sim.close();
      }
    }
    expect(new Set(leaders.values()).size, JSON.stringify([...leaders])).toBeGreaterThanOrEqual(2);
  }, 60_000);
});
