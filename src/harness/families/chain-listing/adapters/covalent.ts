import { z } from 'zod';
import { type AdapterContext, getJson, joinUrl } from '../../../context.ts';
import { fail, ok, type Result } from '../../../types.ts';
import type { Listing, NetworkAdapter } from './contract.ts';
import { parseEntries } from './entries.ts';

const body = z.object({
  data: z.object({ items: z.array(z.unknown()) }).nullable(),
  error: z.boolean().optional(),
  error_message: z.string().nullish(),
});
const entry = z.object({
  name: z.string(),
  chain_id: z.union([z.string().min(1), z.number()]),
  is_testnet: z.boolean(),
  label: z.string().nullish(),
});

/**
 * GET /v1/chains/ with a Bearer key; `is_testnet` is the provider flag. `chain_id` is a numeric
 * string: the EVM chain id for EVM chains, but Covalent's own number for the others (GoldRush's chain
 * pages: solana-mainnet is 1399811149, btc-mainnet 20090103), which are no EVM chains. So the chain
 * name goes through the reviewed table first, and only then is chain_id read as an EVM id.
 */
export const covalentNetworks: NetworkAdapter = {
  provider: 'covalent',
  async list(ctx: AdapterContext): Promise<Result<Listing>> {
    const r = await getJson(
      ctx,
      {
        url: joinUrl(ctx.provider.baseUrl, '/v1/chains/'),
        headers: { authorization: `Bearer ${ctx.provider.apiKey ?? ''}` },
      },
      body,
      'covalent chains',
    );
    if (!r.ok) return r;
    if (r.value.error === true || r.value.data === null) {
      return fail('parse', `covalent: API error: ${r.value.error_message ?? 'no data'}`);
    }
    return ok(
      parseEntries(r.value.data.items, entry, ['chain_id'], (c) => ({
        rawId: String(c.chain_id),
        name: c.label?.trim() ? c.label : c.name,
        hints: [{ scheme: 'covalent', slug: c.name }, { chainId: c.chain_id }],
        testnet: c.is_testnet,
      })),
    );
  },
};
