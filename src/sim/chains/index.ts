export {
  type AnvilNode,
  anvilBinary,
  BLOCK_GAS_LIMIT,
  KEPT_BLOCKS,
  type StartAnvilOptions,
  startAnvil,
} from './anvil.ts';
export type { ChainHead, DemoChain } from './demo-chain.ts';
export { DEMO_CHAINS, type StartDemoChainsOptions, startDemoChains } from './demo-chains.ts';
export { type DemoDex, type DemoPair, demoDex, QUOTE_TOKENS, V2_SWAP_TOPIC } from './dex.ts';
export { BLOCK_TIME_MS, HOLDERS } from './history.ts';
