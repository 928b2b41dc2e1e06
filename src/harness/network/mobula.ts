import { z } from 'zod';
import type { ChainHint } from '../chains/resolve.ts';
import { type AdapterContext, getJson, joinUrl } from '../context.ts';
import { ok, type Result } from '../types.ts';
import type { Listing, NetworkAdapter } from './contract.ts';
import { parseEntries } from './entries.ts';

const body = z.object({ data: z.array(z.unknown()) });
const entry = z.object({
  name: z.string(),
  chainId: z.union([z.string().min(1), z.number()]),
  evmChainId: z.number().int().nullish(),
  testnet: z.boolean().nullish(),
});

/**
 * Mobula writes one chain as `1`, `evm:1` or with `evmChainId: 1`, and non-EVM chains as `solana`,
 * `solana:solana` or `stellar:stellar`: names, not CAIP-2 references, so those go through the table
 * (and stay unmapped when it lacks them) while EVM forms and real CAIP-2 ids resolve directly.
 */
export function mobulaHints(chainId: string | number, evmChainId?: number | null): ChainHint[] {
  const hints: ChainHint[] = typeof evmChainId === 'number' ? [{ chainId: evmChainId }] : [];
  const s = String(chainId).trim().toLowerCase();
  const [ns, ref] = s.split(':');
  // Bare `solana` and the doubled `solana:solana` are one Mobula name.
  const slug = ref === undefined || ref === ns ? `${ns}:${ns}` : s;
  hints.push({ scheme: 'mobula', slug });
  if (ref !== undefined && ref !== ns) hints.push({ chainId: s });
  else if (/^(0x[0-9a-f]+|\d+)$/.test(s)) hints.push({ chainId: s });
  return hints;
}

/** GET /api/1/blockchains with the raw key in Authorization; `testnet` is the provider flag. */
export const mobulaNetworks: NetworkAdapter = {
  provider: 'mobula',
  async list(ctx: AdapterContext): Promise<Result<Listing>> {
    const r = await getJson(
      ctx,
      {
        url: joinUrl(ctx.provider.baseUrl, '/api/1/blockchains'),
        headers: { authorization: ctx.provider.apiKey ?? '' },
      },
      body,
      'mobula blockchains',
    );
    if (!r.ok) return r;
    return ok(
      parseEntries(r.value.data, entry, ['chainId'], (c) => ({
        rawId: String(c.chainId),
        name: c.name,
        hints: mobulaHints(c.chainId, c.evmChainId),
        testnet: c.testnet === true,
      })),
    );
  },
};
