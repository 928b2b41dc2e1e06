/**
 * Specs change, days don't (issue 25, rule 4): a spec's hash is of its parsed meaning, so a
 * comment leaves it alone and a methodology edit changes it from the next freeze on, while the day
 * frozen before keeps every byte: index, Stats, files and manifest.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { testConfig } from '../../src/config.ts';
import type { CitableIndex } from '../../src/core/api-schemas.ts';
import { DAY_MS } from '../../src/core/dates.ts';
import type { BuildInfo } from '../../src/core/provenance.ts';
import { buildDataset } from '../../src/demo/dataset.ts';
import { createLogger } from '../../src/log.ts';
import { defaultRoutes } from '../../src/routes.ts';
import { createService } from '../../src/service.ts';
import { BENCHMARKS_DIR, NOW } from '../helpers/fixture.ts';
import { ROOT } from '../helpers/service-process.ts';

const DAY1 = '2026-11-19';
const DAY2 = '2026-11-20';
const EDITED = 'token-trade-coverage';
const tmp = mkdtempSync(join(tmpdir(), 'citebench-spec-hash-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function specsDir(name: string, edit?: (yaml: string) => string): string {
  const dir = join(tmp, name);
  cpSync(BENCHMARKS_DIR, dir, { recursive: true });
  if (edit) {
    const file = join(dir, `${EDITED}.yml`);
    writeFileSync(file, edit(readFileSync(file, 'utf8')));
  }
  return dir;
}

/** The first methodology line, reworded. */
const editMethodology = (yaml: string) => yaml.replace(/^(methodology:\n {2}- ")/m, '$1Edited. ');
/** A comment and a re-quoted line: the same spec. */
const editComments = (yaml: string) =>
  `# A comment changes nothing.\n${yaml.replace(/^methodology:$/m, 'methodology: # still the same\n')}`;

function cli(...args: string[]) {
  return spawnSync(process.execPath, ['bin/citebench.mjs', ...args], { cwd: ROOT, encoding: 'utf8' });
}

/** A real service on DATA_DIR `data` with `benchmarks`, at `now`, built as `build`. */
async function serve(benchmarks: string, now: number, build: BuildInfo) {
  const service = await createService({
    config: testConfig({
      port: 0,
      benchmarksDir: benchmarks,
      dataDir: join(tmp, 'data'),
      baseUrl: 'http://bench.test',
      logLevel: 'silent',
    }),
    log: createLogger('silent'),
    clock: () => now,
    routes: defaultRoutes,
    build,
  });
  const port = await service.listen();
  const get = async (path: string) => {
    const res = await fetch(`http://127.0.0.1:${port}${path}`);
    expect(res.status, path).toBe(200);
    return Buffer.from(await res.arrayBuffer());
  };
  return { service, get };
}

describe('spec hashes', () => {
  it('citebench spec-hash: a comment keeps the hash, a methodology edit changes it, a bad file exits 2', () => {
    const file = (dir: string) => join(dir, `${EDITED}.yml`);
    const original = cli('spec-hash', file(specsDir('orig')));
    const commented = cli('spec-hash', file(specsDir('commented', editComments)));
    const edited = cli('spec-hash', file(specsDir('edited', editMethodology)));
    for (const r of [original, commented, edited]) {
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^[0-9a-f]{64}\n$/);
    }
    expect(commented.stdout).toBe(original.stdout);
    expect(edited.stdout).not.toBe(original.stdout);

    const bad = join(tmp, 'bad.yml');
    writeFileSync(bad, 'slug: bad\nnumber: [\n');
    for (const r of [cli('spec-hash', bad), cli('spec-hash', join(tmp, 'missing.yml')), cli('spec-hash')]) {
      expect(r.status).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^spec-hash: /);
    }
    // Six CLI runs: quiet, ~6 s (22 s with the machine 3–4 times slower); a hang guard only.
  }, 180_000);

  it('an edit changes the hash from the next freeze on; the day frozen before keeps every byte', async () => {
    const first = await serve(specsDir('day1'), NOW, { version: '1.0.0' });
    await first.service.store.append(buildDataset({ seed: 7, days: 3, end: NOW + DAY_MS }));
    await first.service.publication.freezeClosedDays();
    const paths = [
      `/api/citable/${DAY1}`,
      ...first.service.specs.map((s) => `/api/stat/${s.slug}?date=${DAY1}`),
      `/api/dataset/${DAY1}.parquet`,
      `/api/dataset/${DAY1}.csv`,
      `/api/dataset/${DAY1}.json`,
    ];
    const before = await Promise.all(paths.map(first.get));
    await first.service.close();

    const second = await serve(specsDir('day2', editMethodology), NOW + DAY_MS, { version: '2.0.0' });
    try {
      await second.service.publication.freezeClosedDays();
      const after = await Promise.all(paths.map(second.get));
      for (const [i, path] of paths.entries()) expect(after[i]?.equals(before[i] as Buffer), path).toBe(true);

      const day1 = JSON.parse(String(before[0])) as CitableIndex;
      const day2 = JSON.parse(String(await second.get(`/api/citable/${DAY2}`))) as CitableIndex;
      const [h1, h2] = [day1.site.provenance?.specs ?? {}, day2.site.provenance?.specs ?? {}];
      expect(day2.site.provenance?.version).toBe('2.0.0');
      expect(h2[EDITED]).toMatch(/^[0-9a-f]{64}$/);
      expect(h2[EDITED]).not.toBe(h1[EDITED]);
      // Only the edited spec's hash moved.
      expect({ ...h2, [EDITED]: '' }).toEqual({ ...h1, [EDITED]: '' });
      const manifest2 = JSON.parse(String(await second.get(`/api/dataset/${DAY2}.json`))) as {
        provenance: unknown;
      };
      expect(manifest2.provenance).toEqual(day2.site.provenance);
    } finally {
      await second.service.close();
    }
  }, 120_000);
});
