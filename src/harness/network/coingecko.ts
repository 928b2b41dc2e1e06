import { z } from 'zod';
import { type AdapterContext, getJson, joinUrl } from '../context.ts';
import { ok, type Result } from '../types.ts';
import type { ListedNetwork, NetworkAdapter } from './contract.ts';

const body = z.array(
  z.object({
    id: z.string().min(1),
    chain_identifier: z.number().int().nullable().optional(),
    name: z.string(),
  }),
);

/** GET /api/v3/asset_platforms; key = platform id (chain_identifier is null for non-EVM platforms). */
export const coingeckoNetworks: NetworkAdapter = {
  provider: 'coingecko',
  async list(ctx: AdapterContext): Promise<Result<ListedNetwork[]>> {
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
    return ok(r.value.map((p) => ({ key: p.id, name: p.name, testnet: false })));
  },
};
