import { beforeAll, describe, expect, it } from 'vitest';
import { evmCaip2, evmIdToCaip2, parseCaip2 } from '../src/core/caip2.ts';
import { type EvmChainTable, evmChains } from '../src/harness/chains/evm-chains.ts';
import { KNOWN_CHAINS, knownChainBySlug, type SlugScheme } from '../src/harness/chains/known-chains.ts';
import { resolveChain } from '../src/harness/chains/resolve.ts';
import { looksLikeTestnet, testnetReason } from '../src/harness/chains/testnets.ts';
import { buildListings, SIM_EVM_ID_BASE } from '../src/sim/networks.ts';

let evm: EvmChainTable;
beforeAll(async () => {
  evm = await evmChains();
});

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
    for (const main of ['Ethereum', 'Base', 'Polygon', 'Fujian Chain', 'Arbitrum Nova', 'Nilead'])
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
});

describe('the simulated listings', () => {
  const L = buildListings(7);
  const invented = (name: string) => name.startsWith('Simulated chain ');

  it('give real chains their real ids, which the table maps', () => {
    for (const n of L.geckoterminal)
      if (!invented(n.name)) expect(knownChainBySlug('geckoterminal', n.id), n.id).toBeDefined();
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

  it('carry unflagged testnets like the real listings', () => {
    expect(L.geckoterminal.some((n) => n.id === 'monad-testnet')).toBe(true);
    expect(L.codex.some((n) => n.id === 11155111)).toBe(true);
    expect(L.coingecko.some((p) => p.id === 'sui-testnet')).toBe(true);
    expect(L.mobula.some((m) => m.chainId === 'evm:11155111' && m.testnet === undefined)).toBe(true);
  });
});
