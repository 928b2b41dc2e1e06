import { readFileSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { doubledName, evmCaip2, evmIdToCaip2, parseCaip2, toCaip2 } from '../../src/core/caip2.ts';
import { type EvmChainTable, evmChains } from '../../src/harness/chains/evm-chains.ts';
import { KNOWN_CHAINS, knownChainBySlug, type SlugScheme } from '../../src/harness/chains/known-chains.ts';
import { resolveChain } from '../../src/harness/chains/resolve.ts';
import { looksLikeTestnet, testnetReason } from '../../src/harness/chains/testnets.ts';
import { codexNetworks } from '../../src/harness/families/chain-listing/adapters/codex.ts';
import { coingeckoNetworks } from '../../src/harness/families/chain-listing/adapters/coingecko.ts';
import { coinpaprikaNetworks } from '../../src/harness/families/chain-listing/adapters/coinpaprika.ts';
import { coinstatsNetworks } from '../../src/harness/families/chain-listing/adapters/coinstats.ts';
import {
  countNetworks,
  type Listing,
  type NetworkAdapter,
} from '../../src/harness/families/chain-listing/adapters/contract.ts';
import { covalentNetworks } from '../../src/harness/families/chain-listing/adapters/covalent.ts';
import { geckoterminalNetworks } from '../../src/harness/families/chain-listing/adapters/geckoterminal.ts';
import { mobulaNetworks } from '../../src/harness/families/chain-listing/adapters/mobula.ts';
import { simDuneNetworks } from '../../src/harness/families/chain-listing/adapters/sim-dune.ts';
import { buildListings, SIM_EVM_ID_BASE } from '../../src/sim/networks.ts';
import { type Simulator, startSimulator } from '../../src/sim/server.ts';
import { type StubServer, startStubServer } from '../../src/sim/stub-server.ts';
import { listingContext } from '../helpers/adapter-context.ts';

let evm: EvmChainTable;
beforeAll(async () => {
  evm = await evmChains();
});

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
});

async function listFrom(adapter: NetworkAdapter, baseUrl: string, apiKey?: string): Promise<Listing> {
  const r = await adapter.list(listingContext(adapter.provider, baseUrl, apiKey, 4 << 20));
  if (!r.ok) throw new Error(`${adapter.provider}: ${r.failure.type}: ${r.failure.message}`);
  return r.value;
}

const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/providers/${name}`, import.meta.url), 'utf8');

/** Every recorded network listing, served as its provider serves it. */
const FIXTURES: ReadonlyArray<[NetworkAdapter, (path: string, query: URLSearchParams) => string]> = [
  [geckoterminalNetworks, (_p, q) => fixture(`geckoterminal-networks-page${q.get('page')}.json`)],
  [codexNetworks, () => fixture('codex-networks.json')],
  [mobulaNetworks, () => fixture('mobula-blockchains.json')],
  [coinpaprikaNetworks, () => fixture('coinpaprika-contracts.json')],
  [covalentNetworks, () => fixture('covalent-chains.json')],
  [coinstatsNetworks, () => fixture('coinstats-blockchains.json')],
  [simDuneNetworks, () => fixture('sim-dune-supported-chains.json')],
  [coingeckoNetworks, () => fixture('coingecko-asset-platforms.json')],
];

describe('CAIP-2 parsing', () => {
  it('accepts the spec grammar and rejects the rest', () => {
    expect(parseCaip2('eip155:1')).toEqual({ namespace: 'eip155', reference: '1' });
    expect(parseCaip2('cosmos:cosmoshub-4')).toEqual({ namespace: 'cosmos', reference: 'cosmoshub-4' });
    expect(parseCaip2('solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp')).not.toBeNull();
    expect(parseCaip2('ton:-239')).not.toBeNull();
    for (const bad of [
      'eip155',
      'EIP155:1',
      'ab:1',
      'toolongnamespace:1',
      'eip155:',
      `eip155:${'1'.repeat(33)}`,
    ])
      expect(parseCaip2(bad), bad).toBeNull();
  });

  it('reads every EVM id form providers use', () => {
    for (const form of ['1', '0x1', '0001', 'evm:1', 'EVM:0001', 'eip155:1', 'eip155:0x1', ' 1 '])
      expect(evmIdToCaip2(form), form).toBe('eip155:1');
    expect(evmIdToCaip2(8453)).toBe('eip155:8453');
    expect(evmIdToCaip2('0x2105')).toBe('eip155:8453');
    for (const notEvm of ['solana:solana', 'cosmos:cosmoshub-4', 'eth', '0', '-1', '1.5'])
      expect(evmIdToCaip2(notEvm), notEvm).toBeNull();
    expect(evmIdToCaip2(1.5)).toBeNull();
    expect(evmCaip2(0)).toBeNull();
  });

  it('keeps non-EVM references exactly as written; only the namespace is lower-cased', () => {
    const sol = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';
    expect(toCaip2(sol)).toBe(sol);
    expect(toCaip2(` ${sol} `)).toBe(sol);
    expect(toCaip2('Solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp')).toBe(sol);
    // Lower-casing a genesis-hash reference names another (unknown) chain: never done.
    expect(toCaip2(sol.toLowerCase())).toBe(sol.toLowerCase());
    expect(toCaip2('starknet:SN_MAIN')).toBe('starknet:SN_MAIN');
    expect(toCaip2('cosmos:cosmoshub-4')).toBe('cosmos:cosmoshub-4');
    // EVM numeric references are the only ones canonicalised.
    for (const form of ['0x1', '1', 'evm:1', 'EIP155:0x1', 1])
      expect(toCaip2(form), String(form)).toBe('eip155:1');
    // Provider names are not ids: a bare name, or a doubled name:name (Mobula's solana:solana).
    for (const notId of ['solana', 'solana:solana', 'Stellar:stellar', 'newchain:newchain', 'ab:1', 1.5])
      expect(toCaip2(notId), String(notId)).toBeNull();
    expect(doubledName('Solana:solana')).toBe('solana');
    expect(doubledName('solana:mainnet')).toBeNull();
  });

  it('the resolver reads ids through the shared module: one chain, whatever case or form', () => {
    const sol = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';
    expect(resolveChain([{ chainId: sol }], sol).id).toBe(sol);
    expect(resolveChain([{ scheme: 'mobula', slug: 'solana:solana' }], 'solana:solana').id).toBe(sol);
    // Covalent's and Codex's private Solana id is no EVM chain id.
    expect(
      resolveChain([{ scheme: 'covalent', slug: 'solana-mainnet' }, { chainId: '1399811149' }], '').id,
    ).toBe(sol);
    expect(resolveChain([{ scheme: 'codex', slug: '1399811149' }, { chainId: 1399811149 }], '').id).toBe(sol);
    // An entry nothing resolves counts once under its folded slug.
    expect(resolveChain([{ chainId: 'newchain:newchain' }], '').id).toBe('unmapped:newchain');
  });
});

describe('the reviewed chain table', () => {
  it('holds valid CAIP-2 ids, each once, and canonicalises aliases', () => {
    expect(KNOWN_CHAINS.length).toBeGreaterThan(30);
    const ids = KNOWN_CHAINS.map((c) => c.caip2);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(parseCaip2(id), id).not.toBeNull();
    // Tron's EVM-style id is the same network as tron:0x2b6653dc.
    expect(resolveChain([{ chainId: 728126428 }], '728126428').id).toBe('tron:0x2b6653dc');
  });

  it('maps each provider slug of the named chains', () => {
    const cases: Array<[SlugScheme, string, string]> = [
      ['geckoterminal', 'eth', 'eip155:1'],
      ['geckoterminal', 'polygon_pos', 'eip155:137'],
      ['geckoterminal', 'bsc', 'eip155:56'],
      ['coingecko', 'binance-smart-chain', 'eip155:56'],
      ['coingecko', 'polygon-pos', 'eip155:137'],
      ['coinpaprika', 'eth-ethereum', 'eip155:1'],
      ['coinstats', 'binance_smart', 'eip155:56'],
      ['mobula', 'solana:solana', 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'],
      ['codex', '1399811149', 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'],
      ['coingecko', 'the-open-network', 'ton:-239'],
      ['coingecko', 'cosmos', 'cosmos:cosmoshub-4'],
      ['geckoterminal', 'osmosis', 'cosmos:osmosis-1'],
      ['coingecko', 'stellar', 'stellar:pubnet'],
    ];
    for (const [scheme, slug, caip2] of cases)
      expect(knownChainBySlug(scheme, slug)?.caip2, slug).toBe(caip2);
    // Scoped per scheme: CoinGecko's `eth` is not GeckoTerminal's.
    expect(knownChainBySlug('coingecko', 'eth')).toBeUndefined();
  });
});

describe('the shared testnet detector', () => {
  it('catches testnets by provider flag, by chain metadata (viem, the table), and by name', () => {
    const t = (chainId: string, name: string, rawId = '', providerFlag?: boolean) =>
      testnetReason({ chainId, name, rawId, providerFlag }, evm);
    expect(t('eip155:1', 'Ethereum', '1', true)).toBe('provider_flag');
    expect(t('eip155:11155111', 'Ethereum S', '11155111')).toBe('chain_metadata');
    expect(t('eip155:10143', 'Monad', 'monad')).toBe('chain_metadata');
    expect(t('sui:testnet', 'Sui', 'sui-t')).toBe('chain_metadata');
    expect(t('unmapped:x', 'Fuji C-Chain', 'x')).toBe('name');
    expect(t('unmapped:monad-testnet', 'Monad', 'monad-testnet')).toBe('name');
    // Named testnets match only as whole words: no letter after (Fujian, Nilead) or before (Juvenile).
    for (const main of [
      'Ethereum',
      'Base',
      'Polygon',
      'Fujian Chain',
      'Arbitrum Nova',
      'Nilead',
      'Juvenile Chain',
    ])
      expect(looksLikeTestnet(main), main).toBe(false);
    for (const test of [
      'Sepolia',
      'Base Sepolia',
      'arbitrum_sepolia',
      'Goerli',
      'Holesky',
      'amoy',
      'testnet3',
    ])
      expect(looksLikeTestnet(test), test).toBe(true);
    // An id several viem chains share (999: HyperEVM and testnets) is not a testnet by metadata.
    expect(t('eip155:999', 'HyperEVM', '999')).toBeNull();
    expect(t('eip155:1', 'Ethereum', '1')).toBeNull();
  });

  it('catches testnets GeckoTerminal names only by the testnet name, with no flag and no chain id', () => {
    const t = (rawId: string, name: string) =>
      testnetReason({ chainId: `unmapped:${rawId}`, name, rawId }, evm);
    expect(t('berachain-artio', 'Berachain Artio')).toBe('name');
    expect(t('polygon-zkevm-cardona', 'Polygon zkEVM Cardona')).toBe('name');
    for (const test of [
      'berachain_artio',
      'Berachain bArtio',
      'Celo Alfajores',
      'avalanche-fuji',
      'Gnosis Chiado',
      'eth-hoodi',
      'Moonbase Alpha',
      'Taiko Hekla',
      'kaia-kairos',
      'Ronin Saigon',
      'Soneium Minato',
      'Tezos Ghostnet',
      'polkadot-westend',
      'gte-devnet',
    ])
      expect(looksLikeTestnet(test), test).toBe(true);
  });

  it('never flags a mainnet: the reviewed table, viem, every fixture and the simulated universe', async () => {
    const flagged = (chainId: string, name: string, rawId: string) =>
      testnetReason({ chainId, name, rawId }, evm);
    // Every mainnet row of the reviewed table, under its CAIP-2 id, its name and each provider slug.
    const mainRows = KNOWN_CHAINS.filter((c) => c.testnet !== true);
    expect(mainRows.length).toBeGreaterThan(30);
    for (const row of mainRows) {
      expect(flagged(row.caip2, row.name, row.caip2), row.caip2).toBeNull();
      for (const slugs of Object.values(row.slugs))
        for (const slug of slugs ?? []) expect(looksLikeTestnet(slug), `${row.name}: ${slug}`).toBe(false);
    }
    // Every chain viem's maintained list says is a mainnet.
    const viemMain = [...evm.values()].filter((c) => !c.testnet);
    expect(viemMain.length).toBeGreaterThan(300);
    for (const c of viemMain) expect(looksLikeTestnet(c.name), c.name).toBe(false);
    // Every entry of every recorded listing, except the testnets those fixtures carry on purpose:
    // the ones their provider flags, and GeckoTerminal's two named only by their testnet's name.
    const unflaggedTestnets = new Set(['berachain-artio', 'polygon-zkevm-cardona']);
    let mainnets = 0;
    for (const [adapter, body] of FIXTURES) {
      const stub: StubServer = await startStubServer((q) => ({ body: body(q.path, q.query) }));
      cleanup.push(() => stub.close());
      const listing = await listFrom(adapter, stub.url, 'key');
      for (const e of listing.entries) {
        if (e.testnet === true || unflaggedTestnets.has(e.rawId)) continue;
        const { id } = resolveChain(e.hints, e.rawId);
        expect(flagged(id, e.name, e.rawId), `${adapter.provider} ${e.rawId} ${e.name}`).toBeNull();
        mainnets++;
      }
    }
    expect(mainnets).toBeGreaterThan(40);
  });
});

describe('the simulated listings', () => {
  const L = buildListings(7);
  const invented = (name: string) => name.startsWith('Simulated chain ');

  it('give real chains their real ids, which the table maps', () => {
    // The testnets mixed in are there to be dropped, not mapped (most have no table row).
    for (const n of L.geckoterminal)
      if (!invented(n.name) && !looksLikeTestnet(n.id))
        expect(knownChainBySlug('geckoterminal', n.id), n.id).toBeDefined();
    for (const p of L.coingecko) {
      if (typeof p.id !== 'string' || invented(String(p.name)) || typeof p.chain_identifier === 'number')
        continue;
      expect(knownChainBySlug('coingecko', p.id), p.id).toBeDefined();
    }
    for (const id of L.coinpaprika)
      if (!id.includes('simulated-chain')) expect(knownChainBySlug('coinpaprika', id), id).toBeDefined();
    for (const c of L.coinstats)
      if (!invented(String(c.name)) && !String(c.name).includes('('))
        expect(knownChainBySlug('coinstats', String(c.chain)), String(c.chain)).toBeDefined();
    expect(L.codex.some((n) => n.id === 1399811149 && n.name === 'Solana')).toBe(true);
  });

  it('give invented EVM chains ids no viem chain uses, so only the sim decides what is a testnet', () => {
    const used = [...evm.keys()].filter((id) => id >= SIM_EVM_ID_BASE && id < SIM_EVM_ID_BASE + 1000);
    expect(used).toEqual([]);
  });

  it('never flag one of their mainnets: every real and invented chain of the simulated universe', () => {
    const real = L.geckoterminal.filter(
      (n) => !['monad-testnet', 'berachain-artio', 'polygon-zkevm-cardona'].includes(n.id),
    );
    expect(real.length).toBeGreaterThan(30);
    for (const n of real) expect(looksLikeTestnet(n.name) || looksLikeTestnet(n.id), n.id).toBe(false);
    for (const id of L.coinpaprika) expect(looksLikeTestnet(id), id).toBe(false);
  });

  it('GeckoTerminal end to end: the name-only testnets are dropped and the count is the true one', async () => {
    const sim: Simulator = await startSimulator({ seed: 7 });
    cleanup.push(() => sim.close());
    const listing = await listFrom(geckoterminalNetworks, sim.baseUrls.geckoterminal ?? '');
    const { counted, testnets } = countNetworks(listing, evm);
    expect(counted).toHaveLength(L.expected.geckoterminal ?? -1);
    expect(sim.expectedNetworks.geckoterminal).toBe(L.expected.geckoterminal);
    expect(testnets.map((t) => [t.rawId, t.reason]).sort()).toEqual([
      ['berachain-artio', 'name'],
      ['monad-testnet', 'chain_metadata'],
      ['polygon-zkevm-cardona', 'name'],
    ]);
  });

  it('carry unflagged testnets like the real listings', () => {
    expect(L.geckoterminal.some((n) => n.id === 'monad-testnet')).toBe(true);
    expect(L.geckoterminal.some((n) => n.id === 'berachain-artio')).toBe(true);
    expect(L.geckoterminal.some((n) => n.id === 'polygon-zkevm-cardona')).toBe(true);
    expect(L.codex.some((n) => n.id === 11155111)).toBe(true);
    expect(L.coingecko.some((p) => p.id === 'sui-testnet')).toBe(true);
    expect(L.mobula.some((m) => m.chainId === 'evm:11155111' && m.testnet === undefined)).toBe(true);
  });
});
