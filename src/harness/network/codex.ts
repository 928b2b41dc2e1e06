import { z } from 'zod';
import { type AdapterContext, joinUrl, postGraphql } from '../context.ts';
import { ok, type Result } from '../types.ts';
import type { ListedNetwork, NetworkAdapter } from './contract.ts';

const QUERY = 'query GetNetworks { getNetworks { id name networkShortName } }';
const data = z.object({
  getNetworks: z.array(
    z.object({ id: z.number().int(), name: z.string(), networkShortName: z.string().nullish() }),
  ),
});

/** GraphQL getNetworks; the raw key goes in Authorization (no Bearer). Key = networkId. */
export const codexNetworks: NetworkAdapter = {
  provider: 'codex',
  async list(ctx: AdapterContext): Promise<Result<ListedNetwork[]>> {
    const r = await postGraphql(
      ctx,
      joinUrl(ctx.provider.baseUrl, '/graphql'),
      { authorization: ctx.provider.apiKey ?? '' },
      QUERY,
      {},
      data,
      'codex getNetworks',
    );
    if (!r.ok) return r;
    return ok(r.value.getNetworks.map((n) => ({ key: String(n.id), name: n.name, testnet: false })));
  },
};
