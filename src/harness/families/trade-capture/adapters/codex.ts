import { z } from 'zod';
import { type AdapterContext, type GraphqlApi, joinUrl, postGraphql } from '../../../context.ts';
import { DigestSet } from '../../../digest-set.ts';
import type { ReferenceToken } from '../../../tokens.ts';
import { fail, ok, type Result } from '../../../types.ts';
import { PHANTOM_CANDIDATES, type TradeAdapter, type TradeFetch, type TradeWindow } from './contract.ts';

export const CODEX_PAGE_LIMIT = 200;

export const CODEX_NETWORK_ID: Readonly<Record<string, number>> = {
  solana: 1399811149,
  ethereum: 1,
  bsc: 56,
  base: 8453,
};

/**
 * The endpoint both Codex adapters call: the raw key in Authorization (no Bearer). Codex documents a
 * refused key as the GraphQL code UNAUTHENTICATED (docs.codex.io, Troubleshooting: "Your API key was
 * not found" / UNAUTHENTICATED / 401), so that code is our failure just as a 401 is.
 */
export function codexApi(ctx: AdapterContext): GraphqlApi {
  return {
    url: joinUrl(ctx.provider.baseUrl, '/graphql'),
    headers: { authorization: ctx.provider.apiKey ?? '' },
    authErrorCodes: ['UNAUTHENTICATED'],
  };
}

const QUERY = `query TokenEvents($query: EventsQueryInput!, $limit: Int, $cursor: String) {
  getTokenEvents(query: $query, limit: $limit, cursor: $cursor) {
    items { transactionHash eventType exchangeAddress }
    cursor
  }
}`;

const data = z.object({
  getTokenEvents: z.object({
    items: z.array(z.object({ transactionHash: z.string().min(1) }).nullable()).nullable(),
    cursor: z.string().nullish(),
  }),
});

/** getTokenEvents, 200 per page with a cursor; timestamps are inclusive Unix seconds. */
export const codexTrades: TradeAdapter = {
  provider: 'codex',
  chains: Object.keys(CODEX_NETWORK_ID),
  async fetch(token: ReferenceToken, w: TradeWindow, ctx: AdapterContext): Promise<Result<TradeFetch>> {
    const networkId = CODEX_NETWORK_ID[token.chain];
    if (networkId === undefined) return fail('parse', `codex: unsupported chain ${token.chain}`);
    const query = {
      address: token.address,
      networkId,
      timestamp: { from: Math.ceil(w.startMs / 1000), to: Math.ceil(w.endMs / 1000) - 1 },
      eventType: 'Swap',
    };
    const hashes = new DigestSet(ctx.maxHashes, PHANTOM_CANDIDATES);
    const cursors = new Set<string>();
    let rows = 0;
    let pages = 0;
    let capped = false;
    let cursor: string | null = null;
    for (;;) {
      // Our page guard: the trades fetched so far stand, as a floor.
      if (pages >= ctx.maxPages) {
        capped = true;
        break;
      }
      const r: Result<z.output<typeof data>> = await postGraphql(
        ctx,
        codexApi(ctx),
        QUERY,
        { query, limit: CODEX_PAGE_LIMIT, cursor },
        data,
        `codex getTokenEvents page ${pages + 1}`,
      );
      if (!r.ok) return r;
      pages++;
      const items = r.value.getTokenEvents.items ?? [];
      for (const it of items) {
        if (!it) continue;
        rows++;
        if (!hashes.add(it.transactionHash)) capped = true;
      }
      if (capped) break;
      const next: string | null | undefined = r.value.getTokenEvents.cursor;
      if (items.length === 0 || !next) break;
      if (cursors.has(next)) return fail('parse', `codex: cursor loop at page ${pages}`);
      cursors.add(next);
      cursor = next;
    }
    return ok({ hashes, rows, pages, capped });
  },
};
