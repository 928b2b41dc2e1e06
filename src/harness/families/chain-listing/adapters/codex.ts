import { z } from 'zod';
import { type AdapterContext, postGraphql } from '../../../context.ts';
import { ok, type Result } from '../../../types.ts';
import { codexApi } from '../../trade-capture/adapters/codex.ts';
import type { Listing, NetworkAdapter } from './contract.ts';
import { parseEntries } from './entries.ts';

const QUERY = 'query GetNetworks { getNetworks { id name networkShortName } }';
const data = z.object({ getNetworks: z.array(z.unknown()) });
const entry = z.object({ id: z.number().int(), name: z.string(), networkShortName: z.string().nullish() });

/**
 * GraphQL getNetworks; the raw key goes in Authorization (no Bearer). Codex network ids are EVM chain
 * ids, except for non-EVM networks (Solana is 1399811149), which the reviewed table maps first.
 */
export const codexNetworks: NetworkAdapter = {
  provider: 'codex',
  async list(ctx: AdapterContext): Promise<Result<Listing>> {
    const r = await postGraphql(ctx, codexApi(ctx), QUERY, {}, data, 'codex getNetworks');
    if (!r.ok) return r;
    return ok(
      parseEntries(r.value.getNetworks, entry, ['id'], (n) => ({
        rawId: String(n.id),
        name: n.name,
        hints: [{ scheme: 'codex', slug: String(n.id) }, { chainId: n.id }],
      })),
    );
  },
};
