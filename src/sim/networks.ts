import { intBetween, rng } from './prng.ts';

/** One chain of the simulated universe that every provider's listing draws from. */
interface Chain {
  readonly name: string;
  readonly slug: string;
  readonly symbol: string;
  readonly evmId: number | null;
}

const REAL: ReadonlyArray<[string, string, string, number | null]> = [
  ['Ethereum', 'ethereum', 'eth', 1],
  ['BNB Chain', 'binance-smart-chain', 'bnb', 56],
  ['Solana', 'solana', 'sol', null],
  ['Base', 'base', 'base', 8453],
  ['Polygon', 'polygon-pos', 'matic', 137],
  ['Arbitrum', 'arbitrum-one', 'arb', 42161],
  ['Optimism', 'optimistic-ethereum', 'op', 10],
  ['Avalanche', 'avalanche', 'avax', 43114],
  ['Stellar', 'stellar', 'xlm', null],
  ['Tron', 'tron', 'trx', null],
  ['Fantom', 'fantom', 'ftm', 250],
  ['Linea', 'linea', 'linea', 59144],
  ['zkSync Era', 'zksync', 'zk', 324],
  ['Scroll', 'scroll', 'scr', 534352],
  ['Blast', 'blast', 'blast', 81457],
  ['Mantle', 'mantle', 'mnt', 5000],
  ['Gnosis', 'xdai', 'gno', 100],
  ['Celo', 'celo', 'celo', 42220],
  ['Cronos', 'cronos', 'cro', 25],
  ['Sui', 'sui', 'sui', null],
  ['Aptos', 'aptos', 'apt', null],
  ['TON', 'the-open-network', 'ton', null],
  ['NEAR', 'near-protocol', 'near', null],
  ['Sei', 'sei-network', 'sei', null],
  ['Moonbeam', 'moonbeam', 'glmr', 1284],
  ['Kava', 'kava', 'kava', 2222],
  ['Metis', 'metis-andromeda', 'metis', 1088],
  ['Aurora', 'aurora', 'aurora', 1313161554],
];

const SYL = [
  'zo',
  'ra',
  'ka',
  'vex',
  'lu',
  'mi',
  'tor',
  'en',
  'qua',
  'sel',
  'dri',
  'no',
  'xa',
  'pe',
  'tri',
  'um',
];

function universe(seed: number): Chain[] {
  const r = rng(seed ^ 0x5eed);
  const out: Chain[] = REAL.map(([name, slug, symbol, evmId]) => ({ name, slug, symbol, evmId }));
  const used = new Set(out.map((c) => c.slug));
  for (let k = 0; out.length < 520; k++) {
    const base = SYL[intBetween(r, 0, 15)]! + SYL[intBetween(r, 0, 15)]! + SYL[intBetween(r, 0, 15)]!;
    let slug = base;
    for (let n = 2; used.has(slug); n++) slug = `${base}${n}`;
    used.add(slug);
    const evm = r() < 0.7;
    out.push({
      name: `${slug.charAt(0).toUpperCase()}${slug.slice(1)} ${evm ? 'Chain' : 'Network'}`,
      slug,
      symbol: slug.slice(0, 4),
      evmId: evm ? 100_000 + k * 7 : null,
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

/** Every listing the simulator serves, generated from the seed with testnets and duplicates mixed in. */
export function buildListings(seed: number): SimListings {
  const all = universe(seed);
  const r = rng(seed ^ 0xbeef);
  const isEvm = (c: Chain) => c.evmId !== null;

  const gtN = intBetween(r, 250, 265);
  const gt = pick(all, seed, 1, gtN).map((c, i) => ({
    id: c.slug,
    name: c.name,
    platform: i < 8 || rng(seed ^ (i * 31))() > 0.15 ? c.slug : null,
  }));

  const cxN = intBetween(r, 125, 135);
  const cx = pick(all, seed, 2, cxN).map((c, i) => ({
    id: c.evmId ?? (c.slug === 'solana' ? 1399811149 : 1_000_000_000 + i),
    name: c.name,
    networkShortName: c.symbol,
  }));

  const mbN = intBetween(r, 74, 78);
  const mbMain = pick(all, seed, 3, mbN).map((c, i) => mobulaEntry(c, i % 2 === 0, false));
  const mbTest = Array.from({ length: 11 }, (_, i) =>
    mobulaEntry(
      { name: `Testnet ${i + 1}`, slug: `testnet${i}`, symbol: 'tst', evmId: 11_155_111 + i },
      true,
      true,
    ),
  );
  // The same chain in its other id form, once EVM (`1` vs `evm:1`) and once not (`solana` vs `solana:solana`).
  const mbDup = [
    { ...mobulaEntry(all[0]!, false, false), name: 'Ethereum Mainnet' },
    { ...mobulaEntry(all[2]!, false, false), chainId: 'solana' },
  ];
  const mobula = withDuplicates([...mbMain, ...mbTest, ...mbDup], seed ^ 3, 0);
  interleave(mobula, seed ^ 33);

  const cpN = intBetween(r, 300, 310);
  const cp = pick(all, seed, 4, cpN).map((c) => `${c.symbol}-${c.slug}`);

  const cgN = intBetween(r, 395, 410);
  const cg = pick(all, seed, 5, cgN).map((c) => ({
    id: c.slug,
    chain_identifier: c.evmId,
    name: c.name,
    shortname: c.symbol.toUpperCase(),
    native_coin_id: c.slug,
    image: { thumb: null, small: null, large: null },
  }));

  const cvN = intBetween(r, 78, 84);
  const cvMain = pick(all, seed, 6, cvN, isEvm).map((c) => covalentEntry(c, false));
  const cvTest = Array.from({ length: intBetween(r, 26, 30) }, (_, i) =>
    covalentEntry(
      { name: `Testnet ${i + 1}`, slug: `testnet${i}`, symbol: 't', evmId: 10_000_000 + i },
      true,
    ),
  );
  const covalent = [...cvMain, ...cvTest];
  interleave(covalent, seed ^ 66);

  const csN = intBetween(r, 46, 50);
  const csChains = pick(all, seed, 7, csN);
  const coinstats: Array<Record<string, unknown>> = csChains.map((c) => ({
    connectionId: c.slug.replace(/-/g, ''),
    name: c.name,
    icon: `https://static.coinstats.app/portfolio_images/${c.slug}.png`,
    chain: c.slug.replace(/-/g, '_'),
  }));
  // Several wallet connections share one chain (MetaMask, Ledger… on Ethereum).
  for (let i = 0; i < 12; i++) {
    const c = csChains[i % 6]!;
    coinstats.push({
      connectionId: `${['metamask', 'ledger', 'trust'][i % 3]}-${c.symbol}-${i}`,
      name: `${c.name} (${['MetaMask', 'Ledger', 'Trust'][i % 3]})`,
      icon: null,
      chain: c.slug.replace(/-/g, '_'),
    });
  }
  interleave(coinstats, seed ^ 77);

  const sdN = intBetween(r, 50, 54);
  const sdMain = pick(all, seed, 8, sdN, isEvm).map((c, i) =>
    simEntry(c, i % 3 === 0 ? ['mainnet'] : ['default', 'mainnet']),
  );
  const sdTest = Array.from({ length: 8 }, (_, i) =>
    simEntry(
      { name: `testnet${i}`, slug: `testnet${i}`, symbol: 't', evmId: 20_000_000 + i },
      i % 2 ? ['testnet'] : [],
    ),
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
  const chainId = c.evmId !== null ? (prefixed ? `evm:${c.evmId}` : String(c.evmId)) : `${c.slug}:${c.slug}`;
  return {
    name: testnet ? `${c.name} Testnet` : c.name,
    shortName: c.symbol,
    chainId,
    ...(c.evmId !== null && prefixed ? { evmChainId: c.evmId } : {}),
    testnet,
    explorer: `https://explorer.${c.slug}.example`,
    color: '#627EEA',
    logo: `https://metacore.mobula.io/${c.slug}.png`,
    routers: [],
    tokens: [],
    supportedProtocols: [],
  };
}

function covalentEntry(c: Chain, testnet: boolean): Record<string, unknown> {
  return {
    name: `${c.slug}-${testnet ? 'testnet' : 'mainnet'}`,
    chain_id: String(c.evmId),
    is_testnet: testnet,
    db_schema_name: `chain_${c.slug.replace(/-/g, '_')}`,
    label: testnet ? `${c.name} Testnet` : `${c.name} Mainnet`,
    category_label: c.name,
    logo_url: `https://www.datocms-assets.com/${c.slug}.svg`,
    is_appchain: false,
    appchain_of: null,
  };
}

function simEntry(c: Chain, tags: string[]): Record<string, unknown> {
  const s = { supported: true };
  return {
    name: c.slug,
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
