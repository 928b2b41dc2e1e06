/**
 * The one provider registry. Specs and harness adapters refer to providers by slug only, so a
 * provider can never be labelled two ways (the reference shipped `dune` in the harness and
 * `sim-dune` in the spec).
 */
export interface ProviderInfo {
  readonly slug: string;
  readonly name: string;
  readonly website: string;
  /** Environment variable holding the API key, when the provider needs or accepts one. */
  readonly apiKeyEnv?: string;
  /** True when the provider's endpoints refuse requests without a key. */
  readonly keyRequired: boolean;
  /**
   * Chart color (hex), fixed per provider so a provider keeps its color on every chart, range and
   * filter; the ten are distinct, Tableau-10-like hues readable on light and dark backgrounds.
   */
  readonly color: string;
}

const list = [
  {
    slug: 'geckoterminal',
    name: 'GeckoTerminal',
    website: 'https://www.geckoterminal.com',
    keyRequired: false,
    color: '#4e79a7',
  },
  {
    slug: 'codex',
    name: 'Codex',
    website: 'https://www.codex.io',
    apiKeyEnv: 'CODEX_API_KEY',
    keyRequired: true,
    color: '#f28e2b',
  },
  {
    slug: 'mobula',
    name: 'Mobula',
    website: 'https://mobula.io',
    apiKeyEnv: 'MOBULA_API_KEY',
    keyRequired: true,
    color: '#e15759',
  },
  {
    slug: 'coinpaprika',
    name: 'CoinPaprika',
    website: 'https://coinpaprika.com',
    keyRequired: false,
    color: '#76b7b2',
  },
  {
    slug: 'covalent',
    name: 'Covalent',
    website: 'https://goldrush.dev',
    apiKeyEnv: 'COVALENT_API_KEY',
    keyRequired: true,
    color: '#59a14f',
  },
  {
    slug: 'coinstats',
    name: 'CoinStats',
    website: 'https://coinstats.app',
    apiKeyEnv: 'COINSTATS_API_KEY',
    keyRequired: true,
    color: '#edc948',
  },
  {
    slug: 'sim-dune',
    name: 'Sim by Dune',
    website: 'https://sim.dune.com',
    apiKeyEnv: 'SIM_DUNE_API_KEY',
    keyRequired: false,
    color: '#b07aa1',
  },
  {
    slug: 'coingecko',
    name: 'CoinGecko',
    website: 'https://www.coingecko.com',
    keyRequired: false,
    color: '#ff9da7',
  },
  {
    slug: 'bitquery',
    name: 'Bitquery',
    website: 'https://bitquery.io',
    apiKeyEnv: 'BITQUERY_API_KEY',
    keyRequired: true,
    color: '#9c755f',
  },
  {
    slug: 'moralis',
    name: 'Moralis',
    website: 'https://moralis.com',
    apiKeyEnv: 'MORALIS_API_KEY',
    keyRequired: true,
    color: '#bab0ac',
  },
] as const satisfies readonly ProviderInfo[];

export type ProviderSlug = (typeof list)[number]['slug'];

export const PROVIDERS: ReadonlyMap<string, ProviderInfo> = new Map(list.map((p) => [p.slug, p]));

export function providerName(slug: string): string {
  return PROVIDERS.get(slug)?.name ?? slug;
}

/** A slug outside the registry (never published) still gets a neutral color rather than none. */
export function providerColor(slug: string): string {
  return PROVIDERS.get(slug)?.color ?? '#888888';
}
