import { z } from 'zod';
import { type AdapterContext, getJson, joinUrl } from '../../../context.ts';
import { fail, ok, type Result } from '../../../types.ts';
import type { Listing, NetworkAdapter } from './contract.ts';
import { mergeListings, parseEntries } from './entries.ts';

const page = z.object({
  data: z.array(z.unknown()),
  links: z.object({ next: z.string().nullable().optional() }).partial().optional(),
});
const entry = z.object({
  id: z.string().min(1),
  type: z.string().optional(),
  attributes: z.object({
    name: z.string(),
    coingecko_asset_platform_id: z.string().nullish(),
  }),
});

/** The next page number from the JSON:API `links.next` (we never follow the absolute URL itself). */
function nextPage(next: string | null | undefined): number | null | 'bad' {
  if (!next) return null;
  try {
    const n = Number(new URL(next, 'http://x').searchParams.get('page'));
    return Number.isInteger(n) && n > 0 ? n : 'bad';
  } catch {
    return 'bad';
  }
}

/**
 * GET /api/v2/networks?page=N. No chain id and no testnet flag: the GT network id, then its CoinGecko
 * platform id (often null), go through the table; the shared detector catches `monad-testnet`.
 */
export const geckoterminalNetworks: NetworkAdapter = {
  provider: 'geckoterminal',
  async list(ctx: AdapterContext): Promise<Result<Listing>> {
    const pages: Listing[] = [];
    const seenPages = new Set<number>();
    let p: number | null = 1;
    while (p !== null) {
      if (seenPages.has(p)) return fail('parse', `geckoterminal: pagination loops back to page ${p}`);
      if (seenPages.size >= ctx.maxPages)
        return fail('parse', `geckoterminal: more than ${ctx.maxPages} pages`);
      seenPages.add(p);
      const r = await getJson(
        ctx,
        { url: joinUrl(ctx.provider.baseUrl, `/api/v2/networks?page=${p}`) },
        page,
        `geckoterminal page ${p}`,
      );
      if (!r.ok) return r;
      if (r.value.data.length === 0) break;
      pages.push(
        parseEntries(r.value.data, entry, ['id'], (n) => ({
          rawId: n.id,
          name: n.attributes.name,
          hints: [
            { scheme: 'geckoterminal', slug: n.id },
            ...(n.attributes.coingecko_asset_platform_id
              ? [{ scheme: 'coingecko' as const, slug: n.attributes.coingecko_asset_platform_id }]
              : []),
          ],
        })),
      );
      const next = nextPage(r.value.links?.next);
      if (next === 'bad') return fail('parse', `geckoterminal: unreadable links.next on page ${p}`);
      p = next;
    }
    return ok(mergeListings(pages));
  },
};
