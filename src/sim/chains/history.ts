import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { encodeAbiParameters, encodeFunctionData, type Hex, keccak256, numberToHex } from 'viem';
import { REFERENCE_TOKENS } from '../../harness/tokens.ts';
import { hashInts, mix32, unit } from '../prng.ts';
import type { RpcCall } from './rpc.ts';

/**
 * The demo history as a pure function of (seed, chain id, block number): which token transfers
 * block n holds. Nothing here depends on the time a block is mined, so a history rebuilt from a
 * lost state file, or mined late on a stretched clock, carries the same transactions.
 */

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

/** 1e9 tokens of 18 decimals each: transfers of ≤ 1,000 tokens never run a holder dry in any demo. */
const HOLDER_BALANCE = 10n ** 27n;
const MAX_TXS_PER_BLOCK = 6;
/** Plenty for a UniswapV2ERC20 transfer (~35–52k gas); fixed so every build signs identical bytes. */
const TX_GAS = 100_000;
/**
 * Above the base fee, which starts at 1 gwei and only falls on these near-empty blocks. Each
 * transaction of a block gets one wei less than the one before: anvil orders its pool by fee, so
 * the block's order is ours whatever order the batch is processed in.
 */
const GAS_PRICE_BASE = 2_000_000_000;

const TRANSFER_ABI = [
  {
    type: 'function',
    name: 'transfer',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'to', type: 'address' },
      { name: 'value', type: 'uint256' },
    ],
    outputs: [{ name: '', type: 'bool' }],
  },
] as const;

let erc20Code: Hex | null = null;

/** The runtime bytecode of @uniswap/v2-core's test ERC20: totalSupply at slot 0, balanceOf at slot 1. */
export function erc20RuntimeCode(): Hex {
  if (erc20Code) return erc20Code;
  const path = createRequire(import.meta.url).resolve('@uniswap/v2-core/build/ERC20.json');
  const json = JSON.parse(readFileSync(path, 'utf8')) as { evm?: { deployedBytecode?: { object?: string } } };
  const object = json.evm?.deployedBytecode?.object;
  if (!object) throw new Error(`${path} has no evm.deployedBytecode.object`);
  erc20Code = (object.startsWith('0x') ? object : `0x${object}`) as Hex;
  return erc20Code;
}

export function chainTokens(chain: string): readonly Hex[] {
  return REFERENCE_TOKENS.filter((t) => t.chain === chain).map((t) => t.address.toLowerCase() as Hex);
}

function slot(n: bigint): Hex {
  return numberToHex(n, { size: 32 });
}

/** Storage slot of `balanceOf[holder]`: keccak256(abi.encode(holder, 1)). */
export function balanceSlot(holder: Hex): Hex {
  return keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [holder, 1n]));
}

/** Installs the reference tokens of a chain at their real addresses, before block 1 is mined. */
export function tokenSetupCalls(chain: string): RpcCall[] {
  const code = erc20RuntimeCode();
  const calls: RpcCall[] = [];
  for (const token of chainTokens(chain)) {
    calls.push({ method: 'anvil_setCode', params: [token, code] });
    calls.push({
      method: 'anvil_setStorageAt',
      params: [token, slot(0n), slot(HOLDER_BALANCE * BigInt(HOLDERS.length))],
    });
    for (const h of HOLDERS)
      calls.push({ method: 'anvil_setStorageAt', params: [token, balanceSlot(h), slot(HOLDER_BALANCE)] });
  }
  return calls;
}

export interface PlannedTransfer {
  readonly from: Hex;
  readonly token: Hex;
  readonly data: Hex;
}

/** Binomial(6, 1/3): 0–6 transfers, mean 2. */
function transferCount(h: number): number {
  let n = 0;
  for (let i = 0; i < MAX_TXS_PER_BLOCK; i++) if (unit(mix32(h + i * 0x9e3779b9)) < 1 / 3) n++;
  return n;
}

/** The transfers of block `n` (≥ 1), in block order. */
export function blockTransfers(
  seed: number,
  chainId: number,
  n: number,
  tokens: readonly Hex[],
): PlannedTransfer[] {
  if (tokens.length === 0) return [];
  const count = transferCount(hashInts(seed, chainId, n, 0));
  const out: PlannedTransfer[] = [];
  for (let i = 0; i < count; i++) {
    const h = hashInts(seed, chainId, n, i + 1);
    const from = HOLDERS[h % HOLDERS.length] as Hex;
    // A different holder: shift by 1..len-1.
    const to = HOLDERS[
      ((h % HOLDERS.length) + 1 + (mix32(h) % (HOLDERS.length - 1))) % HOLDERS.length
    ] as Hex;
    const token = tokens[mix32(h ^ 0x5bd1e995) % tokens.length] as Hex;
    const value = BigInt((mix32(h + 0x27d4eb2f) % 1_000_000) + 1) * 10n ** 15n;
    out.push({
      from,
      token,
      data: encodeFunctionData({ abi: TRANSFER_ABI, functionName: 'transfer', args: [to, value] }),
    });
  }
  return out;
}

/** eth_sendTransaction calls for a block's transfers; `nonces` (per holder) is advanced in place. */
export function sendCalls(transfers: readonly PlannedTransfer[], nonces: Map<Hex, number>): RpcCall[] {
  return transfers.map((t, i) => {
    const nonce = nonces.get(t.from) ?? 0;
    nonces.set(t.from, nonce + 1);
    const tx = {
      from: t.from,
      to: t.token,
      data: t.data,
      nonce: numberToHex(nonce),
      gas: numberToHex(TX_GAS),
      gasPrice: numberToHex(GAS_PRICE_BASE + MAX_TXS_PER_BLOCK - i),
    };
    return { method: 'eth_sendTransaction', params: [tx] };
  });
}
