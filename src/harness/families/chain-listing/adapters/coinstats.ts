import { z } from 'zod';
import { type AdapterContext, getJson, joinUrl } from '../../../context.ts';
import { ok, type Result } from '../../../types.ts';
import type { Listing, NetworkAdapter } from './contract.ts';
import { parseEntries } from './entries.ts';

const body = z.array(z.unknown());
const entry = z.object({
  connectionId: z.string().optional(),
  name: z.string(),
  chain: z.string().min(1),
  icon: z.string().nullish(),
});

/**
 * GET /wallet/blockchains with X-API-KEY. Several wallet connections share one chain, so the chain is
 * `chain` (through the table), not `connectionId` (which would count connections, not networks).
 */
export const coinstatsNetworks: NetworkAdapter = {
  provider: 'coinstats',
  async list(ctx: AdapterContext): Promise<Result<Listing>> {
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
    return ok(
      parseEntries(r.value, entry, ['chain'], (c) => ({
        rawId: c.chain,
        name: c.name,
        hints: [{ scheme: 'coinstats', slug: c.chain }],
      })),
    );
  },
};
