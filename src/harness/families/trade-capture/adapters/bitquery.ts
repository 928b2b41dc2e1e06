import { z } from 'zod';
import { type AdapterContext, type GraphqlApi, joinUrl, postGraphql } from '../../../context.ts';
import { DigestSet } from '../../../digest-set.ts';
import type { ReferenceToken } from '../../../tokens.ts';
import { fail, ok, type Result } from '../../../types.ts';
import { PHANTOM_CANDIDATES, type TradeAdapter, type TradeFetch, type TradeWindow } from './contract.ts';

export const BITQUERY_ROW_LIMIT = 10_000;

const EVM_NETWORK: Readonly<Record<string, string>> = { ethereum: 'eth', bsc: 'bsc', base: 'base' };

/**
 * DEXTradeByTokens filtered on `Trade.Currency` matches the token on either side of a trade, so buys
 * and sells both count (the reference's DEXTrades + `Trade.Buy` filter saw buys only).
 */
export function bitqueryQuery(chain: string): string | null {
  const time = 'Block: {Time: {since: $since, before: $before}}';
  if (chain === 'solana') {
    return `query Trades($token: String!, $since: DateTime!, $before: DateTime!) {
  Solana(dataset: realtime) {
    DEXTradeByTokens(limit: {count: ${BITQUERY_ROW_LIMIT}}, where: {${time}, Trade: {Currency: {MintAddress: {is: $token}}}, Transaction: {Result: {Success: true}}}) {
      Transaction { Signature }
    }
  }
}`;
  }
  const network = EVM_NETWORK[chain];
  if (!network) return null;
  return `query Trades($token: String!, $since: DateTime!, $before: DateTime!) {
  EVM(dataset: realtime, network: ${network}) {
    DEXTradeByTokens(limit: {count: ${BITQUERY_ROW_LIMIT}}, where: {${time}, Trade: {Currency: {SmartContract: {is: $token}}}}) {
      Transaction { Hash }
    }
  }
}`;
}

const solana = z.object({
  Solana: z.object({
    DEXTradeByTokens: z.array(z.object({ Transaction: z.object({ Signature: z.string().min(1) }) })),
  }),
});
const evm = z.object({
  EVM: z.object({
    DEXTradeByTokens: z.array(z.object({ Transaction: z.object({ Hash: z.string().min(1) }) })),
  }),
});

/** One GraphQL call, hard limit 10000 rows, no pagination: hitting the limit flags the cell capped. */
export const bitqueryTrades: TradeAdapter = {
  provider: 'bitquery',
  chains: ['solana', ...Object.keys(EVM_NETWORK)],
  hardRowLimit: BITQUERY_ROW_LIMIT,
  async fetch(token: ReferenceToken, w: TradeWindow, ctx: AdapterContext): Promise<Result<TradeFetch>> {
    const query = bitqueryQuery(token.chain);
    if (!query) return fail('parse', `bitquery: unsupported chain ${token.chain}`);
    const variables = {
      token: token.address,
      since: new Date(w.startMs).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      before: new Date(w.endMs).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    };
    const api: GraphqlApi = {
      url: joinUrl(ctx.provider.baseUrl, '/graphql'),
      headers: { authorization: `Bearer ${ctx.provider.apiKey ?? ''}` },
      // Bitquery documents a refused token only as HTTP 401 (docs.bitquery.io, authorisation), and
      // no GraphQL error code for it: its GraphQL errors are all its own failures.
      authErrorCodes: [],
    };
    const hashes = new DigestSet(ctx.maxHashes, PHANTOM_CANDIDATES);
    let rows = 0;
    let full = false;
    if (token.chain === 'solana') {
      const r = await postGraphql(ctx, api, query, variables, solana, 'bitquery solana trades');
      if (!r.ok) return r;
      for (const t of r.value.Solana.DEXTradeByTokens) if (!hashes.add(t.Transaction.Signature)) full = true;
      rows = r.value.Solana.DEXTradeByTokens.length;
    } else {
      const r = await postGraphql(ctx, api, query, variables, evm, 'bitquery evm trades');
      if (!r.ok) return r;
      for (const t of r.value.EVM.DEXTradeByTokens) if (!hashes.add(t.Transaction.Hash)) full = true;
      rows = r.value.EVM.DEXTradeByTokens.length;
    }
    return ok({ hashes, rows, pages: 1, capped: full || rows >= BITQUERY_ROW_LIMIT });
  },
};
