import { z } from 'zod';
import { type AdapterContext, getJson, joinUrl } from '../context.ts';
import { ok, type Result } from '../types.ts';
import type { ListedNetwork, NetworkAdapter } from './contract.ts';

const body = z.object({
  data: z.array(
    z.object({
      name: z.string(),
      chainId: z.union([z.string().min(1), z.number()]),
      evmChainId: z.number().int().nullish(),
      testnet: z.boolean().nullish(),
    }),
  ),
});

/**
 * Mobula lists the same chain as `1`, `evm:1` or with `evmChainId: 1`, and Solana as `solana` or
 * `solana:solana`: all normalize to CAIP-like `namespace:reference`.
 */
export function normalizeMobulaChainId(chainId: string | number, evmChainId?: number | null): string {
  if (typeof evmChainId === 'number') return `evm:${evmChainId}`;
  const s = String(chainId).trim().toLowerCase();
  if (/^\d+$/.test(s)) return `evm:${Number(s)}`;
  const m = /^evm:(\d+)$/.exec(s);
  if (m) return `evm:${Number(m[1])}`;
  if (s.includes(':')) return s;
  return `${s}:${s}`;
}

/** GET /api/1/blockchains with the raw key in Authorization; `testnet: true` entries are dropped. */
export const mobulaNetworks: NetworkAdapter = {
  provider: 'mobula',
  async list(ctx: AdapterContext): Promise<Result<ListedNetwork[]>> {
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
      r.value.data.map((c) => ({
        key: normalizeMobulaChainId(c.chainId, c.evmChainId),
        name: c.name,
        testnet: c.testnet === true,
      })),
    );
  },
};
