/** Reference tokens per chain (providers.md §3.1, selected 2026-07-23); `symbol` is the `token` label. */
export interface ReferenceToken {
  readonly chain: string;
  readonly symbol: string;
  readonly address: string;
}

export const REFERENCE_TOKENS: readonly ReferenceToken[] = [
  { chain: 'solana', symbol: 'BONK', address: 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263' },
  { chain: 'solana', symbol: 'WIF', address: 'EKpQGSJtjMFqKZ9KQanSqYXRcF8fBopzLHYxdM65zcjm' },
  { chain: 'ethereum', symbol: 'PEPE', address: '0x6982508145454Ce325dDbE47a25d4ec3d2311933' },
  { chain: 'ethereum', symbol: 'MOG', address: '0xaaeE1A9723aaDB7afA2810263653A34bA2C21C7a' },
  { chain: 'bsc', symbol: 'CAKE', address: '0x0E09FaBB73Bd3Ade0a17ECC321fD13a19e81cE82' },
  { chain: 'bsc', symbol: 'FLOKI', address: '0xfb5B838b6cfEEdC2873aB27866079AC55363D37E' },
  { chain: 'base', symbol: 'BRETT', address: '0x532f27101965dd16442E59d40670FaF5eBB142E4' },
  { chain: 'base', symbol: 'DEGEN', address: '0x4ed4E862860beD51a9570b96d89aF5E1B0Efefed' },
  {
    chain: 'stellar',
    symbol: 'yXLM',
    address: 'yXLM:GARDNV3Q7YGT4AKSDF25LT32YSCCW4EV22Y2TV3I2PU2MMXJTEDL5T55',
  },
  {
    chain: 'stellar',
    symbol: 'SHX',
    address: 'SHX:GDSTRSHXHGJ7ZIVRBXEYE5Q74XUVCUSEKEBR7UCHEUUEK72N7I7KJ6JH',
  },
];

/** The measurement window: 60 minutes ending (exclusive) at the cycle time. */
export const TRADE_WINDOW_MS = 60 * 60 * 1000;
