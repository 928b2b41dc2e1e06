import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { CitableIndex, Stat } from '../../src/core/api-schemas.ts';
import { HARNESS_CYCLE_METRIC } from '../../src/core/family.ts';
import { METRICS } from '../../src/harness/families/metric-names.ts';
import {
  captureGolden,
  GOLDEN_FILE,
  GOLDEN_NOW,
  type GoldenCorpus,
  type GoldenRun,
  goldenRequests,
  startGoldenDemo,
} from '../helpers/golden.ts';

/**
 * Proof by YAML alone: a new benchmark of an existing family is one file in BENCHMARKS_DIR, with no
 * code change. It is measured by the demo's harness (by the family's one probe), published on every
 * surface, frozen, cited, answered over MCP; and the benchmark it shares the family with publishes
 * exactly the bytes it published alone (the golden corpus).
 */
const EVM = 'network-coverage-evm';
const PROVIDERS = ['covalent', 'sim-dune', 'codex'];
const CLOSED = '2026-11-19';

const spec = {
  slug: EVM,
  number: '006',
  title: 'Onchain data API with most EVM networks supported',
  subtitle: 'How many mainnet networks three EVM-first data providers list, once per CAIP-2 chain id.',
  category: 'Aggregators',
  metric: 'Networks supported',
  unit: 'count',
  higherIsBetter: true,
  status: 'live',
  abstract:
    'The EVM-first subset of the network coverage benchmark: the same listings, read by the same probe, ranked among three providers whose listings are chain indexes.',
  methodology: [
    'Measured from the same listings as network-coverage: one chain-listing probe reads each provider once per slot for both benchmarks.',
    'Counting rule: each provider is counted once per unique CAIP-2 chain id, mainnets only, from its latest successful listing.',
  ],
  license: 'CC-BY-4.0',
  window: '24h',
  family: 'chain-listing',
  cadence: '6h',
  derivation: { mode: 'latest', metric: 'networks_supported' },
  dimensions: {
    kind: {
      appliesTo: 'provider',
      values: [
        { value: 'chain-index', label: 'Chain data index' },
        { value: 'evm-only', label: 'EVM-only listing' },
        { value: 'dex-index', label: 'DEX index' },
      ],
    },
  },
  providers: [
    { slug: 'covalent', kind: 'chain-index', endpoint: 'GET https://api.covalenthq.com/v1/chains/' },
    { slug: 'sim-dune', kind: 'evm-only', endpoint: 'GET https://api.sim.dune.com/v1/evm/supported-chains' },
    { slug: 'codex', kind: 'dex-index', endpoint: 'POST https://graph.codex.io/graphql getNetworks' },
  ],
};

/** Golden requests about network-coverage alone (not lists of every benchmark). */
const OWN = /^\/(api\/(stat|audit|cite|series|og|sparkline)|benchmarks)\/network-coverage(\/|\?|$)/;

let dir: string;
let run: GoldenRun;
let client: Client;
const get = (path: string) => fetch(`${run.url}${path}`);
const json = async <T>(path: string): Promise<T> => (await (await get(path)).json()) as T;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'benchmarks-'));
  // The chain-listing family alone (network-coverage and the new file, beside the provider
  // catalogue): what is checked here is that family's probe and network-coverage's own answers, and
  // the other families' 3-day backfill would cost half a minute of CI for nothing this file reads.
  await cp(resolve(import.meta.dirname, '../../benchmarks'), dir, {
    recursive: true,
    filter: (src) => !/\.yml$/.test(src) || /(network-coverage|providers)\.yml$/.test(src),
  });
  await writeFile(
    join(dir, `${EVM}.yml`),
    `# Written by test/unit/benchmark-by-yaml.test.ts\n${stringify(spec)}`,
  );
  run = await startGoldenDemo({ benchmarksDir: dir });
  client = new Client({ name: 'citebench-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${run.url}/api/mcp/mcp`)));
});
afterAll(async () => {
  await client?.close();
  await run?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe(`a benchmark added by a YAML file (${EVM})`, () => {
  it('is measured by the family probe: one harness_cycle per benchmark, one listing per provider and slot', async () => {
    const store = run.service.store;
    const all = { after: 0, until: GOLDEN_NOW };
    const cycles = await store.select({ metric: HARNESS_CYCLE_METRIC, ...all });
    const slotsOf = (b: string) => cycles.filter((s) => s.labels.benchmark === b).map((s) => s.t);
    expect(slotsOf(EVM).length).toBeGreaterThan(0);
    expect(slotsOf(EVM)).toEqual(slotsOf('network-coverage'));
    // Stored once: one count per provider and slot, whichever benchmarks read it.
    const counts = await store.select({ metric: METRICS.networksSupported, ...all });
    const keys = counts.map((s) => `${s.labels.provider}@${s.t}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('is published in /api/stat with its own providers only, and in /api/citable', async () => {
    const stat = await json<Stat>(`/api/stat/${EVM}`);
    expect(stat.slug).toBe(EVM);
    expect(stat.title).toBe(spec.title);
    expect(stat.status).toBe('live');
    expect(stat.rankings.map((r) => r.slug).sort()).toEqual([...PROVIDERS].sort());
    // The same counts network-coverage publishes for those providers: one probe, two benchmarks.
    const all = await json<Stat>('/api/stat/network-coverage');
    for (const r of stat.rankings) {
      expect(r.ms.p50).toBe(all.rankings.find((x) => x.slug === r.slug)?.ms.p50);
    }
    const index = await json<CitableIndex>('/api/citable');
    expect(JSON.stringify(index)).toContain(`"${EVM}"`);
  });

  it('is in compare, llm-context, the pages and the day snapshot, and cited in every format', async () => {
    expect(await (await get('/api/compare/covalent/sim-dune')).text()).toContain(EVM);
    expect(await (await get('/api/llm-context')).text()).toContain(spec.title);
    const page = await get(`/benchmarks/${EVM}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(spec.methodology[0]?.slice(0, 40) ?? '');
    expect(await (await get('/')).text()).toContain(EVM);
    const day = await get(`/api/stat/${EVM}?date=${CLOSED}`);
    expect(day.status).toBe(200);
    expect(await (await get(`/api/citable/${CLOSED}`)).text()).toContain(EVM);
    for (const f of ['bib', 'ris', 'apa', 'txt', 'csl']) {
      const r = await get(`/api/cite/${EVM}/${f}`);
      expect(r.status, f).toBe(200);
      expect(await r.text(), f).toContain(EVM);
    }
  });

  it('is answered by the MCP tools', async () => {
    const call = async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args })) as {
        content: { type: string; text: string }[];
        isError?: boolean;
      };
    const list = await call('list_benchmarks', {});
    expect(list.isError).toBeFalsy();
    expect(JSON.stringify(list.content)).toContain(EVM);
    const bench = await call('get_benchmark', { slug: EVM, detail: 'summary' });
    expect(bench.isError).toBeFalsy();
    expect(JSON.stringify(bench.content)).toContain('Sim by Dune');
    const series = await call('get_series', { slug: EVM });
    expect(series.isError).toBeFalsy();
    const compare = await call('compare_providers', { a: 'covalent', b: 'sim-dune' });
    expect(JSON.stringify(compare.content)).toContain(spec.title);
  });

  it("leaves network-coverage's own answers byte-identical to the golden corpus", async () => {
    const golden = JSON.parse(await readFile(GOLDEN_FILE, 'utf8')) as GoldenCorpus;
    const requests = goldenRequests().filter((r) => r.method !== 'POST' && OWN.test(r.path));
    expect(requests.length).toBeGreaterThan(30);
    const { entries } = await captureGolden(run.url, requests);
    const want = new Map(golden.entries.map((e) => [e.request, e]));
    const differences = entries
      .filter((e) => JSON.stringify(e) !== JSON.stringify(want.get(e.request)))
      .map((e) => e.request);
    expect(differences).toEqual([]);
  });
});
