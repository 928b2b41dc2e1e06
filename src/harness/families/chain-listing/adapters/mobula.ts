import { z } from 'zod';
import type { ChainHint } from '../../../chains/resolve.ts';
import { type AdapterContext, getJson, joinUrl } from '../../../context.ts';
import { ok, type Result } from '../../../types.ts';
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
 * Mobula writes one chain as `1`, `evm:1` or with `evmChainId: 1`, non-EVM chains as names (`solana`,
 * `solana:solana`, `stellar:stellar`) or as real CAIP-2 ids. The raw id goes out twice, untouched: as
 * a Mobula slug for the reviewed table, then as a chain id for core/caip2.ts (EVM forms, real CAIP-2
 * ids with their case-sensitive references; a doubled name is not an id), so no parsing happens here.
 */
export function mobulaHints(chainId: string | number, evmChainId?: number | null): ChainHint[] {
  return [
    ...(typeof evmChainId === 'number' ? [{ chainId: evmChainId }] : []),
    { scheme: 'mobula', slug: String(chainId) },
    { chainId },
  ];
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
