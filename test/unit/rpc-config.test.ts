import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseSpec, SpecError } from '../../src/core/spec-schema.ts';
import { HarnessConfigError, loadHarnessConfig } from '../../src/harness/config.ts';
import { loadRpcConfig } from '../../src/harness/rpc-config.ts';
import { loadProviderCatalogue } from '../../src/publication/load-specs.ts';
import { BENCHMARKS_DIR } from '../helpers/fixture.ts';

beforeAll(async () => {
  await loadProviderCatalogue(BENCHMARKS_DIR);
});

const shipped = async (slug: string) =>
  parse(await readFile(join(BENCHMARKS_DIR, `${slug}.yml`), 'utf8')) as Record<string, unknown>;

function problems(fn: () => unknown): string[] {
  try {
    fn();
    return [];
  } catch (e) {
    if (e instanceof SpecError) return e.message.split('\n');
    throw e;
  }
}

describe('rule 8: keys and URLs, one mechanism', () => {
  it('fills {key} from the catalogue key variable; an override replaces one URL; per-user URLs need the override', () => {
    const { config, issues } = loadRpcConfig({
      ALCHEMY_API_KEY: 'k/1?',
      QUICKNODE_RPC_URL_BASE: 'https://my-node.quiknode.pro/abc/',
      INFURA_RPC_URL_ETHEREUM: 'http://127.0.0.1:9/infura',
    });
    expect(issues).toEqual([]);
    // The key is encoded: no character of it can change the URL's shape.
    expect(config.endpoints.get('alchemy')?.get('ethereum')).toBe(
      'https://eth-mainnet.g.alchemy.com/v2/k%2F1%3F',
    );
    expect(config.endpoints.get('quicknode')?.get('base')).toBe('https://my-node.quiknode.pro/abc/');
    expect(config.endpoints.get('quicknode')?.has('ethereum')).toBe(false);
    expect(config.notConfigured.get('quicknode')).toEqual(['ethereum', 'bsc']);
    expect(config.endpoints.get('infura')?.get('ethereum')).toBe('http://127.0.0.1:9/infura');
    expect(config.notConfigured.get('infura')).toEqual(['bsc', 'base']);
    // Keyless templates need nothing; a chain the provider does not serve has no endpoint.
    expect([...(config.endpoints.get('publicnode')?.keys() ?? [])]).toEqual(['ethereum', 'bsc', 'base']);
    expect(config.endpoints.get('tenderly')).toBeUndefined();
    expect(config.notConfigured.get('tenderly')).toEqual(['ethereum', 'base']);
  });

  it('a bad URL or reference is refused by name, its value never echoed', () => {
    const env = {
      DRPC_RPC_URL_BSC: 'ftp://SECRET-canary/x',
      REFERENCE_RPC_BASE: 'not a url SECRET-canary',
    };
    expect(() => loadHarnessConfig(env)).toThrow(HarnessConfigError);
    try {
      loadHarnessConfig(env);
    } catch (e) {
      const m = (e as Error).message;
      expect(m).toContain('DRPC_RPC_URL_BSC=(hidden) is not an http(s) URL');
      expect(m).toContain('REFERENCE_RPC_BASE=(hidden) is not an http(s) URL');
      expect(m).not.toContain('SECRET');
    }
  });
});

describe('spec fields of the json-rpc benchmarks', () => {
  it('a provider may list only chains it has an endpoint for; unresponsiveAfter is for window derivations', async () => {
    const data = await shipped('rpc-latency');
    const providers = data.providers as Record<string, unknown>[];
    const withBsc = providers.map((p) => (p.slug === 'tenderly' ? { ...p, chains: ['ethereum', 'bsc'] } : p));
    expect(problems(() => parseSpec('rpc-latency.yml', { ...data, providers: withBsc }))).toEqual([
      'rpc-latency.yml: field "providers.7.chains.1": provider "tenderly" has no endpoint for chain "bsc" in the provider catalogue (it serves: ethereum, base)',
    ]);
    const net = await shipped('network-coverage');
    expect(problems(() => parseSpec('network-coverage.yml', { ...net, unresponsiveAfter: 3 }))).toEqual([
      'network-coverage.yml: field "unresponsiveAfter": applies to window derivations only',
    ]);
    expect(problems(() => parseSpec('rpc-latency.yml', { ...data, superlative: 'Fastest!' }))).toEqual([
      'rpc-latency.yml: field "superlative": must be lower-case words, such as a superlative',
    ]);
  });
});
