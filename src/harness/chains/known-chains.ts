import { parseCaip2 } from '../../core/caip2.ts';

/**
 * The one reviewed table from provider slugs to CAIP-2 chain ids, for listings that give no chain id
 * (GeckoTerminal, CoinPaprika, CoinStats, CoinGecko's non-EVM platforms) or give one in a private
 * space (Codex's non-EVM network ids, Covalent's non-EVM chain_ids, Mobula's `solana:solana`).
 *
 * How entries are reviewed: a row is added or changed in its own commit that names, for each slug, the
 * provider listing it was read from (the recorded fixtures in test/fixtures/providers/ and
 * research/providers.md §2), and the CAIP-2 reference from the chain's namespace spec
 * (chainagnostic.org namespaces; EVM chains are `eip155:<chain id>`). A slug is never guessed per
 * adapter: one missing here is counted once as `unmapped:<slug>` and shown as unmapped in the audit,
 * which is how new rows are found. Slugs are scoped per provider scheme, so two providers may use
 * the same word for different chains without merging them. test/unit/chain-rules.test.ts checks the table
 * (valid ids, no slug mapped twice).
 */

/** The id spaces slugs come from. GeckoTerminal also carries CoinGecko platform ids. */
export type SlugScheme =
  | 'geckoterminal'
  | 'coingecko'
  | 'coinpaprika'
  | 'coinstats'
  | 'mobula'
  | 'codex'
  | 'covalent';

export interface KnownChain {
  readonly caip2: string;
  readonly name: string;
  /** A testnet the table knows of (non-EVM testnets have no library metadata). */
  readonly testnet?: true;
  /** Other CAIP-2 forms of the same chain (Tron's EVM-style id). */
  readonly aliases?: readonly string[];
  readonly slugs: Readonly<Partial<Record<SlugScheme, readonly string[]>>>;
}

export const SOLANA_MAINNET = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';

export const KNOWN_CHAINS: readonly KnownChain[] = [
  {
    caip2: 'eip155:1',
    name: 'Ethereum',
    slugs: {
      geckoterminal: ['eth'],
      coingecko: ['ethereum'],
      coinpaprika: ['eth-ethereum'],
      coinstats: ['ethereum'],
    },
  },
  {
    caip2: 'eip155:56',
    name: 'BNB Chain',
    slugs: {
      geckoterminal: ['bsc'],
      coingecko: ['binance-smart-chain'],
      coinpaprika: ['bnb-binance-coin'],
      coinstats: ['binance_smart'],
    },
  },
  {
    caip2: SOLANA_MAINNET,
    name: 'Solana',
    slugs: {
      geckoterminal: ['solana'],
      coingecko: ['solana'],
      coinpaprika: ['sol-solana'],
      coinstats: ['solana'],
      mobula: ['solana', 'solana:solana', 'solana:mainnet'],
      // Codex's own network id for Solana (docs.codex.io getNetworks); its EVM ids are chain ids.
      codex: ['1399811149'],
      // Covalent's chain name; its chain_id 1399811149 is no EVM id (goldrush.dev/docs/chains/solana).
      covalent: ['solana-mainnet'],
    },
  },
  {
    caip2: 'eip155:8453',
    name: 'Base',
    slugs: { geckoterminal: ['base'], coingecko: ['base'], coinpaprika: ['base-base'], coinstats: ['base'] },
  },
  {
    caip2: 'eip155:137',
    name: 'Polygon',
    slugs: {
      geckoterminal: ['polygon_pos'],
      coingecko: ['polygon-pos'],
      coinpaprika: ['matic-polygon', 'pol-polygon-ecosystem-token'],
      coinstats: ['polygon-pos', 'polygon'],
    },
  },
  {
    caip2: 'eip155:42161',
    name: 'Arbitrum One',
    slugs: {
      geckoterminal: ['arbitrum'],
      coingecko: ['arbitrum-one'],
      coinpaprika: ['arb-arbitrum'],
      coinstats: ['arbitrum'],
    },
  },
  {
    caip2: 'eip155:10',
    name: 'Optimism',
    slugs: {
      geckoterminal: ['optimism'],
      coingecko: ['optimistic-ethereum'],
      coinpaprika: ['op-optimism'],
      coinstats: ['optimism'],
    },
  },
  {
    caip2: 'eip155:43114',
    name: 'Avalanche C-Chain',
    slugs: {
      geckoterminal: ['avax'],
      coingecko: ['avalanche'],
      coinpaprika: ['avax-avalanche'],
      coinstats: ['avalanche'],
    },
  },
  {
    caip2: 'stellar:pubnet',
    name: 'Stellar',
    slugs: {
      geckoterminal: ['stellar'],
      coingecko: ['stellar'],
      coinpaprika: ['xlm-stellar'],
      coinstats: ['stellar'],
      mobula: ['stellar', 'stellar:stellar', 'stellar:pubnet'],
    },
  },
  {
    // WalletConnect's Tron namespace: the reference is the hex of Tron's chain id 728126428.
    caip2: 'tron:0x2b6653dc',
    name: 'Tron',
    aliases: ['eip155:728126428'],
    slugs: {
      geckoterminal: ['tron'],
      coingecko: ['tron'],
      coinpaprika: ['trx-tron'],
      coinstats: ['tron'],
      mobula: ['tron', 'tron:tron', 'tron:mainnet'],
    },
  },
  {
    caip2: 'bip122:000000000019d6689c085ae165831e93',
    name: 'Bitcoin',
    slugs: {
      geckoterminal: ['bitcoin'],
      coingecko: ['bitcoin'],
      coinpaprika: ['btc-bitcoin'],
      coinstats: ['bitcoin'],
      mobula: ['bitcoin', 'bitcoin:bitcoin', 'btc:btc'],
      // Covalent's chain name; its chain_id 20090103 is no EVM id (GoldRush supported-chains table).
      covalent: ['btc-mainnet'],
    },
  },
  {
    caip2: 'sui:mainnet',
    name: 'Sui',
    slugs: {
      geckoterminal: ['sui-network'],
      coingecko: ['sui'],
      coinpaprika: ['sui-sui'],
      coinstats: ['sui'],
      mobula: ['sui', 'sui:sui', 'sui:mainnet'],
    },
  },
  {
    caip2: 'aptos:mainnet',
    name: 'Aptos',
    slugs: {
      geckoterminal: ['aptos'],
      coingecko: ['aptos'],
      coinpaprika: ['apt-aptos'],
      coinstats: ['aptos'],
      mobula: ['aptos', 'aptos:aptos', 'aptos:mainnet'],
    },
  },
  {
    // TON's global id of the mainnet (TON Connect's CHAIN.MAINNET).
    caip2: 'ton:-239',
    name: 'TON',
    slugs: {
      geckoterminal: ['ton'],
      coingecko: ['the-open-network'],
      coinpaprika: ['ton-toncoin'],
      coinstats: ['ton'],
      mobula: ['ton', 'ton:ton', 'ton:mainnet'],
    },
  },
  {
    caip2: 'near:mainnet',
    name: 'NEAR',
    slugs: {
      geckoterminal: ['near'],
      coingecko: ['near-protocol'],
      coinpaprika: ['near-near-protocol'],
      coinstats: ['near'],
      mobula: ['near', 'near:near', 'near:mainnet'],
    },
  },
  {
    caip2: 'cosmos:cosmoshub-4',
    name: 'Cosmos Hub',
    slugs: {
      geckoterminal: ['cosmos'],
      coingecko: ['cosmos'],
      coinpaprika: ['atom-cosmos'],
      coinstats: ['cosmos'],
      mobula: ['cosmos', 'cosmos:cosmos'],
    },
  },
  {
    caip2: 'cosmos:osmosis-1',
    name: 'Osmosis',
    slugs: {
      geckoterminal: ['osmosis'],
      coingecko: ['osmosis'],
      coinpaprika: ['osmo-osmosis'],
      coinstats: ['osmosis'],
      mobula: ['osmosis', 'osmosis:osmosis'],
    },
  },
  {
    // Sei's Cosmos chain; Sei's EVM (chain id 1329) is a separate row.
    caip2: 'cosmos:pacific-1',
    name: 'Sei',
    slugs: {
      geckoterminal: ['sei-network'],
      coingecko: ['sei-network'],
      coinpaprika: ['sei-sei'],
      coinstats: ['sei'],
      mobula: ['sei', 'sei:sei'],
    },
  },
  { caip2: 'eip155:1329', name: 'Sei EVM', slugs: { geckoterminal: ['sei-evm'], coingecko: ['sei-v2'] } },
  {
    caip2: 'eip155:250',
    name: 'Fantom',
    slugs: {
      geckoterminal: ['ftm'],
      coingecko: ['fantom'],
      coinpaprika: ['ftm-fantom'],
      coinstats: ['fantom'],
    },
  },
  {
    caip2: 'eip155:59144',
    name: 'Linea',
    slugs: {
      geckoterminal: ['linea'],
      coingecko: ['linea'],
      coinpaprika: ['linea-linea'],
      coinstats: ['linea'],
    },
  },
  {
    caip2: 'eip155:324',
    name: 'zkSync Era',
    slugs: {
      geckoterminal: ['zksync'],
      coingecko: ['zksync'],
      coinpaprika: ['zk-zksync'],
      coinstats: ['zksync'],
    },
  },
  {
    caip2: 'eip155:534352',
    name: 'Scroll',
    slugs: {
      geckoterminal: ['scroll'],
      coingecko: ['scroll'],
      coinpaprika: ['scr-scroll'],
      coinstats: ['scroll'],
    },
  },
  {
    caip2: 'eip155:81457',
    name: 'Blast',
    slugs: {
      geckoterminal: ['blast'],
      coingecko: ['blast'],
      coinpaprika: ['blast-blast'],
      coinstats: ['blast'],
    },
  },
  {
    caip2: 'eip155:5000',
    name: 'Mantle',
    slugs: {
      geckoterminal: ['mantle'],
      coingecko: ['mantle'],
      coinpaprika: ['mnt-mantle'],
      coinstats: ['mantle'],
    },
  },
  {
    caip2: 'eip155:100',
    name: 'Gnosis',
    slugs: {
      geckoterminal: ['xdai'],
      coingecko: ['xdai'],
      coinpaprika: ['gno-gnosis'],
      coinstats: ['gnosis'],
    },
  },
  {
    caip2: 'eip155:42220',
    name: 'Celo',
    slugs: { geckoterminal: ['celo'], coingecko: ['celo'], coinpaprika: ['celo-celo'], coinstats: ['celo'] },
  },
  {
    caip2: 'eip155:25',
    name: 'Cronos',
    slugs: {
      geckoterminal: ['cro'],
      coingecko: ['cronos'],
      coinpaprika: ['cro-cronos'],
      coinstats: ['cronos'],
    },
  },
  {
    caip2: 'eip155:1284',
    name: 'Moonbeam',
    slugs: {
      geckoterminal: ['glmr'],
      coingecko: ['moonbeam'],
      coinpaprika: ['glmr-moonbeam'],
      coinstats: ['moonbeam'],
    },
  },
  {
    caip2: 'eip155:2222',
    name: 'Kava EVM',
    slugs: { geckoterminal: ['kava'], coingecko: ['kava'], coinpaprika: ['kava-kava'], coinstats: ['kava'] },
  },
  {
    caip2: 'eip155:1088',
    name: 'Metis',
    slugs: {
      geckoterminal: ['metis'],
      coingecko: ['metis-andromeda'],
      coinpaprika: ['metis-metis-token'],
      coinstats: ['metis'],
    },
  },
  {
    caip2: 'eip155:1313161554',
    name: 'Aurora',
    slugs: {
      geckoterminal: ['aurora'],
      coingecko: ['aurora'],
      coinpaprika: ['aurora-aurora'],
      coinstats: ['aurora'],
    },
  },
  {
    caip2: 'polkadot:91b171bb158e2d3848fa23a9f1c25182',
    name: 'Polkadot',
    slugs: { coingecko: ['polkadot'], coinpaprika: ['dot-polkadot'], coinstats: ['polkadot'] },
  },
  {
    caip2: 'cip34:1-764824073',
    name: 'Cardano',
    slugs: { coingecko: ['cardano'], coinpaprika: ['ada-cardano'], coinstats: ['cardano'] },
  },
  {
    caip2: 'algorand:wGHE2Pwdvd7S12BL5FaOP20EGYesN73k',
    name: 'Algorand',
    slugs: { geckoterminal: ['algorand'], coingecko: ['algorand'], coinpaprika: ['algo-algorand'] },
  },
  {
    caip2: 'hedera:mainnet',
    name: 'Hedera',
    slugs: {
      geckoterminal: ['hedera-hashgraph'],
      coingecko: ['hedera-hashgraph'],
      coinpaprika: ['hbar-hedera-hashgraph'],
    },
  },
  {
    caip2: 'starknet:SN_MAIN',
    name: 'Starknet',
    slugs: { geckoterminal: ['starknet-alpha'], coingecko: ['starknet'], coinpaprika: ['strk-starknet'] },
  },
  // Testnets the listings carry without a flag (issue: GeckoTerminal monad-testnet, CoinGecko sui-testnet).
  {
    caip2: 'eip155:10143',
    name: 'Monad Testnet',
    testnet: true,
    slugs: { geckoterminal: ['monad-testnet'] },
  },
  {
    caip2: 'sui:testnet',
    name: 'Sui Testnet',
    testnet: true,
    slugs: { coingecko: ['sui-testnet'], mobula: ['sui:testnet'] },
  },
  {
    caip2: 'stellar:testnet',
    name: 'Stellar Testnet',
    testnet: true,
    slugs: { mobula: ['stellar:testnet'] },
  },
  {
    caip2: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
    name: 'Solana Devnet',
    testnet: true,
    slugs: { mobula: ['solana:devnet'], geckoterminal: ['solana-devnet'] },
  },
];

/** Slug lookup key: providers differ in case only (`Solana`, `solana`). */
function slugKey(scheme: SlugScheme, slug: string): string {
  return `${scheme}\u0000${slug.trim().toLowerCase()}`;
}

function buildIndexes(rows: readonly KnownChain[]) {
  const bySlug = new Map<string, KnownChain>();
  const byCaip2 = new Map<string, KnownChain>();
  for (const row of rows) {
    for (const id of [row.caip2, ...(row.aliases ?? [])]) {
      if (!parseCaip2(id)) throw new Error(`known-chains: ${id} is not a CAIP-2 id`);
      if (byCaip2.has(id)) throw new Error(`known-chains: ${id} listed twice`);
      byCaip2.set(id, row);
    }
    for (const [scheme, slugs] of Object.entries(row.slugs) as Array<[SlugScheme, readonly string[]]>) {
      for (const slug of slugs) {
        const k = slugKey(scheme, slug);
        const other = bySlug.get(k);
        if (other) throw new Error(`known-chains: ${scheme} ${slug} maps to ${other.caip2} and ${row.caip2}`);
        bySlug.set(k, row);
      }
    }
  }
  return { bySlug, byCaip2 };
}

// Built at import: ~40 rows, and a bad row should stop start-up rather than miscount.
const INDEX = buildIndexes(KNOWN_CHAINS);

export function knownChainBySlug(scheme: SlugScheme, slug: string): KnownChain | undefined {
  return INDEX.bySlug.get(slugKey(scheme, slug));
}

/** The table row for a CAIP-2 id or one of its aliases. */
export function knownChainByCaip2(caip2: string): KnownChain | undefined {
  return INDEX.byCaip2.get(caip2);
}
