import { intBetween, rng } from './prng.ts';
import { providerProfile } from './profiles.ts';

/**
 * One chain of the simulated universe that every provider's listing draws from, with the id each
 * provider really uses for it (GeckoTerminal network id, CoinGecko platform id, CoinPaprika platform,
 * CoinStats chain, Mobula's non-EVM chainId), so the harness's CAIP-2 mapping runs on real ids.
 */
interface Chain {
  readonly name: string;
  readonly symbol: string;
  readonly evmId: number | null;
  readonly gt: string;
  readonly cg: string;
  readonly cp: string;
  readonly cs: string;
  /** Mobula's chainId for non-EVM chains (`solana:solana`); EVM chains use the chain id. */
  readonly mobula: string;
  /** Codex network id: the chain id, or Codex's own id for a non-EVM network; null when Codex lacks it. */
  readonly codex: number | null;
}

type RealRow = [
  name: string,
  symbol: string,
  evmId: number | null,
  gt: string,
  cg: string,
  cp: string,
  cs: string,
  mobula?: string,
];

// Ids as the providers list them (see research/providers.md §2 and test/fixtures/providers/).
const REAL: ReadonlyArray<RealRow> = [
  ['Ethereum', 'eth', 1, 'eth', 'ethereum', 'eth-ethereum', 'ethereum'],
  ['BNB Chain', 'bnb', 56, 'bsc', 'binance-smart-chain', 'bnb-binance-coin', 'binance_smart'],
  ['Solana', 'sol', null, 'solana', 'solana', 'sol-solana', 'solana', 'solana:solana'],
  ['Base', 'base', 8453, 'base', 'base', 'base-base', 'base'],
  ['Polygon', 'matic', 137, 'polygon_pos', 'polygon-pos', 'matic-polygon', 'polygon-pos'],
  ['Arbitrum', 'arb', 42161, 'arbitrum', 'arbitrum-one', 'arb-arbitrum', 'arbitrum'],
  ['Optimism', 'op', 10, 'optimism', 'optimistic-ethereum', 'op-optimism', 'optimism'],
  ['Avalanche', 'avax', 43114, 'avax', 'avalanche', 'avax-avalanche', 'avalanche'],
  ['Stellar', 'xlm', null, 'stellar', 'stellar', 'xlm-stellar', 'stellar', 'stellar:stellar'],
  ['Tron', 'trx', null, 'tron', 'tron', 'trx-tron', 'tron', 'tron:tron'],
  ['Bitcoin', 'btc', null, 'bitcoin', 'bitcoin', 'btc-bitcoin', 'bitcoin', 'bitcoin:bitcoin'],
  ['Fantom', 'ftm', 250, 'ftm', 'fantom', 'ftm-fantom', 'fantom'],
  ['Linea', 'linea', 59144, 'linea', 'linea', 'linea-linea', 'linea'],
  ['zkSync Era', 'zk', 324, 'zksync', 'zksync', 'zk-zksync', 'zksync'],
  ['Scroll', 'scr', 534352, 'scroll', 'scroll', 'scr-scroll', 'scroll'],
  ['Blast', 'blast', 81457, 'blast', 'blast', 'blast-blast', 'blast'],
  ['Mantle', 'mnt', 5000, 'mantle', 'mantle', 'mnt-mantle', 'mantle'],
  ['Gnosis', 'gno', 100, 'xdai', 'xdai', 'gno-gnosis', 'gnosis'],
  ['Celo', 'celo', 42220, 'celo', 'celo', 'celo-celo', 'celo'],
  ['Cronos', 'cro', 25, 'cro', 'cronos', 'cro-cronos', 'cronos'],
  ['Sui', 'sui', null, 'sui-network', 'sui', 'sui-sui', 'sui', 'sui:sui'],
  ['Aptos', 'apt', null, 'aptos', 'aptos', 'apt-aptos', 'aptos', 'aptos:aptos'],
  ['TON', 'ton', null, 'ton', 'the-open-network', 'ton-toncoin', 'ton', 'ton:ton'],
  ['NEAR', 'near', null, 'near', 'near-protocol', 'near-near-protocol', 'near', 'near:near'],
  ['Cosmos Hub', 'atom', null, 'cosmos', 'cosmos', 'atom-cosmos', 'cosmos', 'cosmos:cosmos'],
  ['Osmosis', 'osmo', null, 'osmosis', 'osmosis', 'osmo-osmosis', 'osmosis', 'osmosis:osmosis'],
  ['Sei', 'sei', null, 'sei-network', 'sei-network', 'sei-sei', 'sei', 'sei:sei'],
  ['Moonbeam', 'glmr', 1284, 'glmr', 'moonbeam', 'glmr-moonbeam', 'moonbeam'],
  ['Kava', 'kava', 2222, 'kava', 'kava', 'kava-kava', 'kava'],
  ['Metis', 'metis', 1088, 'metis', 'metis-andromeda', 'metis-metis-token', 'metis'],
  ['Aurora', 'aurora', 1313161554, 'aurora', 'aurora', 'aurora-aurora', 'aurora'],
];

/** Codex's own network id for Solana (its EVM networks use the chain id; other non-EVM ones are left out). */
const CODEX_SOLANA = 1399811149;

/**
 * Invented EVM chains get ids from here: a range no chain in viem's list uses (checked by
 * test/unit/chain-rules.test.ts), so the testnet detector's chain metadata never touches them.
 */
export const SIM_EVM_ID_BASE = 424_200_000;

function universe(seed: number): Chain[] {
  const r = rng(seed ^ 0x5eed);
  const out: Chain[] = REAL.map(([name, symbol, evmId, gt, cg, cp, cs, mobula]) => ({
    name,
    symbol,
    evmId,
    gt,
    cg,
    cp,
    cs,
    mobula: mobula ?? String(evmId),
    codex: evmId ?? (cg === 'solana' ? CODEX_SOLANA : null),
  }));
  for (let k = 1; out.length < 520; k++) {
    const slug = `simulated-chain-${k}`;
    const evm = r() < 0.7;
    out.push({
      name: `Simulated chain ${k}`,
      symbol: `sc${k}`,
      evmId: evm ? SIM_EVM_ID_BASE + k : null,
      gt: slug.replace(/-/g, '_'),
      cg: slug,
      cp: `sc${k}-${slug}`,
      cs: slug.replace(/-/g, '_'),
      mobula: `${slug}:${slug}`,
      codex: evm ? SIM_EVM_ID_BASE + k : null,
    });
  }
  return out;
}

/** A provider-specific, seed-stable selection of n chains (the big real chains always first). */
function pick(
  all: readonly Chain[],
  seed: number,
  salt: number,
  n: number,
  filter?: (c: Chain) => boolean,
): Chain[] {
  const pool = filter ? all.filter(filter) : [...all];
  const head = pool.slice(0, 8);
  const tail = pool.slice(8);
  const r = rng(seed ^ salt);
  for (let i = tail.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [tail[i], tail[j]] = [tail[j]!, tail[i]!];
  }
  return [...head, ...tail].slice(0, n);
}

/** Inserts copies of some entries at seed-stable positions (providers do list things twice). */
function withDuplicates<T>(list: readonly T[], seed: number, copies: number): T[] {
  const r = rng(seed);
  const out = [...list];
  for (let i = 0; i < copies; i++)
    out.splice(intBetween(r, 1, out.length), 0, list[intBetween(r, 0, list.length - 1)]!);
  return out;
}

export interface SimListings {
  readonly geckoterminal: ReadonlyArray<{ id: string; name: string; platform: string | null }>;
  readonly codex: ReadonlyArray<{ id: number; name: string; networkShortName: string }>;
  readonly mobula: ReadonlyArray<Record<string, unknown>>;
  readonly coinpaprika: readonly string[];
  readonly coingecko: ReadonlyArray<Record<string, unknown>>;
  readonly covalent: ReadonlyArray<Record<string, unknown>>;
  readonly coinstats: ReadonlyArray<Record<string, unknown>>;
  readonly simDune: ReadonlyArray<Record<string, unknown>>;
  /** The true count per provider under the counting rule (mainnets, unique keys). */
  readonly expected: Readonly<Record<string, number>>;
}

/** A testnet stand-in for the flagged testnet entries some listings carry. */
function testChain(name: string, slug: string, evmId: number): Chain {
  return {
    name,
    symbol: 'tst',
    evmId,
    gt: slug,
    cg: slug,
    cp: slug,
    cs: slug,
    mobula: String(evmId),
    codex: evmId,
  };
}

/**
 * Every listing the simulator serves, generated from the seed with testnets (flagged and, as in the
 * real listings, unflagged), duplicates, alias ids and one invalid entry mixed in.
 */
export function buildListings(seed: number): SimListings {
  const all = universe(seed);
  const r = rng(seed ^ 0xbeef);
  const isEvm = (c: Chain) => c.evmId !== null;
  // Every listing's size is drawn from the seed by one rule for all providers (src/sim/profiles.ts).
  const size = (slug: string) => providerProfile(seed, slug).listingSize;

  const gtN = size('geckoterminal');
  const gt = pick(all, seed, 1, gtN).map((c, i) => ({
    id: c.gt,
    name: c.name,
    platform: i < 8 || rng(seed ^ (i * 31))() > 0.15 ? c.cg : null,
  }));
  // GeckoTerminal lists testnets with no flag (its real listing has monad-testnet), some named only
  // by the testnet's own name (Berachain's Artio, Polygon zkEVM's Cardona): no chain id, no word "testnet".
  gt.splice(5, 0, { id: 'monad-testnet', name: 'Monad Testnet', platform: null });
  gt.splice(11, 0, { id: 'berachain-artio', name: 'Berachain Artio', platform: null });
  gt.splice(17, 0, { id: 'polygon-zkevm-cardona', name: 'Polygon zkEVM Cardona', platform: null });

  const cxN = size('codex');
  const cx = pick(all, seed, 2, cxN, (c) => c.codex !== null).map((c) => ({
    id: c.codex ?? 0,
    name: c.name,
    networkShortName: c.symbol,
  }));
  // Codex lists Sepolia with no flag; only the chain id says it is a testnet.
  cx.splice(7, 0, { id: 11155111, name: 'Sepolia', networkShortName: 'sepolia' });

  const mbN = size('mobula');
  const mbMain = pick(all, seed, 3, mbN).map((c, i) => mobulaEntry(c, i % 2 === 0, false));
  const mbTest = Array.from({ length: 11 }, (_, i) =>
    mobulaEntry(testChain(`Testnet ${i + 1}`, `testnet${i}`, 11_155_111 + i), true, true),
  );
  // The same chain in its other id form, once EVM (`1` vs `evm:1`) and once not (`solana` vs `solana:solana`).
  const mbDup = [
    { ...mobulaEntry(all[0]!, false, false), name: 'Ethereum Mainnet' },
    { ...mobulaEntry(all[2]!, false, false), chainId: 'solana' },
  ];
  // Mobula's Sepolia without its testnet flag (the case), and Holesky with only a name.
  const { testnet: _flag, ...sepolia } = mobulaEntry(
    testChain('Ethereum Sepolia', 'sepolia', 11155111),
    true,
    false,
  );
  const holesky = {
    ...mobulaEntry(testChain('Holesky', 'holesky', 424_199_999), false, false),
    testnet: null,
  };
  const mobula = [...mbMain, ...mbTest, ...mbDup, sepolia, holesky];
  interleave(mobula, seed ^ 33);

  const cpN = size('coinpaprika');
  const cp = pick(all, seed, 4, cpN).map((c) => c.cp);

  const cgN = size('coingecko');
  const cg: Array<Record<string, unknown>> = pick(all, seed, 5, cgN).map((c) => ({
    id: c.cg,
    chain_identifier: c.evmId,
    name: c.name,
    shortname: c.symbol.toUpperCase(),
    native_coin_id: c.cg,
    image: { thumb: null, small: null, large: null },
  }));
  cg.splice(
    6,
    0,
    // Unflagged testnet, a second platform id for an EVM chain already listed (same chain_identifier),
    // and one entry with a null id: dropped on its own, the rest of the listing still counts.
    { id: 'sui-testnet', chain_identifier: null, name: 'Sui Testnet', shortname: '', native_coin_id: 'sui' },
    {
      id: 'binance-smart-chain-bep20',
      chain_identifier: 56,
      name: 'BNB Smart Chain (BEP20)',
      shortname: 'BSC',
    },
    { id: null, chain_identifier: null, name: 'Unlisted platform', shortname: '' },
  );

  const cvN = size('covalent');
  const cvMain = pick(all, seed, 6, cvN, isEvm).map((c) => covalentEntry(c, false));
  const cvTest = Array.from({ length: intBetween(r, 26, 30) }, (_, i) =>
    covalentEntry(testChain(`Testnet ${i + 1}`, `testnet${i}`, 10_000_000 + i), true),
  );
  const covalent = [...cvMain, ...cvTest];
  interleave(covalent, seed ^ 66);

  const csN = size('coinstats');
  const csChains = pick(all, seed, 7, csN);
  const coinstats: Array<Record<string, unknown>> = csChains.map((c) => ({
    connectionId: c.cs.replace(/[-_]/g, ''),
    name: c.name,
    icon: `https://static.coinstats.app/portfolio_images/${c.cs}.png`,
    chain: c.cs,
  }));
  // Several wallet connections share one chain (MetaMask, Ledger… on Ethereum).
  for (let i = 0; i < 12; i++) {
    const c = csChains[i % 6]!;
    coinstats.push({
      connectionId: `${['metamask', 'ledger', 'trust'][i % 3]}-${c.symbol}-${i}`,
      name: `${c.name} (${['MetaMask', 'Ledger', 'Trust'][i % 3]})`,
      icon: null,
      chain: c.cs,
    });
  }
  interleave(coinstats, seed ^ 77);

  const sdN = size('sim-dune');
  const sdMain = pick(all, seed, 8, sdN, isEvm).map((c, i) =>
    simEntry(c, i % 3 === 0 ? ['mainnet'] : ['default', 'mainnet']),
  );
  const sdTest = Array.from({ length: 8 }, (_, i) =>
    simEntry(testChain(`testnet${i}`, `testnet${i}`, 20_000_000 + i), i % 2 ? ['testnet'] : []),
  );
  const simDune = [...sdMain, ...sdTest];
  interleave(simDune, seed ^ 88);

  return {
    geckoterminal: withDuplicates(gt, seed ^ 1, 3),
    codex: withDuplicates(cx, seed ^ 2, 2),
    mobula,
    coinpaprika: withDuplicates(cp, seed ^ 4, 3),
    coingecko: withDuplicates(cg, seed ^ 5, 2),
    covalent: withDuplicates(covalent, seed ^ 6, 1),
    coinstats,
    simDune: withDuplicates(simDune, seed ^ 8, 1),
    // Each pick is distinct chains with distinct ids; testnets, duplicates, aliases and the invalid
    // entry are extras, so the true count is the number picked.
    expected: {
      geckoterminal: gtN,
      codex: cxN,
      mobula: mbN,
      coinpaprika: cpN,
      coingecko: cgN,
      covalent: cvN,
      coinstats: csN,
      'sim-dune': sdN,
    },
  };
}

function interleave<T>(list: T[], seed: number): void {
  const r = rng(seed);
  for (let i = list.length - 1; i > 8; i--) {
    const j = 8 + Math.floor(r() * (i - 7));
    [list[i], list[j]] = [list[j]!, list[i]!];
  }
}

function mobulaEntry(c: Chain, prefixed: boolean, testnet: boolean): Record<string, unknown> {
  const chainId = c.evmId !== null ? (prefixed ? `evm:${c.evmId}` : String(c.evmId)) : c.mobula;
  return {
    name: testnet ? `${c.name} Testnet` : c.name,
    shortName: c.symbol,
    chainId,
    ...(c.evmId !== null && prefixed ? { evmChainId: c.evmId } : {}),
    testnet,
    explorer: `https://explorer.${c.cg}.example`,
    color: '#627EEA',
    logo: `https://metacore.mobula.io/${c.cg}.png`,
    routers: [],
    tokens: [],
    supportedProtocols: [],
  };
}

function covalentEntry(c: Chain, testnet: boolean): Record<string, unknown> {
  return {
    name: `${c.cg}-${testnet ? 'testnet' : 'mainnet'}`,
    chain_id: String(c.evmId),
    is_testnet: testnet,
    db_schema_name: `chain_${c.cg.replace(/-/g, '_')}`,
    label: testnet ? `${c.name} Testnet` : `${c.name} Mainnet`,
    category_label: c.name,
    logo_url: `https://www.datocms-assets.com/${c.cg}.svg`,
    is_appchain: false,
    appchain_of: null,
  };
}

function simEntry(c: Chain, tags: string[]): Record<string, unknown> {
  const s = { supported: true };
  return {
    name: c.cg,
    chain_id: c.evmId,
    tags,
    balances: s,
    transactions: s,
    activity: s,
    token_info: s,
    token_holders: { supported: tags.includes('mainnet') },
    collectibles: { supported: tags.includes('mainnet') },
  };
}
