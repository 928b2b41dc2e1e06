import { ChainTokenStream } from './chain-stream.ts';
import { ChainTradeIndex } from './chain-trades.ts';
import { KEPT_BLOCKS } from './chains/anvil.ts';
import { demoDex, referenceTokens } from './chains/dex.ts';
import { type ChainFaultProfile, NO_CHAIN_FAULTS } from './profiles.ts';
import { type RowSource, TokenStream, type TradeModel } from './trades.ts';

/** The index of a demo chain's reference-token Swap logs, read from its node at `url`. */
export function demoChainIndex(chain: string, url: string): ChainTradeIndex {
  const dex = demoDex(chain);
  return new ChainTradeIndex({
    chain,
    url,
    pairs: dex.pairs,
    tokens: referenceTokens(chain),
    keptBlocks: KEPT_BLOCKS,
  });
}

/**
 * Where a simulated provider's trades come from (issue 23, item 3): a demo chain's Swap logs when
 * the chain is indexed, the token has pairs there and the window starts inside the node's retained
 * history, so every row there has a truth on the chain; the model (TokenStream) everywhere else:
 * Solana, Stellar, older windows, and a simulator started without chains (tests, benches).
 */
export class TradeSources {
  constructor(
    private readonly model: TradeModel,
    private readonly indexes: ReadonlyMap<string, ChainTradeIndex>,
    private readonly chainFaults: Readonly<Record<string, ChainFaultProfile>>,
  ) {}

  /** The index a trades request on `chain` must sync before it is answered (null: the model answers). */
  indexOf(chain: string): ChainTradeIndex | null {
    return this.indexes.get(chain) ?? null;
  }

  rows(provider: string, chain: string, address: string, startMs: number): RowSource {
    const index = this.indexes.get(chain);
    const first = index?.firstRetained();
    const head = index?.head();
    if (index && first && head && index.has(address) && startMs >= first.timestampMs) {
      return new ChainTokenStream({
        seed: this.model.seed,
        provider,
        chain,
        address,
        capture: this.model.capture[provider],
        faults: this.chainFaults[provider] ?? NO_CHAIN_FAULTS,
        swaps: index.rows(address),
        headMs: head.timestampMs,
      });
    }
    return new TokenStream(this.model, provider, chain, address);
  }
}
