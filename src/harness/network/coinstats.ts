import { z } from 'zod';
import { type AdapterContext, getJson, joinUrl } from '../context.ts';
import { ok, type Result } from '../types.ts';
import type { ListedNetwork, NetworkAdapter } from './contract.ts';

const body = z.array(
  z.object({
    connectionId: z.string().optional(),
    name: z.string(),
    chain: z.string().min(1),
    icon: z.string().nullish(),
  }),
);

/**
 * GET /wallet/blockchains with X-API-KEY. Several wallet connections share one chain, so the key is
 * `chain`, not `connectionId` (which would count connections, not networks).
 */
export const coinstatsNetworks: NetworkAdapter = {
  provider: 'coinstats',
  async list(ctx: AdapterContext): Promise<Result<ListedNetwork[]>> {
    const r = await getJson(
      ctx,
      {
        url: joinUrl(ctx.provider.baseUrl, '/wallet/blockchains'),
        headers: { 'x-api-key': ctx.provider.apiKey ?? '' },
      },
      body,
      'coinstats blockchains',
    );
    if (!r.ok) return r;
    return ok(r.value.map((c) => ({ key: c.chain, name: c.name, testnet: false })));
  },
};
