/** The JSON-RPC providers the simulator plays, the regions it plays them in, and their keys. */
export const SIM_RPC_PROVIDERS: readonly string[] = [
  'alchemy',
  'infura',
  'quicknode',
  'ankr',
  'drpc',
  'chainstack',
  'publicnode',
  'tenderly',
];

export const DEMO_REGIONS: readonly string[] = ['us-east', 'eu-west', 'ap-southeast'];

/** Fixed keys, so a demo's harness configuration survives restarts of the simulator. */
export const SIM_RPC_KEYS: Readonly<Record<string, string>> = Object.fromEntries(
  SIM_RPC_PROVIDERS.map((p) => [p, `sim-${p}-rpc-key`]),
);

/** Scripted faults: every request to the provider answers this until cleared. */
export type RpcFault =
  /** This HTTP status with a short JSON body. */
  | { readonly kind: 'status'; readonly status: number }
  /** Hold the request past the probe's timeout (virtual mode: `x-sim-delay-ms` of a stall). */
  | { readonly kind: 'stall' }
  /** TCP reset before any byte. */
  | { readonly kind: 'reset' }
  /** HTTP 200, every call answered with a JSON-RPC `error`. */
  | { readonly kind: 'rpc-error' }
  /** Answers as if it served another chain: `eth_chainId` and `net_version` are off by one. */
  | { readonly kind: 'wrong-chain' };
