import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { HarnessProvider } from '../src/harness/config.ts';
import type { AdapterContext } from '../src/harness/context.ts';
import { codexNetworks } from '../src/harness/network/codex.ts';
import { coingeckoNetworks } from '../src/harness/network/coingecko.ts';
import { coinpaprikaNetworks } from '../src/harness/network/coinpaprika.ts';
import { coinstatsNetworks } from '../src/harness/network/coinstats.ts';
import { countNetworks, type NetworkAdapter } from '../src/harness/network/contract.ts';
import { covalentNetworks } from '../src/harness/network/covalent.ts';
import { geckoterminalNetworks } from '../src/harness/network/geckoterminal.ts';
import { mobulaNetworks, normalizeMobulaChainId } from '../src/harness/network/mobula.ts';
import { simDuneNetworks } from '../src/harness/network/sim-dune.ts';
import {
  type StubRequest,
  type StubResponse,
  type StubServer,
  startStubServer,
} from '../src/sim/stub-server.ts';

const fixture = (name: string) =>
  readFileSync(new URL(`./fixtures/providers/${name}`, import.meta.url), 'utf8');

function ctx(slug: HarnessProvider, baseUrl: string, apiKey?: string): AdapterContext {
  return {
    provider: {
      slug,
      baseUrl,
      ...(apiKey ? { apiKey } : {}),
      timeoutMs: 2000,
      concurrency: 2,
      configured: true,
    },
    maxPages: 20,
    http: { timeoutMs: 2000, maxBodyBytes: 1 << 20, maxRetries: 0, retryMaxWaitMs: 0 },
  };
}

let stub: StubServer | null = null;
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
  return adapter.list(ctx(adapter.provider, stub.url, apiKey));
}

function counted(r: Awaited<ReturnType<NetworkAdapter['list']>>): string[] {
  if (!r.ok) throw new Error(`expected success, got ${r.failure.type}: ${r.failure.message}`);
  return countNetworks(r.value).map((n) => n.key);
}

describe('network adapters on recorded provider responses', () => {
  it('GeckoTerminal follows links.next by page number, ends on null next, dedupes on the GT id', async () => {
    const r = await run(geckoterminalNetworks, (req) => ({
      body: fixture(`geckoterminal-networks-page${req.query.get('page')}.json`),
    }));
    // 7 entries, some_new_l2 listed on both pages, two networks with a null platform id both count.
    expect(counted(r)).toEqual(['another_l3', 'base', 'bsc', 'eth', 'solana', 'some_new_l2']);
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

  it('Codex sends the raw key, counts unique network ids', async () => {
    const r = await run(codexNetworks, () => ({ body: fixture('codex-networks.json') }), 'ck');
    expect(counted(r)).toEqual(['1', '1399811149', '42161', '56', '8453']);
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
    expect(counted(r)).toEqual(['evm:1', 'evm:56', 'solana:solana', 'stellar:stellar']);
    expect(stub?.requests[0]?.headers.authorization).toBe('mk');
    expect(normalizeMobulaChainId('1')).toBe('evm:1');
    expect(normalizeMobulaChainId('EVM:0001')).toBe('evm:1');
    expect(normalizeMobulaChainId(8453)).toBe('evm:8453');
    expect(normalizeMobulaChainId('base', 8453)).toBe('evm:8453');
    expect(normalizeMobulaChainId('solana')).toBe('solana:solana');
  });

  it('CoinPaprika counts unique platform ids (no chain id exists)', async () => {
    const r = await run(coinpaprikaNetworks, () => ({ body: fixture('coinpaprika-contracts.json') }));
    expect(counted(r)).toHaveLength(6);
    if (r.ok) expect(r.value.find((n) => n.key === 'bnb-binance-coin')?.name).toBe('binance coin');
  });

  it('Covalent: Bearer key, is_testnet dropped, chain_id deduped; error envelopes fail', async () => {
    const r = await run(covalentNetworks, () => ({ body: fixture('covalent-chains.json') }), 'cqt');
    expect(counted(r)).toEqual(['1', '56', '8453']);
    expect(stub?.requests[0]?.headers.authorization).toBe('Bearer cqt');
    if (r.ok) expect(countNetworks(r.value).find((n) => n.key === '56')?.name).toBe('bsc-mainnet');
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
    expect(counted(r)).toEqual(['binance_smart', 'ethereum', 'polygon-pos', 'solana']);
    expect(stub?.requests[0]?.headers['x-api-key']).toBe('csk');
  });

  it('Sim by Dune keeps only chains tagged mainnet, dedupes chain_id, sends the key only when set', async () => {
    const r = await run(simDuneNetworks, () => ({ body: fixture('sim-dune-supported-chains.json') }));
    expect(counted(r)).toEqual(['1', '57073', '8453']);
    expect(stub?.requests[0]?.headers['x-sim-api-key']).toBeUndefined();
    await stub?.close();
    await run(simDuneNetworks, () => ({ body: fixture('sim-dune-supported-chains.json') }), 'sk');
    expect(stub?.requests[0]?.headers['x-sim-api-key']).toBe('sk');
  });

  it('CoinGecko dedupes on the platform id; null chain_identifier entries still count', async () => {
    const r = await run(coingeckoNetworks, () => ({ body: fixture('coingecko-asset-platforms.json') }));
    expect(counted(r)).toEqual(['binance-smart-chain', 'ethereum', 'factom', 'solana']);
  });

  it('a body of the wrong shape is a parse failure naming the field', async () => {
    const r = await run(coingeckoNetworks, () => ({ body: '[{"id":"x"}]' }));
    expect(r).toMatchObject({ ok: false, failure: { type: 'parse' } });
    if (!r.ok) expect(r.failure.message).toContain('0.name');
  });
});
