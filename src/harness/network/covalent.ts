import { z } from 'zod';
import { type AdapterContext, getJson, joinUrl } from '../context.ts';
import { fail, ok, type Result } from '../types.ts';
import type { ListedNetwork, NetworkAdapter } from './contract.ts';

const body = z.object({
  data: z
    .object({
      items: z.array(
        z.object({
          name: z.string(),
          chain_id: z.union([z.string().min(1), z.number()]),
          is_testnet: z.boolean(),
          label: z.string().nullish(),
        }),
      ),
    })
    .nullable(),
  error: z.boolean().optional(),
  error_message: z.string().nullish(),
});

/** GET /v1/chains/ with a Bearer key; `is_testnet` entries dropped; key = chain_id (a numeric string). */
export const covalentNetworks: NetworkAdapter = {
  provider: 'covalent',
  async list(ctx: AdapterContext): Promise<Result<ListedNetwork[]>> {
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
      r.value.data.items.map((c) => ({
        key: String(c.chain_id),
        name: c.label?.trim() ? c.label : c.name,
        testnet: c.is_testnet,
      })),
    );
  },
};
