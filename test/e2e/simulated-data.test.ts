import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { testConfig } from '../../src/config.ts';
import { citeAs } from '../../src/core/citations.ts';
import { labelSimulated, ORIGIN_LABEL, SIMULATED_ORIGIN } from '../../src/core/sample-origin.ts';
import type { Sample } from '../../src/core/samples.ts';
import { buildDataset } from '../../src/demo/dataset.ts';
import { loadHarnessConfig, simulatorEnv } from '../../src/harness/config.ts';
import { METRICS } from '../../src/harness/families/metric-names.ts';
import { startHarness } from '../../src/harness/service.ts';
import { loadSpecs } from '../../src/publication/load-specs.ts';
import { createPublication } from '../../src/publication/publication.ts';
import { readOrigins } from '../../src/publication/sample-origins.ts';
import { startSimulator } from '../../src/sim/server.ts';
import { openDuckDbStore } from '../../src/store/duckdb-store.ts';
import { BENCHMARKS_DIR, NOW } from '../helpers/fixture.ts';
import { createMemoryStore } from '../helpers/memory-store.ts';
import { type ServiceProcess, spawnService } from '../helpers/service-process.ts';

const running: ServiceProcess[] = [];
afterEach(() => {
  for (const p of running.splice(0)) p.child.kill('SIGKILL');
});

async function publicationOver(samples: readonly Sample[], simulated: boolean) {
  const specs = await loadSpecs(BENCHMARKS_DIR);
  const store = await openDuckDbStore({ path: ':memory:' });
  if (samples.length) await store.append(samples);
  const publication = createPublication({
    specs,
    store,
    config: { ...testConfig({ baseUrl: 'http://bench.test' }), simulated },
    clock: () => NOW,
  });
  await publication.originsChecked();
  return { specs, store, publication };
}

const dataset = () => buildDataset({ seed: 7, days: 2, end: NOW });

describe('simulated data is marked everywhere a reader could quote it', () => {
  it('demo mode: site.simulated, Stat, Compare, audit, quote, all four citation formats, llm-context', async () => {
    const { publication, store } = await publicationOver(dataset(), true);
    const idx = (await publication.citable()).value;
    expect(idx.site.simulated).toBe(true);
    for (const spec of publication.specs) {
      const stat = (await publication.stat(spec.slug, null)).value;
      expect(stat.simulated).toBe(true);
      expect(stat.quote).toContain('Simulated demo data');
      for (const text of [stat.cite.plain, stat.cite.apa, stat.cite.bibtex, stat.cite.ris])
        expect(text).toContain('simulated demo data');
      // The /api/cite files are built the same way.
      for (const f of ['bib', 'ris', 'apa', 'txt'] as const)
        expect(
          citeAs(f, {
            siteName: 'C',
            slug: spec.slug,
            title: stat.title,
            url: stat.pageUrl,
            retrieved: NOW,
            simulated: true,
          }),
        ).toContain('simulated demo data');
      const provider = stat.rankings[0]?.slug ?? spec.providers[0]?.slug ?? '';
      expect((await publication.audit(spec.slug, provider))?.value.simulated).toBe(true);
    }
    const cmp = await publication.compare('mobula', 'codex');
    expect(cmp.ok && cmp.served.value.simulated).toBe(true);
    const md = new TextDecoder().decode((await publication.llmContext()).body);
    expect(md.split('\n').slice(0, 4).join('\n')).toMatch(/SIMULATED DEMO DATA/);
    // Frozen day snapshots carry it too.
    await publication.freezeClosedDays();
    const day = new Date(NOW - 86_400_000).toISOString().slice(0, 10);
    const snap = await publication.snapshot(day);
    expect(snap.kind).toBe('frozen');
    if (snap.kind === 'frozen')
      expect(new TextDecoder().decode(snap.served.body)).toContain('"simulated":true');
    publication.close();
    await store.close();
  });

  it('a real deployment shows none of it', async () => {
    const { publication, store } = await publicationOver(dataset(), false);
    const idx = await publication.citable();
    expect(new TextDecoder().decode(idx.body)).not.toMatch(/simulated/i);
    for (const spec of publication.specs) {
      const body = new TextDecoder().decode((await publication.stat(spec.slug, null)).body);
      expect(body).not.toMatch(/simulated/i);
    }
    expect(new TextDecoder().decode((await publication.llmContext()).body)).not.toMatch(/simulated/i);
    publication.close();
    await store.close();
  });

  it('samples labelled origin="simulated" in the store mark the views, at start-up and after an append', async () => {
    const labelled = labelSimulated(dataset());
    const atStart = await publicationOver(labelled, false);
    expect(atStart.publication.isSimulated).toBe(true);
    expect((await atStart.publication.stat('network-coverage', null)).value.simulated).toBe(true);
    atStart.publication.close();
    await atStart.store.close();

    const later = await publicationOver([], false);
    expect((await later.publication.citable()).value.site.simulated).toBeUndefined();
    await later.store.append(labelled.slice(0, 200));
    await later.publication.originsChecked();
    expect((await later.publication.citable()).value.site.simulated).toBe(true);
    later.publication.close();
    await later.store.close();
  });

  it('readOrigins tells measured from simulated samples on one store', async () => {
    const store = await openDuckDbStore({ path: ':memory:' });
    expect(await readOrigins(store)).toEqual({ simulated: false, measured: false });
    const s = (labels: Record<string, string>): Sample => ({
      metric: METRICS.networksSupported,
      labels,
      t: NOW,
      v: 1,
    });
    await store.append([s({ provider: 'a', [ORIGIN_LABEL]: SIMULATED_ORIGIN })]);
    expect(await readOrigins(store)).toEqual({ simulated: true, measured: false });
    await store.append([s({ provider: 'b' })]);
    expect(await readOrigins(store)).toEqual({ simulated: true, measured: true });
    await store.close();
  });

  it('the harness labels every sample it measures against the simulator (and none otherwise)', async () => {
    const specs = await loadSpecs(BENCHMARKS_DIR);
    const sim = await startSimulator({ seed: 3, tradesPerHour: 60 });
    try {
      for (const simulated of [true, false]) {
        const store = createMemoryStore();
        const h = startHarness({
          store,
          specs: specs.filter((s) => s.slug === 'network-coverage'),
          metrics: new Registry(),
          harnessConfig: loadHarnessConfig(simulatorEnv(sim.baseUrls, sim.keys)),
          autoStart: false,
          simulated,
        });
        await h.runCycle('network-coverage', NOW);
        await h.stop();
        const all = await store.select({ metric: METRICS.networksSupported, after: 0, until: NOW });
        expect(all.length).toBeGreaterThan(0);
        expect(all.every((x) => (x.labels[ORIGIN_LABEL] === SIMULATED_ORIGIN) === simulated)).toBe(true);
        await store.close();
      }
    } finally {
      await sim.close();
    }
  });
});

describe('a store never mixes origins: the refusals', () => {
  async function dirWith(samples: readonly Sample[]): Promise<string> {
    const dir = mkdtempSync(join(tmpdir(), 'cb-origin-'));
    const store = await openDuckDbStore({ path: join(dir, 'citebench.duckdb') });
    await store.append(samples);
    await store.close();
    return dir;
  }
  const one = (labels: Record<string, string>): Sample => ({
    metric: METRICS.networksSupported,
    labels,
    t: Date.UTC(2026, 0, 1),
    v: 5,
  });

  it('npm run demo refuses a DATA_DIR holding measured samples, in one line', async () => {
    const dir = await dirWith([one({ provider: 'coingecko' })]);
    const p = await spawnService({ DATA_DIR: dir });
    running.push(p);
    const { code } = await p.exited();
    expect(code).toBe(2);
    const lines = p
      .output()
      .split('\n')
      .filter((l) => l.trim());
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^cannot start: DATA_DIR=\S+ holds measured samples/);
  }, 120_000);

  it('serve refuses a DATA_DIR holding simulated samples unless started with --simulate', async () => {
    const dir = await dirWith([one({ provider: 'coingecko', [ORIGIN_LABEL]: SIMULATED_ORIGIN })]);
    const p = await spawnService({ DATA_DIR: dir, HARNESS_ENABLED: 'false' }, { entry: 'src/main.ts' });
    running.push(p);
    const { code } = await p.exited();
    expect(code).toBe(2);
    expect(p.output()).toMatch(
      /^cannot start: DATA_DIR=\S+ holds simulated samples .*--simulate.*set DATA_DIR to another folder/,
    );

    const ok = await spawnService(
      { DATA_DIR: dir, HARNESS_ENABLED: 'false' },
      { command: [process.execPath, 'bin/citebench.mjs', 'serve', '--simulate'] },
    );
    running.push(ok);
    // Quiet, the welcome is printed ~5 s after the start; the bound is against a hang only.
    await ok.waitFor(/Citebench is running on SIMULATED demo data/, 60_000);
    const idx = await (await fetch(`${ok.base}/api/citable`)).json();
    expect(idx.site.simulated).toBe(true);
    const home = await (await fetch(`${ok.base}/`, { headers: { accept: 'text/html' } })).text();
    expect(home).toContain('data-testid="simulated-banner"');
    ok.child.kill('SIGTERM');
    expect((await ok.exited()).code).toBe(0);
  }, 180_000);
});
