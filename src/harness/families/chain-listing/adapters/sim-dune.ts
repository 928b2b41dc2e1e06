import { z } from 'zod';
import { type AdapterContext, getJson, joinUrl } from '../../../context.ts';
import { ok, type Result } from '../../../types.ts';
import type { Listing, NetworkAdapter } from './contract.ts';
import { parseEntries } from './entries.ts';

const body = z.object({ chains: z.array(z.unknown()) });
const entry = z.object({
  name: z.string(),
  chain_id: z.number().int(),
  tags: z.array(z.string()).default([]),
});

/** GET /v1/evm/supported-chains (key optional); a chain not tagged `mainnet` is flagged a testnet. */
export const simDuneNetworks: NetworkAdapter = {
  provider: 'sim-dune',
  async list(ctx: AdapterContext): Promise<Result<Listing>> {
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
      parseEntries(r.value.chains, entry, ['chain_id'], (c) => ({
        rawId: String(c.chain_id),
        name: c.name,
        hints: [{ chainId: c.chain_id }],
        testnet: !c.tags.includes('mainnet'),
      })),
    );
  },
};
