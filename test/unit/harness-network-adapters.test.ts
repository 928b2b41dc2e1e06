import { readFileSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type EvmChainTable, evmChains } from '../../src/harness/chains/evm-chains.ts';
import { resolveChain } from '../../src/harness/chains/resolve.ts';
import { codexNetworks } from '../../src/harness/families/chain-listing/adapters/codex.ts';
import { coingeckoNetworks } from '../../src/harness/families/chain-listing/adapters/coingecko.ts';
import { coinpaprikaNetworks } from '../../src/harness/families/chain-listing/adapters/coinpaprika.ts';
import { coinstatsNetworks } from '../../src/harness/families/chain-listing/adapters/coinstats.ts';
import {
  countNetworks,
  type NetworkAdapter,
} from '../../src/harness/families/chain-listing/adapters/contract.ts';
import { covalentNetworks } from '../../src/harness/families/chain-listing/adapters/covalent.ts';
import {
  checkListing,
  type Listing,
  type ListingEntry,
} from '../../src/harness/families/chain-listing/adapters/entries.ts';
import { geckoterminalNetworks } from '../../src/harness/families/chain-listing/adapters/geckoterminal.ts';
import { mobulaHints, mobulaNetworks } from '../../src/harness/families/chain-listing/adapters/mobula.ts';
import { simDuneNetworks } from '../../src/harness/families/chain-listing/adapters/sim-dune.ts';
import {
  type StubRequest,
  type StubResponse,
  type StubServer,
  startStubServer,
} from '../../src/sim/stub-server.ts';
import { listingContext } from '../helpers/adapter-context.ts';

const SOLANA = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';
const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/providers/${name}`, import.meta.url), 'utf8');

let stub: StubServer | null = null;
let evm: EvmChainTable;
beforeAll(async () => {
  evm = await evmChains();
});
afterEach(async () => {
  await stub?.close();
  stub = null;
});

async function run(
  adapter: NetworkAdapter,
  handler: (r: StubRequest) => StubResponse,
  apiKey?: string,
): Promise<Awaited<ReturnType<NetworkAdapter['list']>>> {
  stub = await startStubServer(handler);
  return adapter.list(listingContext(adapter.provider, stub.url, apiKey));
}

function counted(r: Awaited<ReturnType<NetworkAdapter['list']>>): string[] {
  if (!r.ok) throw new Error(`expected success, got ${r.failure.type}: ${r.failure.message}`);
  return countNetworks(r.value, evm).counted.map((n) => n.chainId);
}

describe('network adapters on recorded provider responses', () => {
  it('GeckoTerminal follows links.next by page number, ends on null next, dedupes on the GT id', async () => {
    const r = await run(geckoterminalNetworks, (req) => ({
      body: fixture(`geckoterminal-networks-page${req.query.get('page')}.json`),
    }));
    // 9 entries, some_new_l2 listed on both pages, two networks with a null platform id both count
    // (unmapped: no row in the reviewed table), the others through the table to CAIP-2 ids; the two
    // testnets GeckoTerminal names only by their testnet's name (no flag, no chain id) are dropped.
    expect(counted(r)).toEqual([
      'eip155:1',
      'eip155:56',
      'eip155:8453',
      SOLANA,
      'unmapped:another_l3',
      'unmapped:some_new_l2',
    ]);
    if (r.ok)
      expect(countNetworks(r.value, evm).testnets.map((t) => [t.rawId, t.reason])).toEqual([
        ['berachain-artio', 'name'],
        ['polygon-zkevm-cardona', 'name'],
      ]);
    expect(stub?.requests.map((q) => `${q.path}?${q.query}`)).toEqual([
      '/api/v2/networks?page=1',
      '/api/v2/networks?page=2',
    ]);
  });

  it('GeckoTerminal ends on an empty page and fails on a pagination loop', async () => {
    const empty = await run(geckoterminalNetworks, (req) =>
      req.query.get('page') === '1'
        ? { body: fixture('geckoterminal-networks-page1.json') }
        : { body: '{"data":[],"links":{"next":"https://x/api/v2/networks?page=3"}}' },
    );
    expect(counted(empty)).toHaveLength(4);
    await stub?.close();
    const loop = await run(geckoterminalNetworks, () => ({
      body: fixture('geckoterminal-networks-page1.json').replace('page=2"', 'page=1"'),
    }));
    expect(loop.ok).toBe(false);
    if (!loop.ok) expect(loop.failure.type).toBe('parse');
  });

  it('Codex sends the raw key, counts unique network ids (EVM ids as eip155, Solana through the table)', async () => {
    const r = await run(codexNetworks, () => ({ body: fixture('codex-networks.json') }), 'ck');
    expect(counted(r)).toEqual(['eip155:1', 'eip155:42161', 'eip155:56', 'eip155:8453', SOLANA]);
    expect(stub?.requests[0]?.headers.authorization).toBe('ck');
    expect(JSON.parse(stub?.requests[0]?.body ?? '{}').query).toContain('getNetworks');
  });

  it('Codex: a non-empty errors[] is a failure, not zero networks', async () => {
    const unauthorized = await run(codexNetworks, () => ({ body: fixture('codex-error.json') }), 'ck');
    expect(unauthorized).toMatchObject({ ok: false, failure: { type: 'auth' } });
    await stub?.close();
    const partial = await run(codexNetworks, () => ({ body: fixture('codex-graphql-error.json') }), 'ck');
    expect(partial).toMatchObject({ ok: false, failure: { type: 'parse' } });
    await stub?.close();
    const http401 = await run(
      codexNetworks,
      () => ({ status: 401, body: fixture('codex-error.json') }),
      'bad',
    );
    expect(http401).toMatchObject({ ok: false, failure: { type: 'auth', status: 401 } });
  });

  it('Mobula: 1, evm:1 and evmChainId are one chain; solana and solana:solana too; testnets dropped', async () => {
    const r = await run(mobulaNetworks, () => ({ body: fixture('mobula-blockchains.json') }), 'mk');
    expect(counted(r)).toEqual(['eip155:1', 'eip155:56', SOLANA, 'stellar:pubnet']);
    expect(stub?.requests[0]?.headers.authorization).toBe('mk');
    const id = (chainId: string | number, evmChainId?: number) =>
      resolveChain(mobulaHints(chainId, evmChainId), String(chainId)).id;
    expect(id('1')).toBe('eip155:1');
    expect(id('EVM:0001')).toBe('eip155:1');
    expect(id(8453)).toBe('eip155:8453');
    expect(id('base', 8453)).toBe('eip155:8453');
    expect(id('solana')).toBe(SOLANA);
    expect(id('cosmos:cosmoshub-4')).toBe('cosmos:cosmoshub-4');
    // A CAIP-2 id keeps its case-sensitive reference: Solana's genesis hash is Solana.
    expect(id(SOLANA)).toBe(SOLANA);
    expect(id('newchain')).toBe('unmapped:newchain');
    expect(id('newchain:newchain')).toBe('unmapped:newchain');
  });

  it("Mobula: solana:solana, Solana's case-sensitive CAIP-2 id and evm:1 are two chains, not three", async () => {
    const entry = (name: string, chainId: string) => ({
      name,
      chainId,
      explorer: 'x',
      color: '#000',
      logo: 'x',
      routers: [],
      tokens: [],
      supportedProtocols: [],
    });
    const r = await run(
      mobulaNetworks,
      () => ({
        body: JSON.stringify({
          data: [entry('Solana', 'solana:solana'), entry('Solana', SOLANA), entry('Ethereum', 'evm:1')],
        }),
      }),
      'mk',
    );
    expect(counted(r)).toEqual(['eip155:1', SOLANA]);
  });

  it('CoinPaprika maps unique platform ids through the table (no chain id exists)', async () => {
    const r = await run(coinpaprikaNetworks, () => ({ body: fixture('coinpaprika-contracts.json') }));
    expect(counted(r)).toEqual([
      'eip155:1',
      'eip155:137',
      'eip155:43114',
      'eip155:56',
      SOLANA,
      'tron:0x2b6653dc',
    ]);
    if (r.ok) expect(r.value.entries.find((n) => n.rawId === 'bnb-binance-coin')?.name).toBe('binance coin');
  });

  it('Covalent: Bearer key, is_testnet dropped, chain_id deduped; error envelopes fail', async () => {
    const r = await run(covalentNetworks, () => ({ body: fixture('covalent-chains.json') }), 'cqt');
    // Covalent's own chain_ids for Solana (1399811149) and Bitcoin (20090103) are no EVM chain ids:
    // the chain name goes through the table, never eip155:1399811149.
    expect(counted(r)).toEqual([
      'bip122:000000000019d6689c085ae165831e93',
      'eip155:1',
      'eip155:56',
      'eip155:8453',
      SOLANA,
    ]);
    expect(stub?.requests[0]?.headers.authorization).toBe('Bearer cqt');
    if (r.ok)
      expect(countNetworks(r.value, evm).counted.find((n) => n.chainId === 'eip155:56')?.name).toBe(
        'bsc-mainnet',
      );
    await stub?.close();
    const apiErr = await run(covalentNetworks, () => ({ body: fixture('covalent-error.json') }), 'cqt');
    expect(apiErr).toMatchObject({ ok: false, failure: { type: 'parse' } });
    await stub?.close();
    const auth = await run(
      covalentNetworks,
      () => ({ status: 401, body: fixture('covalent-401.json') }),
      'bad',
    );
    expect(auth).toMatchObject({ ok: false, failure: { type: 'auth', status: 401 } });
  });

  it('CoinStats counts unique chain values, not wallet connections', async () => {
    const r = await run(coinstatsNetworks, () => ({ body: fixture('coinstats-blockchains.json') }), 'csk');
    expect(counted(r)).toEqual(['eip155:1', 'eip155:137', 'eip155:56', SOLANA]);
    expect(stub?.requests[0]?.headers['x-api-key']).toBe('csk');
  });

  it('Sim by Dune keeps only chains tagged mainnet, dedupes chain_id, sends the key only when set', async () => {
    const r = await run(simDuneNetworks, () => ({ body: fixture('sim-dune-supported-chains.json') }));
    expect(counted(r)).toEqual(['eip155:1', 'eip155:57073', 'eip155:8453']);
    expect(stub?.requests[0]?.headers['x-sim-api-key']).toBeUndefined();
    await stub?.close();
    await run(simDuneNetworks, () => ({ body: fixture('sim-dune-supported-chains.json') }), 'sk');
    expect(stub?.requests[0]?.headers['x-sim-api-key']).toBe('sk');
  });

  it('CoinGecko: chain_identifier where given, else the platform id through the table; unknown ones count once', async () => {
    const r = await run(coingeckoNetworks, () => ({ body: fixture('coingecko-asset-platforms.json') }));
    expect(counted(r)).toEqual(['eip155:1', 'eip155:56', SOLANA, 'unmapped:factom']);
  });

  it('validates entry by entry: bad entries are dropped with a reason; exactly half bad still counts', async () => {
    const r = await run(coinpaprikaNetworks, () => ({ body: '["eth-ethereum", null, "", "sol-solana"]' }));
    if (!r.ok) throw new Error(r.failure.message);
    expect(r.value.dropped.map((d) => [d.rawId, d.reason])).toEqual([
      ['', 'missing_id'],
      ['', 'missing_id'],
    ]);
    expect(checkListing(r.value, 'coinpaprika').ok).toBe(true);
    expect(counted(r)).toEqual(['eip155:1', SOLANA]);
    await stub?.close();
    const g = await run(coingeckoNetworks, () => ({
      body: '[{"id":"ethereum","chain_identifier":1,"name":"Ethereum"},{"id":7,"name":"Seven"},{"id":"x"},{"id":"base","chain_identifier":8453,"name":"Base"}]',
    }));
    if (!g.ok) throw new Error(g.failure.message);
    expect(g.value.dropped.map((d) => [d.rawId, d.name, d.reason])).toEqual([
      ['7', 'Seven', 'bad_id'],
      ['x', '', 'bad_entry'],
    ]);
    expect(counted(g)).toEqual(['eip155:1', 'eip155:8453']);
  });

  it('the listing fails only when MORE than half its entries are bad: both sides of the boundary', () => {
    const good: ListingEntry = { rawId: 'eth', name: 'Ethereum', hints: [{ chainId: 1 }] };
    const bad = { rawId: '', name: '', reason: 'missing_id' as const, detail: '0: required' };
    const listing = (g: number, b: number): Listing => ({
      entries: Array.from({ length: g }, () => good),
      dropped: Array.from({ length: b }, () => bad),
    });
    // Exactly half bad (2 of 4, 1 of 2) still counts; one more bad entry than good fails.
    expect(checkListing(listing(2, 2), 'x').ok).toBe(true);
    expect(checkListing(listing(1, 1), 'x').ok).toBe(true);
    expect(checkListing(listing(3, 2), 'x').ok).toBe(true);
    expect(checkListing(listing(2, 3), 'x')).toMatchObject({ ok: false, failure: { type: 'parse' } });
    expect(checkListing(listing(0, 1), 'x').ok).toBe(false);
    expect(checkListing(listing(1, 0), 'x').ok).toBe(true);
    expect(checkListing(listing(0, 0), 'x').ok).toBe(true);
  });

  it('a body of the wrong shape is a parse failure; a listing of only bad entries fails naming the field', async () => {
    const whole = await run(coingeckoNetworks, () => ({ body: '{"id":"x"}' }));
    expect(whole).toMatchObject({ ok: false, failure: { type: 'parse' } });
    await stub?.close();
    const r = await run(coingeckoNetworks, () => ({ body: '[{"id":"x"}]' }));
    if (!r.ok) throw new Error(r.failure.message);
    expect(r.value.dropped).toMatchObject([{ rawId: 'x', reason: 'bad_entry' }]);
    const checked = checkListing(r.value, 'coingecko');
    expect(checked).toMatchObject({ ok: false, failure: { type: 'parse' } });
    if (!checked.ok) expect(checked.failure.message).toContain('0.name');
  });
});
