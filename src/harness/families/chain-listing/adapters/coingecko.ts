import { z } from 'zod';
import { type AdapterContext, getJson, joinUrl } from '../../../context.ts';
import { ok, type Result } from '../../../types.ts';
import type { Listing, NetworkAdapter } from './contract.ts';
import { parseEntries } from './entries.ts';

const body = z.array(z.unknown());
const entry = z.object({
  id: z.string().min(1),
  chain_identifier: z.number().int().nullish(),
  name: z.string(),
});

/**
 * GET /api/v3/asset_platforms. `chain_identifier` is the EVM chain id (two platform ids with the same
 * one are one network); it is null for non-EVM platforms, whose platform id goes through the table.
 */
export const coingeckoNetworks: NetworkAdapter = {
  provider: 'coingecko',
  async list(ctx: AdapterContext): Promise<Result<Listing>> {
    const r = await getJson(
      ctx,
      {
        url: joinUrl(ctx.provider.baseUrl, '/api/v3/asset_platforms'),
        headers: { 'user-agent': 'Citebench/0.1 (+https://github.com/citebench/citebench)' },
      },
      body,
      'coingecko asset_platforms',
    );
    if (!r.ok) return r;
    return ok(
      parseEntries(r.value, entry, ['id'], (p) => ({
        rawId: p.id,
        name: p.name,
        // The listing's own chain id first; the table only where it gives none.
        hints: [
          ...(typeof p.chain_identifier === 'number' ? [{ chainId: p.chain_identifier }] : []),
          { scheme: 'coingecko', slug: p.id },
        ],
      })),
    );
  },
};
