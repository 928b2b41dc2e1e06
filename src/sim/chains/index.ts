export { type AnvilNode, anvilBinary, type StartAnvilOptions, startAnvil } from './anvil.ts';
export type { ChainHead, DemoChain } from './demo-chain.ts';
export { DEMO_CHAINS, type StartDemoChainsOptions, startDemoChains } from './demo-chains.ts';
export { BLOCK_TIME_MS, HOLDERS } from './history.ts';
