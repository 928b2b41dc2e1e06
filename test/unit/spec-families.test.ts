import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { rankingRowSchema } from '../../src/core/api-schemas.ts';
import { parseProviderCatalogue } from '../../src/core/provider-catalogue.ts';
import { PROVIDERS } from '../../src/core/providers.ts';
import { parseSpec, SpecError } from '../../src/core/spec-schema.ts';
import { FAMILY_LIST } from '../../src/harness/families/index.ts';
import { loadSpecs, PROVIDER_CATALOGUE_FILE } from '../../src/publication/load-specs.ts';
import { BENCHMARKS_DIR } from '../helpers/fixture.ts';

async function shipped(name: string): Promise<Record<string, unknown>> {
  return parse(await readFile(join(BENCHMARKS_DIR, `${name}.yml`), 'utf8')) as Record<string, unknown>;
}

/** The message lines of a SpecError thrown by fn. */
function problems(fn: () => unknown): string[] {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(SpecError);
    return (e as Error).message.split('\n');
  }
  throw new Error('no SpecError');
}

describe('a spec names its family, and its providers from the catalogue', () => {
  it('the shipped specs name their families and list catalogue providers measurable in them', async () => {
    const specs = await loadSpecs(BENCHMARKS_DIR);
    expect(specs.map((s) => [s.slug, s.family])).toEqual([
      ['network-coverage', 'chain-listing'],
      ['rpc-latency', 'json-rpc'],
      ['rpc-head-lag', 'json-rpc'],
      ['token-trade-coverage', 'trade-capture'],
      ['token-trade-recall', 'trade-capture'],
    ]);
    for (const s of specs)
      for (const p of s.providers) expect(PROVIDERS.get(p.slug)?.families).toContain(s.family);
    // A family name is a noun for what is probed, never a benchmark slug.
    const slugs = new Set(specs.map((s) => s.slug));
    for (const f of FAMILY_LIST) expect(slugs.has(f.name)).toBe(false);
  });

  it('the window derivation no longer asks for the family’s own metrics', async () => {
    const data = await shipped('token-trade-coverage');
    const d = data.derivation as Record<string, unknown>;
    expect(Object.keys(d).sort()).toEqual(['cellLabels', 'metric', 'mode', 'probeMetric', 'tieMargin']);
    expect(() =>
      parseSpec('token-trade-coverage.yml', {
        ...data,
        derivation: { ...d, countMetric: 'token_trade_count' },
      }),
    ).toThrow(/field "derivation".*countMetric/);
  });

  it('refuses an unknown family, an unknown provider, a provider outside the family, a metric it does not write', async () => {
    const data = await shipped('network-coverage');
    const providers = data.providers as Record<string, unknown>[];
    expect(problems(() => parseSpec('network-coverage.yml', { ...data, family: 'rpc-latency' }))).toEqual([
      expect.stringMatching(
        /^network-coverage\.yml: field "family": unknown family "rpc-latency" \(known: chain-listing/,
      ),
    ]);
    expect(
      problems(() =>
        parseSpec('network-coverage.yml', {
          ...data,
          providers: [...providers, { slug: 'bitquery', endpoint: 'x', kind: 'dex-index' }],
        }),
      ),
    ).toEqual([
      'network-coverage.yml: field "providers.8.slug": provider "bitquery" cannot be measured in family "chain-listing" (its families: trade-capture)',
    ]);
    expect(
      problems(() =>
        parseSpec('network-coverage.yml', {
          ...data,
          derivation: { mode: 'latest', metric: 'rpc_latency_ms' },
        }),
      ),
    ).toEqual([
      'network-coverage.yml: field "derivation.metric": family "chain-listing" does not write metric "rpc_latency_ms" (it writes networks_supported, network_listed, network_listing_excluded)',
    ]);
    expect(problems(() => parseSpec('network-coverage.yml', { ...data, cadence: '1h' }))).toEqual([
      expect.stringMatching(/field "cadence": must be 6h, the cadence of family "chain-listing"/),
    ]);
  });

  it('reports every problem of a file, one line each, naming the file and the field', async () => {
    const data = await shipped('token-trade-coverage');
    const providers = data.providers as Record<string, unknown>[];
    const lines = problems(() =>
      parseSpec('benchmarks/wrong-name.yml', {
        ...data,
        unit: 'parsecs',
        derivation: {
          mode: 'window',
          metric: 'token_trade_capture_pct',
          probeMetric: 'nope',
          cellLabels: ['chain', 'venue'],
          tieMargin: 0.5,
        },
        providers: [...providers, { slug: 'nobody', endpoint: 'x' }],
      }),
    );
    expect(lines).toEqual([
      expect.stringMatching(/^benchmarks\/wrong-name\.yml: field "unit": /),
      'benchmarks/wrong-name.yml: field "slug": must equal the file name "wrong-name"',
      expect.stringMatching(
        /^benchmarks\/wrong-name\.yml: field "derivation\.probeMetric": family "trade-capture" does not write metric "nope"/,
      ),
      'benchmarks/wrong-name.yml: field "derivation.cellLabels.1": metric "token_trade_capture_pct" has no label "venue" (its labels: provider, chain, token)',
      'benchmarks/wrong-name.yml: field "providers.3.slug": unknown provider "nobody" (not in the provider catalogue, benchmarks/providers.yml)',
    ]);
  });

  it('a bad spec stops start-up: loadSpecs throws on it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'specs-'));
    try {
      await cp(BENCHMARKS_DIR, dir, { recursive: true });
      const data = { ...(await shipped('network-coverage')), slug: 'other', number: '007', family: 'nope' };
      await writeFile(join(dir, 'other.yml'), stringify(data));
      await expect(loadSpecs(dir)).rejects.toThrow(/other\.yml: field "family": unknown family "nope"/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a second trade-capture benchmark must list the same providers (capture is scored against every provider probed); a chain-listing one need not', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'specs-'));
    try {
      await cp(BENCHMARKS_DIR, dir, { recursive: true });
      const trade = await shipped('token-trade-coverage');
      const providers = trade.providers as Array<{ slug: string }>;
      const narrower = { ...trade, slug: 'trade-two', number: '092', providers: providers.slice(0, 2) };
      await writeFile(join(dir, 'trade-two.yml'), stringify(narrower));
      await expect(loadSpecs(dir)).rejects.toThrow(/must list the same providers/);
      await writeFile(
        join(dir, 'trade-two.yml'),
        stringify({ ...narrower, providers: [...providers].reverse() }),
      );
      expect((await loadSpecs(dir)).map((s) => s.slug)).toContain('trade-two');
      await rm(join(dir, 'trade-two.yml'));
      const listing = await shipped('network-coverage');
      const evm = {
        ...listing,
        slug: 'listing-two',
        number: '006',
        providers: (listing.providers as unknown[]).slice(0, 3),
      };
      await writeFile(join(dir, 'listing-two.yml'), stringify(evm));
      expect((await loadSpecs(dir)).map((s) => s.slug)).toContain('listing-two');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the provider catalogue (benchmarks/providers.yml)', () => {
  it('holds every field ProviderInfo has, for every provider, and backs PROVIDERS once loaded', async () => {
    const file = join(BENCHMARKS_DIR, PROVIDER_CATALOGUE_FILE);
    const list = parseProviderCatalogue(file, parse(await readFile(file, 'utf8')));
    await loadSpecs(BENCHMARKS_DIR);
    expect([...PROVIDERS.values()]).toEqual(list);
    expect(PROVIDERS.get('codex')).toEqual({
      slug: 'codex',
      name: 'Codex',
      website: 'https://www.codex.io',
      apiKeyEnv: 'CODEX_API_KEY',
      keyRequired: true,
      color: '#f28e2b',
      families: ['chain-listing', 'trade-capture'],
    });
  });

  it('reports every bad provider field, duplicate slugs and shared colors', () => {
    const good = {
      slug: 'a',
      name: 'A',
      website: 'https://a.example',
      keyRequired: false,
      color: '#000001',
      families: [],
    };
    expect(
      problems(() =>
        parseProviderCatalogue('providers.yml', {
          providers: [
            good,
            { ...good, color: '#000001' },
            { ...good, slug: 'b', color: 'red', keyRequired: 'no' },
          ],
        }),
      ),
    ).toEqual([
      expect.stringMatching(/^providers\.yml: field "providers\.2\.keyRequired": /),
      expect.stringMatching(/^providers\.yml: field "providers\.2\.color": /),
    ]);
    expect(
      problems(() =>
        parseProviderCatalogue('providers.yml', {
          providers: [good, { ...good, color: '#000002' }, { ...good, slug: 'c' }],
        }),
      ),
    ).toEqual([
      'providers.yml: field "providers.1.slug": duplicate provider "a"',
      'providers.yml: field "providers.2.color": #000001 is already a\'s',
    ]);
  });
});

describe('row fields a family adds', () => {
  it('each declared field exists in the ranking-row schema', () => {
    const fields = Object.keys(rankingRowSchema.shape);
    const declared = FAMILY_LIST.flatMap((f) => f.rowFields.map((r) => [f.name, r] as const));
    expect(declared.length).toBeGreaterThan(0);
    for (const [family, field] of declared) expect(fields, `${family}: ${field}`).toContain(field);
  });
});
