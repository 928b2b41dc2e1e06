import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PROVIDERS } from '../../src/core/providers.ts';
import { parseSpec, SpecError } from '../../src/core/spec-schema.ts';
import { loadSpecs } from '../../src/publication/load-specs.ts';
import { BENCHMARKS_DIR } from '../helpers/fixture.ts';

async function shipped(name: string): Promise<Record<string, unknown>> {
  return parse(await readFile(join(BENCHMARKS_DIR, `${name}.yml`), 'utf8')) as Record<string, unknown>;
}

describe('benchmark specs', () => {
  it('ships the two benchmarks of the spec with their units, directions and dimensions', async () => {
    const specs = await loadSpecs(BENCHMARKS_DIR);
    const nc = specs.find((s) => s.slug === 'network-coverage');
    const tt = specs.find((s) => s.slug === 'token-trade-coverage');
    expect(nc).toMatchObject({ unit: 'count', higherIsBetter: true, cadence: '6h', window: '24h' });
    expect(nc?.dimensions.kind?.values.map((v) => v.value)).toEqual([
      'asset-registry',
      'dex-index',
      'chain-index',
      'evm-only',
    ]);
    expect(tt).toMatchObject({ unit: 'pct', higherIsBetter: true, cadence: '30m' });
    expect(tt?.dimensions.chain?.values.map((v) => v.value)).toEqual([
      'solana',
      'ethereum',
      'bsc',
      'base',
      'stellar',
    ]);
    // Only providers with a Stellar trades endpoint are measured there.
    expect(tt?.providers.filter((p) => p.chains?.includes('stellar')).map((p) => p.slug)).toEqual(['mobula']);
    // Every provider slug resolves in the one registry.
    for (const s of specs) for (const p of s.providers) expect(PROVIDERS.has(p.slug)).toBe(true);
  });

  it('keeps the methodology of spec 2.6 in order', async () => {
    const specs = await loadSpecs(BENCHMARKS_DIR);
    const m = specs.find((s) => s.slug === 'network-coverage')?.methodology ?? [];
    const order = ['every 6 hours', 'unique chain id', 'EVM chains only', 'p50 = p90 = p99', 'fetch_errors'];
    const idx = order.map((needle) => m.findIndex((line) => line.includes(needle)));
    expect(idx.every((i) => i >= 0)).toBe(true);
    expect([...idx].sort((a, b) => a - b)).toEqual(idx);
  });

  it('rejects unknown keys naming the file, the field and the problem', async () => {
    const data = { ...(await shipped('network-coverage')), colour: 'red' };
    expect(() => parseSpec('benchmarks/network-coverage.yml', data)).toThrow(
      /benchmarks\/network-coverage\.yml: field "\(root\)": .*colour/,
    );
  });

  it('rejects bad field values, unknown providers and kinds outside the dimension', async () => {
    const data = await shipped('network-coverage');
    expect(() => parseSpec('network-coverage.yml', { ...data, unit: 'parsecs' })).toThrow(/field "unit"/);
    const providers = data.providers as Record<string, unknown>[];
    expect(() =>
      parseSpec('network-coverage.yml', {
        ...data,
        providers: [...providers, { slug: 'nobody', endpoint: 'x', kind: 'dex-index' }],
      }),
    ).toThrow(/field "providers\.8\.slug": unknown provider "nobody"/);
    expect(() =>
      parseSpec('network-coverage.yml', { ...data, providers: [{ ...providers[0], kind: 'oracle' }] }),
    ).toThrow(/field "providers\.0\.kind"/);
    expect(() => parseSpec('other-name.yml', data)).toThrow(/must equal the file name/);
  });

  it('stops loading on an invalid file in the directory', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'specs-'));
    await writeFile(join(dir, 'broken.yml'), 'slug: broken\nnumber: 1\n');
    await expect(loadSpecs(dir)).rejects.toBeInstanceOf(SpecError);
    await writeFile(join(dir, 'broken.yml'), 'slug: [unclosed');
    await expect(loadSpecs(dir)).rejects.toThrow(/broken\.yml: invalid YAML/);
  });
});
