/**
 * Issue 11 targets, in one run: (1) recomputing every view (each benchmark unfiltered and per
 * dimension value, the index, compare) over 30 days of history on the embedded store and on a real
 * Prometheus, with the backend queries per recompute; (2) cached /api/stat and /api/citable req/s
 * in both modes, measured with wrk (a separate process) against two real services.
 * Run: npx tsx bench/scale.ts  (needs /usr/bin/prometheus and /usr/bin/wrk)
 */
import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { testConfig } from '../src/config.ts';
import { buildDataset } from '../src/demo/dataset.ts';
import { createLogger } from '../src/log.ts';
import { loadSpecs } from '../src/publication/load-specs.ts';
import { createPublication, type Publication } from '../src/publication/publication.ts';
import { defaultRoutes } from '../src/routes.ts';
import { createService, type Service } from '../src/service.ts';
import { openDuckDbStore } from '../src/store/duckdb-store.ts';
import { FileSnapshotStore } from '../src/store/file-snapshot-store.ts';
import { engineStore } from '../src/store/open-store.ts';
import { openPrometheusStore } from '../src/store/prometheus-store.ts';
import { startEngine } from '../test/helpers/engines.ts';

const HOUR = 3_600_000;
const NOW = Math.floor((Date.now() - HOUR) / (30 * 60_000)) * 30 * 60_000;
const DAYS = 30;
const BENCHMARKS_DIR = new URL('../benchmarks', import.meta.url).pathname;
const specs = await loadSpecs(BENCHMARKS_DIR);
const samples = buildDataset({ seed: 3, days: DAYS, end: NOW });
console.log(`machine: ${cpus()[0]?.model} × ${cpus().length}, node ${process.version}`);
console.log(`${samples.length.toLocaleString('en-US')} samples, ${DAYS} days`);

async function recompute(pub: Publication): Promise<number> {
  const t0 = performance.now();
  for (const spec of specs) {
    await pub.stat(spec.slug, null);
    for (const [d, dim] of Object.entries(spec.dimensions)) {
      for (const v of dim?.values ?? []) await pub.stat(spec.slug, { [d]: v.value });
    }
  }
  await pub.citable();
  await pub.compare('mobula', 'codex');
  return performance.now() - t0;
}

const duck = await openDuckDbStore({ path: ':memory:' });
await duck.append(samples);
const site = { name: 'Citebench', baseUrl: 'http://bench.test' };
const embeddedMs = await recompute(createPublication({ specs, store: duck, site, clock: () => NOW }));

const engine = await startEngine('prometheus');
const prom = await openPrometheusStore({ url: engine.url, timeoutMs: 30_000 });
const store = engineStore(prom, new FileSnapshotStore(await mkdtemp(join(tmpdir(), 'snap-'))));
for (let i = 0; i < samples.length; i += 20_000) await store.append(samples.slice(i, i + 20_000));
const before = { ...prom.http.counts };
const promMs = await recompute(createPublication({ specs, store, site, clock: () => NOW }));
const queries = prom.http.counts.reads - before.reads;
const views = specs.reduce(
  (n, s) => n + 1 + Object.values(s.dimensions).reduce((m, d) => m + (d?.values.length ?? 0), 0),
  0,
);
console.log(
  `full recompute (${views} Stat views, index, compare): embedded ${embeddedMs.toFixed(0)} ms, Prometheus ${promMs.toFixed(0)} ms, ${queries} backend queries`,
);

/** wrk in its own process (asynchronously: the services under test run in this one). */
async function wrk(url: string): Promise<number> {
  const { stdout } = await promisify(execFile)('wrk', ['-t1', '-c32', '-d5s', url], { encoding: 'utf8' });
  return Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? 0);
}

async function serviceOn(backend: 'embedded' | 'prometheus'): Promise<{ svc: Service; url: string }> {
  const svc = await createService({
    config: testConfig({ port: 0, benchmarksDir: BENCHMARKS_DIR, baseUrl: site.baseUrl, logLevel: 'silent' }),
    log: createLogger('silent'),
    inMemory: true,
    clock: () => NOW,
    routes: defaultRoutes,
    store:
      backend === 'embedded'
        ? { backend }
        : { backend, snapshotDir: await mkdtemp(join(tmpdir(), 'snap-')), prometheus: { url: engine.url } },
  });
  if (backend === 'embedded') await svc.store.append(samples);
  const port = await svc.listen();
  const url = `http://127.0.0.1:${port}`;
  for (const p of ['/api/stat/token-trade-coverage', '/api/citable'])
    await (await fetch(url + p)).arrayBuffer();
  return { svc, url };
}

const rows: string[] = [];
for (const path of ['/api/stat/token-trade-coverage', '/api/citable']) {
  const e = await serviceOn('embedded');
  const embeddedRps = await wrk(e.url + path);
  await e.svc.close();
  const p = await serviceOn('prometheus');
  const promRps = await wrk(p.url + path);
  await p.svc.close();
  rows.push(
    `${path}: embedded ${embeddedRps.toFixed(0)} req/s, Prometheus ${promRps.toFixed(0)} req/s (${((promRps / embeddedRps) * 100).toFixed(0)}%; target ≥ 90%)`,
  );
}
for (const r of rows) console.log(`cached reads (wrk -t1 -c32 -d5s) ${r}`);
await store.close();
await duck.close();
await engine.destroy();
