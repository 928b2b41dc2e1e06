import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { HarnessProvider } from '../../src/harness/config.ts';
import type { AdapterContext } from '../../src/harness/context.ts';
import { bitqueryTrades } from '../../src/harness/families/trade-capture/adapters/bitquery.ts';
import { codexTrades } from '../../src/harness/families/trade-capture/adapters/codex.ts';
import type { TradeAdapter } from '../../src/harness/families/trade-capture/adapters/contract.ts';
import { mobulaTrades } from '../../src/harness/families/trade-capture/adapters/mobula.ts';
import type { ReferenceToken } from '../../src/harness/tokens.ts';
import { blame } from '../../src/harness/types.ts';
import {
  type StubRequest,
  type StubResponse,
  type StubServer,
  startStubServer,
} from '../../src/sim/stub-server.ts';

const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/providers/${name}`, import.meta.url), 'utf8');
const BONK: ReferenceToken = {
  chain: 'solana',
  symbol: 'BONK',
  address: 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263',
};
const PEPE: ReferenceToken = {
  chain: 'ethereum',
  symbol: 'PEPE',
  address: '0x6982508145454Ce325dDbE47a25d4ec3d2311933',
};
const W = { startMs: 1_753_264_800_000, endMs: 1_753_268_400_000 };

/** The timeouts are outer bounds: a loopback stub answers in ~1 ms, and no test here is about one. */
function ctx(
  slug: HarnessProvider,
  baseUrl: string,
  limits: { maxPages?: number; maxHashes?: number } = {},
): AdapterContext {
  return {
    provider: { slug, baseUrl, apiKey: 'key', timeoutMs: 30_000, concurrency: 2, configured: true },
    maxPages: limits.maxPages ?? 20,
    maxHashes: limits.maxHashes ?? 1_000_000,
    http: { timeoutMs: 30_000, maxBodyBytes: 1 << 20, maxRetries: 0, retryMaxWaitMs: 0 },
  };
}

let stub: StubServer | null = null;
afterEach(async () => {
  await stub?.close();
  stub = null;
});

async function run(
  adapter: TradeAdapter,
  token: ReferenceToken,
  handler: (r: StubRequest) => StubResponse,
  limits: { maxPages?: number; maxHashes?: number } = {},
) {
  stub = await startStubServer(handler);
  return adapter.fetch(token, W, ctx(adapter.provider, stub.url, limits));
}

/** A GraphQL answer with HTTP 200 and one error. */
const gqlError = (message: string, code?: string): StubResponse => ({
  body: JSON.stringify({
    data: null,
    errors: [{ message, ...(code ? { extensions: { code } } : {}) }],
  }),
});

describe('Mobula /api/2/trades/filters', () => {
  it('pages by cursor, dedupes hashes across pages and multi-swap rows, sends the window in ms', async () => {
    const r = await run(mobulaTrades, BONK, (q) => ({
      body: fixture(q.query.get('cursor') ? 'mobula-trades-page2.json' : 'mobula-trades-page1.json'),
    }));
    expect(r).toMatchObject({ ok: true, value: { rows: 5, pages: 2, capped: false } });
    if (r.ok) {
      expect(r.value.hashes.size).toBe(3);
      for (const h of ['5h3kAAA', '5h3kBBB', '5h3kCCC']) expect(r.value.hashes.has(h)).toBe(true);
    }
    const [p1, p2] = stub?.requests ?? [];
    expect(p1?.query.get('blockchain')).toBe('Solana');
    expect(p1?.query.get('tokenAddress')).toBe(BONK.address);
    expect(p1?.query.get('limit')).toBe('5000');
    expect(Number(p1?.query.get('from'))).toBe(W.startMs);
    expect(Number(p1?.query.get('to'))).toBe(W.endMs - 1);
    expect(p1?.headers.authorization).toBe('key');
    expect(p2?.query.get('cursor')).toBe('1753268401000:9f1c03');
  });

  it('a cursor seen before ends pagination with a parse failure', async () => {
    const r = await run(mobulaTrades, BONK, () => ({ body: fixture('mobula-trades-page1.json') }));
    expect(r).toMatchObject({ ok: false, failure: { type: 'parse' } });
    if (!r.ok) expect(r.failure.message).toMatch(/cursor loop/);
  });

  it('a malformed page is a parse failure, never a crash', async () => {
    const r = await run(mobulaTrades, BONK, () => ({ body: '{"data":[{"transactionHash":' }));
    expect(r).toMatchObject({ ok: false, failure: { type: 'parse' } });
  });

  it('an empty first page is zero trades', async () => {
    const r = await run(mobulaTrades, BONK, () => ({
      body: '{"data":[],"pagination":{"count":0,"nextCursor":null,"hasMore":false}}',
    }));
    expect(r).toMatchObject({ ok: true, value: { rows: 0 } });
  });

  it('our page guard keeps the trades fetched so far as a capped floor, never a failure', async () => {
    // Every page says there is more, with a fresh cursor: only our guard (3 pages) stops it.
    const r = await run(
      mobulaTrades,
      BONK,
      (q) => {
        const n = Number(q.query.get('cursor') ?? '0');
        return {
          body: JSON.stringify({
            data: [{ transactionHash: `tx${n}a` }, { transactionHash: `tx${n}b` }],
            pagination: { count: 2, nextCursor: String(n + 1), hasMore: true },
          }),
        };
      },
      { maxPages: 3 },
    );
    expect(r).toMatchObject({ ok: true, value: { rows: 6, pages: 3, capped: true } });
    if (r.ok) expect(r.value.hashes.size).toBe(6);
    expect(stub?.requests).toHaveLength(3);
  });

  it('reaching the hash bound flags the count capped', async () => {
    const r = await run(mobulaTrades, BONK, () => ({ body: fixture('mobula-trades-page2.json') }), {
      maxHashes: 1,
    });
    expect(r).toMatchObject({ ok: true, value: { capped: true } });
    if (r.ok) expect(r.value.hashes.size).toBe(1);
  });
});

describe('Codex getTokenEvents', () => {
  it('pages by cursor at 200 per page, skips null items, dedupes multi-swap transactions', async () => {
    const r = await run(codexTrades, PEPE, (q) => {
      const v = JSON.parse(q.body).variables;
      return { body: fixture(v.cursor ? 'codex-token-events-page2.json' : 'codex-token-events-page1.json') };
    });
    expect(r).toMatchObject({ ok: true, value: { rows: 4, pages: 2 } });
    if (r.ok) expect(r.value.hashes.size).toBe(3);
    const v1 = JSON.parse(stub?.requests[0]?.body ?? '{}').variables;
    expect(v1).toMatchObject({
      limit: 200,
      cursor: null,
      query: {
        address: PEPE.address,
        networkId: 1,
        eventType: 'Swap',
        timestamp: { from: W.startMs / 1000, to: W.endMs / 1000 - 1 },
      },
    });
    expect(JSON.parse(stub?.requests[1]?.body ?? '{}').variables.cursor).toBe('eyJ0IjoxNzUzMjY4NDAwfQ==');
  });

  it('GraphQL errors are failures, never zero trades; its documented UNAUTHENTICATED code is our refused key', async () => {
    const r = await run(codexTrades, PEPE, () => ({ body: fixture('codex-error.json') }));
    expect(r).toMatchObject({ ok: false, failure: { type: 'auth', code: 'UNAUTHENTICATED' } });
    if (!r.ok) expect(blame(r.failure)).toBe('ours');
    await stub?.close();
    // The code decides, not the words: a refusal worded without any "auth" word is still ours.
    const plain = await run(codexTrades, PEPE, () => gqlError('Access denied', 'UNAUTHENTICATED'));
    expect(plain).toMatchObject({ ok: false, failure: { type: 'auth' } });
    if (!plain.ok) expect(blame(plain.failure)).toBe('ours');
  });

  it('a rate-limit or unknown-token GraphQL error is the provider failing, whatever its words say', async () => {
    for (const message of [
      'Rate limit exceeded for this API key',
      'Token is invalid or not indexed on this network',
      'Unauthorized',
    ]) {
      const r = await run(codexTrades, PEPE, () => gqlError(message));
      expect(r, message).toMatchObject({ ok: false, failure: { type: 'parse' } });
      if (!r.ok) expect(blame(r.failure), message).toBe('provider');
      await stub?.close();
    }
    const limited = await run(codexTrades, PEPE, () => gqlError('Too many requests', 'RATE_LIMITED'));
    expect(limited).toMatchObject({ ok: false, failure: { type: 'parse', code: 'RATE_LIMITED' } });
    if (!limited.ok) expect(blame(limited.failure)).toBe('provider');
  });

  it('our page guard keeps the events fetched so far as a capped floor', async () => {
    const r = await run(
      codexTrades,
      PEPE,
      (q) => {
        const n = Number(JSON.parse(q.body).variables.cursor ?? '0');
        return {
          body: JSON.stringify({
            data: { getTokenEvents: { items: [{ transactionHash: `0x${n}` }], cursor: String(n + 1) } },
          }),
        };
      },
      { maxPages: 2 },
    );
    expect(r).toMatchObject({ ok: true, value: { rows: 2, pages: 2, capped: true } });
  });

  it('reaching the hash bound flags the count capped', async () => {
    const r = await run(codexTrades, PEPE, () => ({ body: fixture('codex-token-events-page1.json') }), {
      maxHashes: 1,
    });
    expect(r).toMatchObject({ ok: true, value: { capped: true } });
    if (r.ok) expect(r.value.hashes.size).toBe(1);
  });

  it('the same cursor twice is a parse failure', async () => {
    const r = await run(codexTrades, PEPE, () => ({ body: fixture('codex-token-events-page1.json') }));
    expect(r).toMatchObject({ ok: false, failure: { type: 'parse' } });
  });
});

describe('Bitquery', () => {
  it('Solana: one call, DEXTradeByTokens on MintAddress, signatures deduped', async () => {
    const r = await run(bitqueryTrades, BONK, () => ({ body: fixture('bitquery-solana.json') }));
    expect(r).toMatchObject({ ok: true, value: { rows: 3, pages: 1, capped: false } });
    if (r.ok) expect(r.value.hashes.size).toBe(2);
    const body = JSON.parse(stub?.requests[0]?.body ?? '{}');
    expect(body.query).toContain('Solana(dataset: realtime)');
    expect(body.query).toContain('MintAddress');
    expect(body.variables).toEqual({
      token: BONK.address,
      since: '2025-07-23T10:00:00Z',
      before: '2025-07-23T11:00:00Z',
    });
    expect(stub?.requests[0]?.headers.authorization).toBe('Bearer key');
  });

  it('EVM: counts both trade sides (DEXTradeByTokens on Trade.Currency, no Buy-side filter)', async () => {
    const r = await run(bitqueryTrades, PEPE, () => ({ body: fixture('bitquery-evm.json') }));
    expect(r).toMatchObject({ ok: true, value: { rows: 2 } });
    const q: string = JSON.parse(stub?.requests[0]?.body ?? '{}').query;
    expect(q).toContain('network: eth');
    expect(q).toContain('DEXTradeByTokens');
    expect(q).toContain('Currency: {SmartContract: {is: $token}}');
    expect(q).not.toMatch(/Buy\s*:/);
    expect(q).not.toMatch(/DEXTrades\b/);
  });

  it('hitting the 10000-row limit flags the cell capped', async () => {
    const rows = Array.from({ length: 10_000 }, (_, i) => ({ Transaction: { Hash: `0x${i % 9000}` } }));
    const r = await run(bitqueryTrades, PEPE, () => ({
      body: JSON.stringify({ data: { EVM: { DEXTradeByTokens: rows } } }),
    }));
    expect(r).toMatchObject({ ok: true, value: { rows: 10_000, capped: true } });
    if (r.ok) expect(r.value.hashes.size).toBe(9000);
  });

  it('errors[] with HTTP 200 is a failure (the reference read it as zero trades)', async () => {
    const r = await run(bitqueryTrades, PEPE, () => ({ body: fixture('bitquery-error.json') }));
    expect(r).toMatchObject({ ok: false, failure: { type: 'parse' } });
  });

  it('reaching the hash bound below the row limit flags the count capped', async () => {
    const rows = ['0xa', '0xb', '0xc', '0xa'].map((Hash) => ({ Transaction: { Hash } }));
    const r = await run(
      bitqueryTrades,
      PEPE,
      () => ({ body: JSON.stringify({ data: { EVM: { DEXTradeByTokens: rows } } }) }),
      { maxHashes: 2 },
    );
    expect(r).toMatchObject({ ok: true, value: { rows: 4, capped: true } });
    if (r.ok) expect(r.value.hashes.size).toBe(2);
    await stub?.close();
    const sol = ['s1', 's2', 's3'].map((Signature) => ({ Transaction: { Signature } }));
    const s = await run(
      bitqueryTrades,
      BONK,
      () => ({ body: JSON.stringify({ data: { Solana: { DEXTradeByTokens: sol } } }) }),
      { maxHashes: 2 },
    );
    expect(s).toMatchObject({ ok: true, value: { rows: 3, capped: true } });
  });

  it('only an HTTP 401/403 is our refused token: Bitquery documents no GraphQL code for it', async () => {
    for (const answer of [
      gqlError('Rate limit exceeded for this API key'),
      gqlError('Unauthorized: invalid or expired token'),
      gqlError('Access denied', 'UNAUTHENTICATED'),
    ]) {
      const r = await run(bitqueryTrades, PEPE, () => answer);
      expect(r).toMatchObject({ ok: false, failure: { type: 'parse' } });
      if (!r.ok) expect(blame(r.failure)).toBe('provider');
      await stub?.close();
    }
    const refused = await run(bitqueryTrades, PEPE, () => ({
      status: 401,
      body: '{"errors":[{"message":"Unauthorized"}]}',
    }));
    expect(refused).toMatchObject({ ok: false, failure: { type: 'auth', status: 401 } });
    if (!refused.ok) expect(blame(refused.failure)).toBe('ours');
  });
});
