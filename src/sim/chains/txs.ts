import { encodeAbiParameters, type Hex, keccak256, numberToHex } from 'viem';
import type { RpcCall } from './rpc.ts';

export const BLOCK_TIME_MS = 12_000;

/** anvil's first dev accounts (its fixed default mnemonic): unlocked, so eth_sendTransaction signs for them. */
export const HOLDERS: readonly Hex[] = [
  '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
  '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
  '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
  '0x90f79bf6eb2c4f870365e785982e1f101e93b906',
  '0x15d34aaf54267db7d7c367839aaf71a00a2c6a65',
  '0x9965507d1a55bcc2695c58ba16fb37d819b0a4dc',
];

/**
 * Index 8 of the same mnemonic: deploys the DEX in block 1 and never trades, so the holders'
 * nonces (and PROBE_ACCOUNT's balance, holder 0) carry no deployment.
 */
export const DEPLOYER: Hex = '0x23618e81e3f5cdf7f54c3d65f7fbc0abf5b21e8f';

/** Every account that sends history transactions: their nonces are read back on resume. */
export const SENDERS: readonly Hex[] = [...HOLDERS, DEPLOYER];

/** One transaction of the history; `to` absent deploys `data`. Gas is fixed per kind, never estimated. */
export interface PlannedTx {
  readonly from: Hex;
  readonly to?: Hex;
  readonly data: Hex;
  readonly gas: number;
  readonly value?: bigint;
}

/**
 * Above the base fee, which starts at 1 gwei and only falls on these mostly empty blocks. Each
 * transaction of a block gets one wei less than the one before: anvil orders its pool by fee, so
 * the block's order is ours whatever order the batch is processed in.
 */
const GAS_PRICE_BASE = 2_000_000_000;
/** Bound on a block's transactions for that descending fee (block 1 holds ~70, a busy one ~40). */
export const MAX_TXS_PER_BLOCK = 1_000;

/** eth_sendTransaction calls for a block's transactions; `nonces` (per sender) is advanced in place. */
export function sendCalls(txs: readonly PlannedTx[], nonces: Map<Hex, number>): RpcCall[] {
  if (txs.length > MAX_TXS_PER_BLOCK) throw new Error(`${txs.length} transactions in one block`);
  return txs.map((t, i) => {
    const nonce = nonces.get(t.from) ?? 0;
    nonces.set(t.from, nonce + 1);
    const tx = {
      from: t.from,
      ...(t.to !== undefined ? { to: t.to } : {}),
      data: t.data,
      ...(t.value !== undefined ? { value: numberToHex(t.value) } : {}),
      nonce: numberToHex(nonce),
      gas: numberToHex(t.gas),
      gasPrice: numberToHex(GAS_PRICE_BASE + MAX_TXS_PER_BLOCK - i),
    };
    return { method: 'eth_sendTransaction', params: [tx] };
  });
}

export function slot(n: bigint): Hex {
  return numberToHex(n, { size: 32 });
}

/** Storage slot of `balanceOf[holder]` in v2-core's ERC20: keccak256(abi.encode(holder, 1)). */
export function balanceSlot(holder: Hex): Hex {
  return keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [holder, 1n]));
}
