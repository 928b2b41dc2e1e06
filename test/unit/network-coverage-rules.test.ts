import { Registry } from 'prom-client';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { auditSchema } from '../../src/core/api-schemas.ts';
import { eq } from '../../src/core/samples.ts';
import type { BenchmarkSpec } from '../../src/core/spec-schema.ts';
import { loadHarnessConfig, simulatorEnv } from '../../src/harness/config.ts';
import { METRICS } from '../../src/harness/families/metric-names.ts';
import { type Harness, startHarness } from '../../src/harness/service.ts';
import { buildAudit } from '../../src/publication/audit.ts';
import { loadSpecs } from '../../src/publication/load-specs.ts';
import { type StubRequest, type StubServer, startStubServer } from '../../src/sim/stub-server.ts';
import { type CountingStore, openTestStore } from '../helpers/memory-store.ts';

/**
 * One regression test per network-coverage rule of the issue (7–10), each with crafted provider
 * responses that the counting got wrong before: they run the whole harness cycle against a stub
 * speaking every provider's wire format, and read what it stored and what the audit shows.
 */

const T1 = Date.UTC(2026, 6, 23, 0, 0, 0);
const T2 = T1 + 6 * 3_600_000;
const SOLANA = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';
const SITE = { name: 'Citebench', baseUrl: 'http://bench.test' };

let specs: BenchmarkSpec[];
let spec: BenchmarkSpec;
beforeAll(async () => {
  specs = await loadSpecs(new URL('../../benchmarks', import.meta.url).pathname);
  const s = specs.find((x) => x.slug === 'network-coverage');
  if (!s) throw new Error('network-coverage spec missing');
  spec = s;
});

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
});

/** Crafted listing bodies, by provider; a test sets only the providers it is about. */
type Bodies = Partial<Record<string, unknown>>;

const ROUTES: Record<string, string> = {
  '/api/v2/networks': 'geckoterminal',
  '/graphql': 'codex',
  '/api/1/blockchains': 'mobula',
  '/v1/contracts': 'coinpaprika',
  '/api/v3/asset_platforms': 'coingecko',
  '/v1/chains/': 'covalent',
  '/wallet/blockchains': 'coinstats',
  '/v1/evm/supported-chains': 'sim-dune',
};

function respond(bodies: Bodies, req: StubRequest) {
  const provider = ROUTES[req.path];
  const body = provider ? bodies[provider] : undefined;
  if (body === undefined) return { status: 404, body: '{"error":"not found"}' };
  // GeckoTerminal is paginated: its body is an array of pages.
  if (provider === 'geckoterminal' && Array.isArray(body)) {
    const page = Number(req.query.get('page') ?? '1');
    return { body: JSON.stringify(body[page - 1] ?? { data: [] }) };
  }
  return { body: JSON.stringify(body) };
}

async function setup(providers: readonly string[]) {
  const bodies: Bodies = {};
  const stub: StubServer = await startStubServer((req) => respond(bodies, req));
  const store: CountingStore = await openTestStore();
  const registry = new Registry();
  const urls = Object.fromEntries(Object.values(ROUTES).map((p) => [p, stub.url]));
  const keys = Object.fromEntries(Object.values(ROUTES).map((p) => [p, 'key']));
  const harness: Harness = startHarness({
    store,
    specs,
    metrics: registry,
    harnessConfig: loadHarnessConfig(simulatorEnv(urls, keys, { HARNESS_TIMEOUT_MS: '2000' })),
    onlyProviders: providers,
    autoStart: false,
    sleep: async () => {},
  });
  cleanup.push(async () => {
    await harness.stop();
    await stub.close();
    await store.close();
  });
  const count = async (provider: string, at: number) =>
    (await store.latest({ metric: METRICS.networksSupported, matchers: [eq('provider', provider)], at }))[0];
  const chainIds = async (provider: string, at: number) =>
    (await store.latest({ metric: METRICS.networkListed, matchers: [eq('provider', provider)], at }))
      .filter((s) => s.t === at)
      .map((s) => s.labels.chain_id)
      .sort();
  return { bodies, store, registry, harness, count, chainIds };
}

const gtPage = (nets: ReadonlyArray<[string, string, string | null]>, next: number | null) => ({
  data: nets.map(([id, name, platform]) => ({
    id,
    type: 'network',
    attributes: { name, coingecko_asset_platform_id: platform },
  })),
  links: { next: next ? `https://api.geckoterminal.com/api/v2/networks?page=${next}` : null },
});

const mobula = (name: string, chainId: string | number, extra: Record<string, unknown> = {}) => ({
  name,
  chainId,
  explorer: 'https://explorer.example',
  color: '#000000',
  logo: 'https://logo.example/x.png',
  routers: [],
  tokens: [],
  supportedProtocols: [],
  ...extra,
});

const platform = (id: string | null, chain: number | null, name: string) => ({
  id,
  chain_identifier: chain,
  name,
  shortname: '',
  native_coin_id: id,
  image: { thumb: null, small: null, large: null },
});

describe('rule 7: one chain, one id (CAIP-2)', () => {
  it('0x1, 1, eip155:1, evm:1 are one network; two CoinGecko platforms with one chain_identifier are one; providers share ids; an unmapped slug counts once', async () => {
    const { bodies, harness, count, chainIds } = await setup([
      'mobula',
      'coingecko',
      'geckoterminal',
      'coinstats',
    ]);
    bodies.mobula = {
      data: [
        mobula('Ethereum', '0x1'),
        mobula('Ethereum Mainnet', '1'),
        mobula('Ethereum (CAIP)', 'eip155:1'),
        mobula('Ethereum (evm)', 'evm:1', { evmChainId: 1 }),
        mobula('Solana', 'solana:solana'),
        mobula('Solana (legacy id)', 'solana'),
        mobula('Cosmos Hub', 'cosmos:cosmoshub-4'),
      ],
    };
    bodies.coingecko = [
      platform('ethereum', 1, 'Ethereum'),
      platform('ethereum-pos', 1, 'Ethereum (PoS)'),
      platform('osmosis', null, 'Osmosis'),
      platform('factom', null, 'Factom'),
    ];
    // GeckoTerminal's `eth` and CoinStats' `ethereum` are the same chain; some_new_l2 is on both pages.
    bodies.geckoterminal = [
      gtPage(
        [
          ['eth', 'Ethereum', 'ethereum'],
          ['some_new_l2', 'Some New L2', null],
        ],
        2,
      ),
      gtPage(
        [
          ['some_new_l2', 'Some New L2', null],
          ['solana', 'Solana', 'solana'],
        ],
        null,
      ),
    ];
    bodies.coinstats = [
      { connectionId: 'ethereum', name: 'Ethereum', chain: 'ethereum' },
      { connectionId: 'metamask', name: 'MetaMask (Ethereum)', chain: 'ethereum' },
      { connectionId: 'solana', name: 'Solana', chain: 'solana' },
    ];
    await harness.runCycle('network-coverage', T1);
    expect((await count('mobula', T1))?.v).toBe(3);
    expect(await chainIds('mobula', T1)).toEqual(['cosmos:cosmoshub-4', 'eip155:1', SOLANA]);
    expect((await count('coingecko', T1))?.v).toBe(3);
    expect(await chainIds('coingecko', T1)).toEqual(['cosmos:osmosis-1', 'eip155:1', 'unmapped:factom']);
    expect(await chainIds('geckoterminal', T1)).toEqual(['eip155:1', SOLANA, 'unmapped:some_new_l2']);
    expect(await chainIds('coinstats', T1)).toEqual(['eip155:1', SOLANA]);
  });
});

describe('rule 8: testnets caught everywhere', () => {
  it('unflagged GeckoTerminal monad-testnet, Codex 11155111, CoinGecko sui-testnet and Mobula Sepolia are not counted', async () => {
    const { bodies, harness, count, chainIds } = await setup([
      'geckoterminal',
      'codex',
      'coingecko',
      'mobula',
    ]);
    bodies.geckoterminal = [
      gtPage(
        [
          ['eth', 'Ethereum', 'ethereum'],
          ['monad-testnet', 'Monad Testnet', null],
        ],
        null,
      ),
    ];
    bodies.codex = {
      data: {
        getNetworks: [
          { id: 1, name: 'Ethereum', networkShortName: 'eth' },
          { id: 11155111, name: 'Sepolia', networkShortName: 'sepolia' },
          // No testnet word in the name: only viem's chain metadata (84532 is Base Sepolia) catches it.
          { id: 84532, name: 'Base S', networkShortName: 'bases' },
        ],
      },
    };
    bodies.coingecko = [platform('sui', null, 'Sui'), platform('sui-testnet', null, 'Sui Testnet')];
    bodies.mobula = {
      data: [
        mobula('Ethereum', 'evm:1', { evmChainId: 1, testnet: false }),
        mobula('Ethereum Sepolia', 'evm:11155111', { evmChainId: 11155111 }),
        mobula('Holesky', '4242424242'),
      ],
    };
    await harness.runCycle('network-coverage', T1);
    for (const p of ['geckoterminal', 'codex', 'coingecko', 'mobula'])
      expect((await count(p, T1))?.v, p).toBe(1);
    expect(await chainIds('geckoterminal', T1)).toEqual(['eip155:1']);
    expect(await chainIds('codex', T1)).toEqual(['eip155:1']);
    expect(await chainIds('coingecko', T1)).toEqual(['sui:mainnet']);
    expect(await chainIds('mobula', T1)).toEqual(['eip155:1']);
  });
});

describe('rule 9: one bad entry does not stale the whole listing', () => {
  it('an entry with a null id is dropped and counted; the rest counts; more than half bad fails and keeps the last count', async () => {
    const { bodies, harness, count, registry } = await setup(['coingecko', 'covalent']);
    bodies.coingecko = [
      platform('ethereum', 1, 'Ethereum'),
      platform('binance-smart-chain', 56, 'BNB Smart Chain'),
    ];
    bodies.covalent = {
      data: { items: [{ name: 'eth-mainnet', chain_id: '1', is_testnet: false, label: 'Ethereum Mainnet' }] },
      error: false,
      error_message: null,
    };
    await harness.runCycle('network-coverage', T1);
    expect(await count('coingecko', T1)).toMatchObject({ v: 2, t: T1 });
    // The provider adds a chain and, as real listings do, one entry with a null id.
    bodies.coingecko = [
      platform('ethereum', 1, 'Ethereum'),
      platform(null, null, 'Unlisted platform'),
      platform('binance-smart-chain', 56, 'BNB Smart Chain'),
      platform('base', 8453, 'Base'),
    ];
    // Covalent: two of three entries broken (no chain_id, a chain_id of the wrong type): the response is.
    bodies.covalent = {
      data: {
        items: [
          { name: 'eth-mainnet', chain_id: '1', is_testnet: false, label: 'Ethereum Mainnet' },
          { name: 'base-mainnet', chain_id: null, is_testnet: false },
          { name: 'bsc-mainnet', chain_id: { id: 56 }, is_testnet: false },
        ],
      },
      error: false,
      error_message: null,
    };
    const report = await harness.runCycle('network-coverage', T2);
    expect(await count('coingecko', T2)).toMatchObject({ v: 3, t: T2 });
    expect(await count('covalent', T2)).toMatchObject({ v: 1, t: T1 });
    expect(report.providers.find((p) => p.provider === 'covalent')?.failure).toMatchObject({ type: 'parse' });
    const text = await registry.metrics();
    expect(text).toContain('listing_entries_dropped_total{provider="coingecko",reason="missing_id"} 1');
    expect(text).toContain('listing_entries_dropped_total{provider="covalent",reason="missing_id"} 1');
    expect(text).toContain('listing_entries_dropped_total{provider="covalent",reason="bad_id"} 1');
  });
});

describe('rule 10: the audit lists caip2, name and raw id, and unmapped, dropped and testnet entries apart', () => {
  it('shows each counted network with its caip2 id, name and raw id, and the entries left out', async () => {
    const { bodies, harness, store } = await setup(['coingecko']);
    const good = [
      platform('ethereum', 1, 'Ethereum'),
      platform('ethereum-pos', 1, 'Ethereum (PoS)'),
      platform('factom', null, 'Factom'),
      platform('sui-testnet', null, 'Sui Testnet'),
      platform('solana', null, 'Solana'),
    ];
    const networks = [
      { chainId: 'eip155:1', caip2: 'eip155:1', name: 'Ethereum', rawId: 'ethereum' },
      { chainId: 'unmapped:factom', caip2: null, name: 'Factom', rawId: 'factom' },
      { chainId: SOLANA, caip2: SOLANA, name: 'Solana', rawId: 'solana' },
    ];
    bodies.coingecko = good;
    await harness.runCycle('network-coverage', T1);
    const first = auditSchema.parse(await buildAudit(store, spec, 'coingecko', T1, SITE));
    expect(first.networks).toEqual(networks);
    expect(first.unmapped).toEqual([{ chainId: 'unmapped:factom', name: 'Factom', rawId: 'factom' }]);
    expect(first.testnets).toEqual([
      { chainId: 'sui:testnet', name: 'Sui Testnet', rawId: 'sui-testnet', reason: 'chain_metadata' },
    ]);
    expect(first.dropped).toEqual([]);
    // The next listing carries an entry with a null id: the audit shows it apart, with its reason.
    bodies.coingecko = [...good, platform(null, null, 'Unlisted platform')];
    await harness.runCycle('network-coverage', T2);
    const second = auditSchema.parse(await buildAudit(store, spec, 'coingecko', T2, SITE));
    expect(second.networks).toEqual(networks);
    expect(second.dropped).toEqual([{ rawId: '', name: 'Unlisted platform', reason: 'missing_id' }]);
  });
});
