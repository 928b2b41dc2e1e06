/**
 * Issue 26 item 1 (what runs where): a Stat is computed in steps, with a turn of the event loop
 * between them (each step ranks a window of samples; a chain's ranking is one step), so cached reads
 * waiting on the same loop are answered in between instead of behind the whole Stat. On the 2-core
 * VM, token-trade-coverage's Stat held the loop 20–80 ms in one go, from samples the in-memory tail
 * answered without a single turn of the loop.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../../src/config.ts';
import { buildDataset } from '../../src/demo/dataset.ts';
import { loadSpecs } from '../../src/publication/load-specs.ts';
import { createPublication } from '../../src/publication/publication.ts';
import { openDuckDbStore } from '../../src/store/duckdb-store.ts';
import type { Store } from '../../src/store/sample-store.ts';
import { BENCHMARKS_DIR, NOW } from '../helpers/fixture.ts';

let store: Store;
beforeAll(async () => {
  store = await openDuckDbStore({ path: ':memory:' });
  await store.append(buildDataset({ seed: 7, days: 2, end: NOW }));
});
afterAll(async () => {
  await store.close();
});

/** Turns of the event loop (setImmediate ticks) while `fn` runs. */
async function turnsDuring(fn: () => Promise<unknown>): Promise<number> {
  let turns = 0;
  let on = true;
  const tick = () => {
    if (!on) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  await fn();
  on = false;
  return turns;
}

describe('a Stat computed in steps', () => {
  it('a benchmark with a chain dimension: a turn of the loop per chain, and between the steps', async () => {
    const specs = await loadSpecs(BENCHMARKS_DIR);
    const spec = specs.find((s) => s.slug === 'token-trade-coverage');
    const chains = spec?.dimensions.chain?.values ?? [];
    if (!spec || chains.length < 2) throw new Error('token-trade-coverage has no chain dimension');
    const publication = async () => {
      const pub = createPublication({
        specs,
        store,
        config: testConfig({ baseUrl: 'http://bench.test', siteName: 'Citebench' }),
        clock: () => NOW,
      });
      await pub.loadDataValues();
      return pub;
    };
    // A first Stat warms what is shared (spec checks, the in-memory tail); fresh ones are measured.
    const warm = await publication();
    await warm.stat(spec.slug, null);
    warm.close();
    const a = await publication();
    const b = await publication();
    try {
      const unfiltered = await turnsDuring(() => a.stat(spec.slug, null));
      const oneChain = await turnsDuring(() => b.stat(spec.slug, { chain: chains[0]?.value ?? '' }));
      // Every chain unfiltered, plus the steps around them; one chain when filtered by one.
      expect(unfiltered).toBeGreaterThanOrEqual(chains.length + 2);
      expect(oneChain).toBeGreaterThanOrEqual(2);
    } finally {
      a.close();
      b.close();
    }
  });
});
