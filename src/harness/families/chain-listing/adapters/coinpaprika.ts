import { z } from 'zod';
import { type AdapterContext, getJson, joinUrl } from '../../../context.ts';
import { ok, type Result } from '../../../types.ts';
import type { Listing, NetworkAdapter } from './contract.ts';
import { parseEntries } from './entries.ts';

const body = z.array(z.unknown());
const entry = z.string().min(1);

/** `eth-ethereum` → `ethereum`, `bnb-binance-coin` → `binance coin`. */
function platformName(id: string): string {
  const i = id.indexOf('-');
  return (i >= 0 ? id.slice(i + 1) : id).replace(/-/g, ' ');
}

/** GET /v1/contracts: a flat array of platform ids and no chain id, so each id goes through the table. */
export const coinpaprikaNetworks: NetworkAdapter = {
  provider: 'coinpaprika',
  async list(ctx: AdapterContext): Promise<Result<Listing>> {
    const r = await getJson(
      ctx,
      { url: joinUrl(ctx.provider.baseUrl, '/v1/contracts') },
      body,
      'coinpaprika contracts',
    );
    if (!r.ok) return r;
    return ok(
      parseEntries(r.value, entry, [], (id) => ({
        rawId: id,
        name: platformName(id),
        hints: [{ scheme: 'coinpaprika', slug: id }],
      })),
    );
  },
};
