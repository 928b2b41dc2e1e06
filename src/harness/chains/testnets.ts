import { evmChainNumber } from '../../core/caip2.ts';
import type { EvmChainTable } from './evm-chains.ts';
import { knownChainByCaip2 } from './known-chains.ts';

/**
 * Why an entry is a testnet, in the order checked. Only some providers flag testnets, and their
 * listings carry unflagged ones (GeckoTerminal monad-testnet, Codex 11155111, CoinGecko sui-testnet,
 * Mobula Sepolia), so every entry goes through all three checks whatever its provider.
 */
export type TestnetReason = 'provider_flag' | 'chain_metadata' | 'name';

/**
 * Testnet words in names and ids. `testnet`/`devnet`/`localnet` match inside words (`monad-testnet`,
 * `testnet3`); the named testnets only as whole words (no letter either side), so a mainnet that
 * merely contains one of the letter runs (`Fujian`, `Nilead`) is not dropped. GeckoTerminal
 * lists testnets by name alone (`berachain-artio`, `polygon-zkevm-cardona`), with no flag and no chain
 * id, so this list is the only thing that catches them. Reviewed list, by chain: Ethereum sepolia,
 * goerli, holesky, hoodi, ropsten, rinkeby, kovan; Avalanche fuji; Polygon amoy, mumbai, zkEVM
 * cardona; BNB chapel; Celo alfajores, baklava; Berachain artio, bartio, bepolia; Tron shasta, nile;
 * Gnosis chiado; Moonbeam moonbase; Taiko hekla; Kaia kairos, baobab; Ronin saigon; Soneium minato;
 * Tezos ghostnet; Polkadot westend, rococo, paseo. test/unit/chain-rules.test.ts checks that no mainnet
 * of the reviewed table, the fixtures or the simulator is caught.
 */
const NAMED_TESTNETS = [
  'sepolia',
  'goerli',
  'holesky',
  'hoodi',
  'ropsten',
  'rinkeby',
  'kovan',
  'fuji',
  'amoy',
  'mumbai',
  'cardona',
  'chapel',
  'alfajores',
  'baklava',
  'artio',
  'bartio',
  'bepolia',
  'shasta',
  'nile',
  'chiado',
  'moonbase',
  'hekla',
  'kairos',
  'baobab',
  'saigon',
  'minato',
  'ghostnet',
  'westend',
  'rococo',
  'paseo',
];

const TESTNET_WORDS = new RegExp(
  `testnet|devnet|localnet|(?<![a-z])(?:${NAMED_TESTNETS.join('|')})(?![a-z])`,
  'i',
);

export function looksLikeTestnet(text: string): boolean {
  return TESTNET_WORDS.test(text);
}

export interface TestnetInput {
  /** The id the entry resolved to (`eip155:11155111`, `unmapped:foo`). */
  readonly chainId: string;
  readonly name: string;
  readonly rawId: string;
  /** The provider's own flag, when its listing has one. */
  readonly providerFlag?: boolean | undefined;
}

/** The shared testnet detector: provider flag, then chain metadata (viem, the reviewed table), then names. */
export function testnetReason(entry: TestnetInput, evm: EvmChainTable): TestnetReason | null {
  if (entry.providerFlag === true) return 'provider_flag';
  const n = evmChainNumber(entry.chainId);
  if (n !== null && evm.get(n)?.testnet === true) return 'chain_metadata';
  if (knownChainByCaip2(entry.chainId)?.testnet) return 'chain_metadata';
  if (looksLikeTestnet(entry.name) || looksLikeTestnet(entry.rawId)) return 'name';
  return null;
}
