/** The simulated RPC providers: what the demo and the tests import. */
export { DEMO_REGIONS, type RpcFault, SIM_RPC_KEYS, SIM_RPC_PROVIDERS } from './providers.ts';
export { type RpcSimulator, type RpcSimulatorOptions, startRpcSimulator } from './server.ts';
