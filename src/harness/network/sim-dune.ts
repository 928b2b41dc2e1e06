import { z } from 'zod';
import { type AdapterContext, getJson, joinUrl } from '../context.ts';
import { ok, type Result } from '../types.ts';
import type { ListedNetwork, NetworkAdapter } from './contract.ts';

const body = z.object({
  chains: z.array(
    z.object({ name: z.string(), chain_id: z.number().int(), tags: z.array(z.string()).default([]) }),
  ),
});

/** GET /v1/evm/supported-chains (key optional); only chains tagged `mainnet` are mainnets. */
export const simDuneNetworks: NetworkAdapter = {
  provider: 'sim-dune',
  async list(ctx: AdapterContext): Promise<Result<ListedNetwork[]>> {
    const key = ctx.provider.apiKey;
    const r = await getJson(
      ctx,
      {
        url: joinUrl(ctx.provider.baseUrl, '/v1/evm/supported-chains'),
        ...(key ? { headers: { 'x-sim-api-key': key } } : {}),
      },
      body,
      'sim supported-chains',
    );
    if (!r.ok) return r;
    return ok(
      r.value.chains.map((c) => ({
        key: String(c.chain_id),
        name: c.name,
        testnet: !c.tags.includes('mainnet'),
      })),
    );
  },
};
