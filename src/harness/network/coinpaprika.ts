import { z } from 'zod';
import { type AdapterContext, getJson, joinUrl } from '../context.ts';
import { ok, type Result } from '../types.ts';
import type { ListedNetwork, NetworkAdapter } from './contract.ts';

const body = z.array(z.string().min(1));

/** `eth-ethereum` → `ethereum`, `bnb-binance-coin` → `binance coin`. */
function platformName(id: string): string {
  const i = id.indexOf('-');
  return (i >= 0 ? id.slice(i + 1) : id).replace(/-/g, ' ');
}

/** GET /v1/contracts: a flat array of platform ids. No chain id exists, so unique platform ids count. */
export const coinpaprikaNetworks: NetworkAdapter = {
  provider: 'coinpaprika',
  async list(ctx: AdapterContext): Promise<Result<ListedNetwork[]>> {
    const r = await getJson(
      ctx,
      { url: joinUrl(ctx.provider.baseUrl, '/v1/contracts') },
      body,
      'coinpaprika contracts',
    );
    if (!r.ok) return r;
    return ok(r.value.map((id) => ({ key: id, name: platformName(id), testnet: false })));
  },
};
