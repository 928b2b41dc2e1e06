import { z } from 'zod';
import { type AdapterContext, getJson, joinUrl } from '../context.ts';
import { fail, ok, type Result } from '../types.ts';
import type { ListedNetwork, NetworkAdapter } from './contract.ts';

const page = z.object({
  data: z.array(
    z.object({
      id: z.string().min(1),
      type: z.string().optional(),
      attributes: z.object({
        name: z.string(),
        coingecko_asset_platform_id: z.string().nullable().optional(),
      }),
    }),
  ),
  links: z.object({ next: z.string().nullable().optional() }).partial().optional(),
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

/** GET /api/v2/networks?page=N. No testnet flag; dedupe on the GT network id (the platform id can be null). */
export const geckoterminalNetworks: NetworkAdapter = {
  provider: 'geckoterminal',
  async list(ctx: AdapterContext): Promise<Result<ListedNetwork[]>> {
    const out: ListedNetwork[] = [];
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
      for (const n of r.value.data) out.push({ key: n.id, name: n.attributes.name, testnet: false });
      const next = nextPage(r.value.links?.next);
      if (next === 'bad') return fail('parse', `geckoterminal: unreadable links.next on page ${p}`);
      p = next;
    }
    return ok(out);
  },
};
