/**
 * Provenance (issue 25, rule 4): the harness writes its build beside every cycle, a view names the
 * build that computed it, the hashes of its specs and the harness builds of its window, and a
 * closed day's dataset carries the same object in its manifest and its Parquet metadata.
 */
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CitableIndex, DatasetManifest } from '../../src/core/api-schemas.ts';
import { canonicalJson } from '../../src/core/canonical-json.ts';
import { HARNESS_BUILD_INFO_METRIC, HARNESS_CYCLE_METRIC } from '../../src/core/metric-names.ts';
import type { Sample } from '../../src/core/samples.ts';
import { harnessSourceUrl } from '../../src/core/source-url.ts';
import { specHashes } from '../../src/core/spec-hash.ts';
import { buildDataset } from '../../src/demo/dataset.ts';
import { loadHarnessConfig, simulatorEnv } from '../../src/harness/config.ts';
import { STORED_METRIC_NAMES } from '../../src/harness/families/metric-names.ts';
import { startHarness } from '../../src/harness/service.ts';
import { parquetKvMetadata, sha256Hex } from '../../src/publication/dataset-files.ts';
import { loadSpecs } from '../../src/publication/load-specs.ts';
import { startSimulator } from '../../src/sim/server.ts';
import { BENCHMARKS_DIR, fixture, H, NOW } from '../helpers/fixture.ts';
import { openTestStore } from '../helpers/memory-store.ts';
import { type Running, startServer } from '../helpers/server.ts';

const DAY = '2026-11-19';
const HARNESS_BUILD = { version: '9.8.7', revision: 'abcdef1234567' };
const SERVICE_BUILD = { version: '1.2.3', revision: '0123456789abcdef0123456789abcdef01234567' };
/** Two network-coverage cycles on DAY and one within the live window (the last 24 h). */
const SLOTS = [Date.UTC(2026, 10, 19, 6), Date.UTC(2026, 10, 19, 18), NOW - 2 * H];

/** Every sample a real harness at HARNESS_BUILD (region eu-test) wrote for SLOTS, and its append count. */
async function harnessSamples(): Promise<{ samples: Sample[]; appendCalls: number }> {
  const sim = await startSimulator({ seed: 7 });
  const store = await openTestStore();
  const specs = await loadSpecs(BENCHMARKS_DIR);
  const harness = startHarness({
    store,
    specs: specs.filter((s) => s.slug === 'network-coverage'),
    metrics: new Registry(),
    harnessConfig: loadHarnessConfig(
      simulatorEnv(sim.baseUrls, sim.keys, { HARNESS_TIMEOUT_MS: '2000', HARNESS_REGION: 'eu-test' }),
    ),
    autoStart: false,
    sleep: async () => {},
    build: HARNESS_BUILD,
  });
  try {
    for (const at of SLOTS) await harness.runCycle('network-coverage', at);
    const samples: Sample[] = [];
    for (const metric of STORED_METRIC_NAMES)
      samples.push(...(await store.select({ metric, after: 0, until: NOW })));
    return { samples, appendCalls: store.appendCalls };
  } finally {
    await harness.stop();
    await sim.close();
    await store.close();
  }
}

let srv: Running;
let measured: { samples: Sample[]; appendCalls: number };
const json = async <T>(path: string): Promise<T> => {
  const res = await srv.get(path);
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
};
const bytes = async (path: string) => Buffer.from(await (await srv.get(path)).arrayBuffer());

beforeAll(async () => {
  measured = await harnessSamples();
  srv = await startServer({
    samples: [...buildDataset({ seed: 7, days: 3, end: NOW }), ...measured.samples],
    build: SERVICE_BUILD,
  });
});
afterAll(() => srv?.close());

describe('the measurer: harness_build_info', () => {
  it('is written in each cycle append, beside its marker, with version, revision and region', () => {
    // One append per cycle: the build info is part of the cycle, never a write of its own.
    expect(measured.appendCalls).toBe(SLOTS.length);
    const info = measured.samples.filter((s) => s.metric === HARNESS_BUILD_INFO_METRIC);
    const markers = measured.samples.filter((s) => s.metric === HARNESS_CYCLE_METRIC);
    expect(info.map((s) => s.t)).toEqual(markers.map((s) => s.t));
    for (const s of info) {
      expect(s.v).toBe(1);
      expect(s.labels).toEqual({
        benchmark: 'network-coverage',
        version: HARNESS_BUILD.version,
        revision: HARNESS_BUILD.revision,
        region: 'eu-test',
      });
    }
  });

  it('reaches the dataset as rows, and late-write accounting counts it on both sides', async () => {
    const csv = (await bytes(`/api/dataset/${DAY}.csv`)).toString('utf8');
    const rows = csv.split('\n').filter((l) => l.startsWith(`${HARNESS_BUILD_INFO_METRIC},`));
    expect(rows).toHaveLength(2);
    const pub = srv.service.publication;
    const start = Date.parse(`${DAY}T00:00:00Z`);
    const manifest = await json<DatasetManifest>(`/api/dataset/${DAY}.json`);
    expect(await pub.dataset.countStored(start)).toBe(manifest.rows);
  });
});

describe('the provenance object', () => {
  it("a frozen day names the freezing service, its specs' hashes and the harness builds of that day", async () => {
    const index = await json<CitableIndex>(`/api/citable/${DAY}`);
    const p = index.site.provenance;
    expect(p?.version).toBe(SERVICE_BUILD.version);
    expect(p?.revision).toBe(SERVICE_BUILD.revision);
    expect(p?.specs).toEqual(specHashes(srv.service.specs));
    // The harness ran at another version than the service that froze the day: its cycles of the
    // day (two of the three slots) are what measuredBy counts.
    expect(p?.measuredBy).toEqual([{ ...HARNESS_BUILD, region: 'eu-test', cycles: 2 }]);
  });

  it('the live index counts the last 24 h', async () => {
    const live = await json<CitableIndex>('/api/citable');
    expect(live.site.snapshotDate).toBeNull();
    expect(live.site.provenance?.version).toBe(SERVICE_BUILD.version);
    // 2026-11-19T18:00 and 2026-11-20T10:00 are within 24 h of 12:00; 06:00 the day before is not.
    expect(live.site.provenance?.measuredBy).toEqual([{ ...HARNESS_BUILD, region: 'eu-test', cycles: 2 }]);
  });
});

describe('the dataset manifest', () => {
  it("lists the day's files with their hashes, the licences and the day's provenance", async () => {
    const manifest = await json<DatasetManifest>(`/api/dataset/${DAY}.json`);
    const index = await json<CitableIndex>(`/api/citable/${DAY}`);
    const parquet = await bytes(`/api/dataset/${DAY}.parquet`);
    const csv = await bytes(`/api/dataset/${DAY}.csv`);
    expect(manifest.date).toBe(DAY);
    expect(manifest.files.parquet).toEqual({
      url: `http://bench.test/api/dataset/${DAY}.parquet`,
      sha256: sha256Hex(parquet),
    });
    expect(manifest.files.csv).toEqual({
      url: `http://bench.test/api/dataset/${DAY}.csv`,
      sha256: sha256Hex(csv),
    });
    expect(manifest.license).toEqual({ data: 'CC-BY-4.0', code: 'MIT' });
    expect(manifest.provenance).toEqual(index.site.provenance);
    expect(manifest.rows).toBe(csv.toString('utf8').trimEnd().split('\n').length - 1);
  });

  it('CSV line 1 is the header; the Parquet metadata holds the same provenance and licences', async () => {
    const csv = (await bytes(`/api/dataset/${DAY}.csv`)).toString('utf8');
    expect(csv.split('\n')[0]).toMatch(/^metric,.*,timestamp,value$/);
    expect(csv).not.toMatch(/^#/m);
    const manifest = await json<DatasetManifest>(`/api/dataset/${DAY}.json`);
    const kv = await parquetKvMetadata(await bytes(`/api/dataset/${DAY}.parquet`));
    expect(JSON.parse(kv.provenance ?? 'null')).toEqual(manifest.provenance);
    expect(kv.provenance).toBe(canonicalJson(manifest.provenance));
    expect(JSON.parse(kv.license ?? 'null')).toEqual(manifest.license);
  });

  it('is immutable, revalidates with 304, and the index links it', async () => {
    const res = await srv.get(`/api/dataset/${DAY}.json`);
    expect(res.headers.get('cache-control')).toContain('immutable');
    const etag = res.headers.get('etag') ?? '';
    const again = await srv.get(`/api/dataset/${DAY}.json`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    const index = await json<{ days: { date: string; manifest?: string; frozen: boolean }[] }>(
      '/api/dataset',
    );
    const day = index.days.find((d) => d.date === DAY);
    expect(day?.manifest).toBe(`http://bench.test/api/dataset/${DAY}.json`);
    expect(index.days.find((d) => !d.frozen)?.manifest).toBeUndefined();
  });

  it('answers bad dates with 400 and days without a manifest with 404, as JSON errors', async () => {
    for (const [path, status, error] of [
      ['/api/dataset/2026-02-30.json', 400, 'bad_date'],
      ['/api/dataset/nope.json', 400, 'bad_date'],
      ['/api/dataset/2030-01-01.json', 400, 'bad_date'],
      ['/api/dataset/2020-01-01.json', 400, 'bad_date'],
      ['/api/dataset/2026-11-20.json', 404, 'not_frozen'],
    ] as const) {
      const res = await srv.get(path);
      expect(res.status, path).toBe(status);
      const body = (await res.json()) as { error: string; message: string };
      expect(body.error, path).toBe(error);
      expect(body.message.length).toBeGreaterThan(0);
    }
  });

  it('is documented in OpenAPI from its declaration', async () => {
    const doc = (await json<{ paths: Record<string, { get?: { responses: Record<string, unknown> } }> }>(
      '/api/openapi.json',
    )) as { paths: Record<string, { get?: { operationId?: string; responses: Record<string, unknown> } }> };
    const op = doc.paths['/api/dataset/{date}.json']?.get;
    expect(op?.operationId).toBe('get_dataset_manifest');
    expect(Object.keys(op?.responses ?? {})).toEqual(expect.arrayContaining(['200', '400', '404']));
    expect(JSON.stringify(op?.responses['200'])).toContain('DatasetManifest');
  });
});

describe('the methodology section #harness', () => {
  it("shows today's provenance: this build, the harness builds with their cycles, each spec's hash and source", async () => {
    const res = await srv.get('/methodology');
    expect(res.status).toBe(200);
    const page = await res.text();
    const section = /<section id="harness">([\s\S]*?)<\/section>/.exec(page)?.[1] ?? '';
    expect(section).toContain(`<code>${SERVICE_BUILD.version}</code>`);
    expect(section).toContain(`<code>${SERVICE_BUILD.revision}</code>`);
    expect(section).toMatch(
      new RegExp(
        `<td><code>${HARNESS_BUILD.version}</code></td><td><code>${HARNESS_BUILD.revision}</code></td><td>eu-test</td><td>2</td>`,
      ),
    );
    const hashes = specHashes(srv.service.specs);
    for (const spec of srv.service.specs) {
      expect(section).toContain(`<code>${hashes[spec.slug]}</code>`);
      expect(section).toContain(`href="${harnessSourceUrl(srv.service.publication.site, spec.family)}"`);
    }
  });
});

describe('days frozen before provenance', () => {
  it('keep their index without it, and their manifest says provenance: null (Parquet metadata too)', async () => {
    const f = await fixture();
    try {
      // The index as the code before provenance froze it: the same object without the field.
      const index = (await f.publication.citable()).value;
      const { provenance: _dropped, ...site } = index.site;
      const old = new TextEncoder().encode(canonicalJson({ ...index, site: { ...site, snapshotDate: DAY } }));
      await f.store.putSnapshot(`citable:${DAY}`, old, 'W/"old"');
      await f.publication.freezeClosedDays();
      const kept = await f.store.getSnapshot(`citable:${DAY}`);
      expect(Buffer.from(kept?.body ?? []).equals(Buffer.from(old))).toBe(true);
      const r = await f.publication.dataset.manifest(DAY);
      if (r.kind !== 'ok') throw new Error(r.message);
      const manifest = JSON.parse(new TextDecoder().decode(r.body)) as DatasetManifest;
      expect(manifest.provenance).toBeNull();
      const file = await f.publication.dataset.file(DAY, 'parquet');
      if (file.kind !== 'ok') throw new Error(file.message);
      expect((await parquetKvMetadata(file.file.body)).provenance).toBe('null');
    } finally {
      await f.close();
    }
  });
});
