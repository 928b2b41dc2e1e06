import { z } from 'zod';
import { type AdapterContext, getJson, joinUrl } from '../../../context.ts';
import { DigestSet } from '../../../digest-set.ts';
import type { ReferenceToken } from '../../../tokens.ts';
import { fail, ok, type Result } from '../../../types.ts';
import { PHANTOM_CANDIDATES, type TradeAdapter, type TradeFetch, type TradeWindow } from './contract.ts';

export const MOBULA_PAGE_LIMIT = 5000;

const BLOCKCHAIN: Readonly<Record<string, string>> = {
  solana: 'Solana',
  ethereum: 'Ethereum',
  bsc: 'BNB Smart Chain (BEP20)',
  base: 'Base',
  stellar: 'Stellar',
};

const page = z.object({
  data: z.array(z.object({ transactionHash: z.string().min(1) })),
  pagination: z.object({ hasMore: z.boolean(), nextCursor: z.string().nullish() }),
});

/** GET /api/2/trades/filters, cursor pagination, 5000 per page, window in ms (`to` inclusive). */
export const mobulaTrades: TradeAdapter = {
  provider: 'mobula',
  chains: Object.keys(BLOCKCHAIN),
  async fetch(token: ReferenceToken, w: TradeWindow, ctx: AdapterContext): Promise<Result<TradeFetch>> {
    const blockchain = BLOCKCHAIN[token.chain];
    if (!blockchain) return fail('parse', `mobula: unsupported chain ${token.chain}`);
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
      const q = new URLSearchParams({
        blockchain,
        tokenAddress: token.address,
        from: String(w.startMs),
        to: String(w.endMs - 1),
        limit: String(MOBULA_PAGE_LIMIT),
        sortOrder: 'asc',
      });
      if (cursor !== null) q.set('cursor', cursor);
      const r = await getJson(
        ctx,
        {
          url: joinUrl(ctx.provider.baseUrl, `/api/2/trades/filters?${q}`),
          headers: { authorization: ctx.provider.apiKey ?? '' },
        },
        page,
        `mobula trades page ${pages + 1}`,
      );
      if (!r.ok) return r;
      pages++;
      rows += r.value.data.length;
      for (const t of r.value.data) if (!hashes.add(t.transactionHash)) capped = true;
      if (capped) break;
      const next = r.value.pagination.nextCursor;
      if (r.value.data.length === 0 || !r.value.pagination.hasMore || !next) break;
      if (cursors.has(next))
        return fail('parse', `mobula: cursor loop at page ${pages} (${next.slice(0, 40)})`);
      cursors.add(next);
      cursor = next;
    }
    return ok({ hashes, rows, pages, capped });
  },
};
