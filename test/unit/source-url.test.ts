import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { loadConfig, testConfig } from '../../src/config.ts';
import type { CitableIndex, Stat } from '../../src/core/api-schemas.ts';
import { type BenchmarkSpec, parseSpec, SpecError } from '../../src/core/spec-schema.ts';
import { loadSpecs } from '../../src/publication/load-specs.ts';
import { createPublication } from '../../src/publication/publication.ts';
import { configError } from '../helpers/config-error.ts';
import { BENCHMARKS_DIR, fixture } from '../helpers/fixture.ts';
import { type Running, startServer } from '../helpers/server.ts';

/** Issue 25 §4: the harness source is one setting, SOURCE_URL, with `{family}` per benchmark. */

const TEMPLATE = 'https://code.example.org/citebench/tree/v1/src/harness/families/{family}';
const resolved = (family: string) => TEMPLATE.replace('{family}', family);

describe('SOURCE_URL is validated with the rest of the configuration', () => {
  it('keeps an absolute http(s) URL as given, `{family}` unreplaced; empty is unset', () => {
    expect(loadConfig({ SOURCE_URL: TEMPLATE }).sourceUrl).toBe(TEMPLATE);
    expect(loadConfig({ SOURCE_URL: 'http://git.local/harness' }).sourceUrl).toBe('http://git.local/harness');
    expect(loadConfig({}).sourceUrl).toBeNull();
    expect(loadConfig({ SOURCE_URL: '' }).sourceUrl).toBeNull();
  });

  it('refuses anything else with one line naming SOURCE_URL and its value', () => {
    for (const bad of [
      'github.com/x/y',
      'localhost:8080/src',
      'ftp://host/src',
      'https://',
      'https://a b/c',
    ]) {
      const m = configError({ SOURCE_URL: bad });
      expect(m.split('\n'), bad).toHaveLength(1);
      expect(m, bad).toMatch(/^invalid configuration: SOURCE_URL=.* is not an absolute http\(s\) URL/);
    }
    expect(configError({ SOURCE_URL: 'https://x.org/{slug}' })).toContain(
      'SOURCE_URL="https://x.org/{slug}" has an unknown placeholder {slug} (only {family} is replaced)',
    );
  });
});

describe('a spec still carrying `source`', () => {
  // Registers the provider catalogue the specs name.
  beforeAll(() => loadSpecs(BENCHMARKS_DIR));

  it('is refused with one line naming the file and SOURCE_URL (not as a generic unknown key)', async () => {
    const data = parse(await readFile(join(BENCHMARKS_DIR, 'rpc-latency.yml'), 'utf8')) as object;
    const file = 'benchmarks/rpc-latency.yml';
    let message = '';
    try {
      parseSpec(file, { ...data, source: 'https://github.com/x/y' });
    } catch (e) {
      expect(e).toBeInstanceOf(SpecError);
      message = (e as Error).message;
    }
    expect(message.split('\n')).toEqual([
      `${file}: field "source": is no longer a spec field: delete it and set SOURCE_URL (the public http(s) URL of the harness source; {family} becomes each benchmark's family)`,
    ]);
    // The same spec without it parses, and no shipped spec carries it.
    expect(parseSpec(file, data).slug).toBe('rpc-latency');
    for (const f of await readdir(BENCHMARKS_DIR)) {
      expect(await readFile(join(BENCHMARKS_DIR, f), 'utf8'), f).not.toMatch(/^source:/m);
    }
  });

  it('stops loading the folder', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cb-source-'));
    for (const f of await readdir(BENCHMARKS_DIR)) {
      let text = await readFile(join(BENCHMARKS_DIR, f), 'utf8');
      if (f === 'network-coverage.yml') text += stringify({ source: 'https://github.com/x/y' });
      await writeFile(join(dir, f), text);
    }
    await expect(loadSpecs(dir)).rejects.toThrow(
      new RegExp(`^${join(dir, 'network-coverage.yml')}: field "source": .*SOURCE_URL`),
    );
  });
});

describe('Stat.source is SOURCE_URL with {family} replaced', () => {
  let srv: Running;
  let specs: BenchmarkSpec[];
  beforeAll(async () => {
    specs = await loadSpecs(BENCHMARKS_DIR);
    srv = await startServer({ sourceUrl: TEMPLATE });
  }, 60_000);
  afterAll(() => srv.close());

  it('in every Stat, index row, page and the llm-context', async () => {
    // At least two families, so one source for all would fail.
    expect(new Set(specs.map((s) => s.family)).size).toBeGreaterThan(1);
    const index = (await (await srv.get('/api/citable')).json()) as CitableIndex;
    const markdown = await (await srv.get('/api/llm-context')).text();
    for (const spec of specs) {
      const stat = (await (await srv.get(`/api/stat/${spec.slug}`)).json()) as Stat;
      expect(stat.source, spec.slug).toBe(resolved(spec.family));
      const row = index.benchmarks.find((b) => b.slug === spec.slug);
      if (row) expect(row.source, spec.slug).toBe(resolved(spec.family));
      const page = await (await srv.get(`/benchmarks/${spec.slug}`)).text();
      expect(page, spec.slug).toContain(`Harness source: <a href="${resolved(spec.family)}">`);
      expect(markdown).toContain(`- JSON: ${stat.api}\n- Source: ${resolved(spec.family)}\n`);
    }
    expect(index.benchmarks.length).toBeGreaterThan(0);
  });
});

describe('without SOURCE_URL (the demo, serve --simulate)', () => {
  it("the source is the methodology's harness section on BASE_URL", async () => {
    const srv = await startServer({ simulated: true });
    try {
      const stat = (await (await srv.get('/api/stat/rpc-latency')).json()) as Stat;
      expect(stat.simulated).toBe(true);
      expect(stat.source).toBe('http://bench.test/methodology#harness');
    } finally {
      await srv.close();
    }
  }, 60_000);
});

describe('a frozen day', () => {
  it('keeps the source it was frozen with when SOURCE_URL changes', async () => {
    const f = await fixture();
    try {
      const site = { baseUrl: 'http://bench.test', siteName: 'Citebench' };
      const before = createPublication({
        specs: f.specs,
        store: f.store,
        config: testConfig({ ...site, sourceUrl: TEMPLATE }),
        clock: () => f.clock.now,
      });
      await before.freezeClosedDays();
      before.close();
      const moved = 'https://elsewhere.example/harness';
      const after = createPublication({
        specs: f.specs,
        store: f.store,
        config: testConfig({ ...site, sourceUrl: moved }),
        clock: () => f.clock.now,
      });
      const frozen = await after.frozenStat('rpc-latency', '2026-11-19');
      if (frozen.kind !== 'ok') throw new Error(`not frozen: ${frozen.kind}`);
      const stat = JSON.parse(new TextDecoder().decode(frozen.served.body)) as Stat;
      expect(stat.source).toBe(resolved('json-rpc'));
      expect((await after.stat('rpc-latency', null)).value.source).toBe(moved);
      after.close();
    } finally {
      await f.close();
    }
  }, 60_000);
});
