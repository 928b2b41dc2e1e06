import { encodeFunctionData, keccak256, parseAbi, toHex } from 'viem';
import type { RpcFailureReason, RpcKind } from './metrics.ts';

/**
 * The account whose balances are read: the first default account of the Hardhat/Foundry test
 * mnemonic, public on every chain and holding something on most, so the answer is a real lookup.
 */
export const PROBE_ACCOUNT = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

/** Reads pin a block this far behind the reference head, so every provider in sync has it. */
export const PIN_DEPTH = 10;
/**
 * A head answer (eth_blockNumber, `latest`) more than this many blocks from the reference head of
 * the slot is wrong, not slow: two Ethereum epochs, past which a block is finalised history.
 */
export const HEAD_TOLERANCE_BLOCKS = 64;
/** Blocks of Transfer logs a `logs` probe asks for, ending at the pinned block. */
export const LOG_BLOCKS = 100;

const TRANSFER_TOPIC = keccak256(toHex('Transfer(address,address,uint256)'));
/** ERC-20 `balanceOf`, the `call` probe's question (the demo chains' tests ask it too). */
export const BALANCE_OF_ABI = parseAbi(['function balanceOf(address owner) view returns (uint256)']);
const BALANCE_OF = encodeFunctionData({
  abi: BALANCE_OF_ABI,
  functionName: 'balanceOf',
  args: [PROBE_ACCOUNT],
});

/** A block as the probe needs it: number, hash and timestamp (ms). */
export interface BlockRef {
  readonly number: number;
  readonly hash: string;
  readonly timestampMs: number;
}

/** The reference node's answers for one chain and slot: what every provider's answer must equal. */
export interface ReferenceAnswers {
  readonly head: BlockRef;
  readonly pinned: number;
  readonly balance: string;
  readonly call: string;
  /** The pinned range's Transfer logs of the token, normalised (normalLogs). */
  readonly logs: string;
}

const hex = (n: number) => `0x${n.toString(16)}`;
const QUANTITY = /^0x(0|[1-9a-f][0-9a-f]*)$/;
const DATA = /^0x([0-9a-f]{2})*$/;
const HASH = /^0x[0-9a-f]{64}$/;

/** The request of one method, reading the pinned block where the answer must be checked. */
export function requestOf(
  kind: RpcKind,
  token: string,
  pinned: number,
): { method: string; params: unknown[] } {
  switch (kind) {
    case 'block-number':
      return { method: 'eth_blockNumber', params: [] };
    case 'balance':
      return { method: 'eth_getBalance', params: [PROBE_ACCOUNT, hex(pinned)] };
    case 'call':
      return { method: 'eth_call', params: [{ to: token, data: BALANCE_OF }, hex(pinned)] };
    case 'logs':
      return {
        method: 'eth_getLogs',
        params: [
          {
            address: token,
            topics: [TRANSFER_TOPIC],
            fromBlock: hex(Math.max(0, pinned - LOG_BLOCKS + 1)),
            toBlock: hex(pinned),
          },
        ],
      };
    case 'block':
      return { method: 'eth_getBlockByNumber', params: ['latest', false] };
  }
}

/** A block object's number, hash and timestamp, or null when it does not have their shape. */
export function blockRef(result: unknown): BlockRef | null {
  if (typeof result !== 'object' || result === null) return null;
  const b = result as { number?: unknown; hash?: unknown; timestamp?: unknown };
  if (typeof b.number !== 'string' || typeof b.hash !== 'string' || typeof b.timestamp !== 'string')
    return null;
  const number = b.number.toLowerCase();
  const hash = b.hash.toLowerCase();
  const ts = b.timestamp.toLowerCase();
  if (!QUANTITY.test(number) || !HASH.test(hash) || !QUANTITY.test(ts)) return null;
  return { number: Number.parseInt(number, 16), hash, timestampMs: Number.parseInt(ts, 16) * 1000 };
}

/**
 * Logs in a comparable form: each log's block, transaction, index, topics and data, in order. Two
 * answers are equal only when they list the same logs with the same content.
 */
export function normalLogs(result: unknown): string | null {
  if (!Array.isArray(result)) return null;
  const out: string[] = [];
  for (const l of result) {
    if (typeof l !== 'object' || l === null) return null;
    const x = l as Record<string, unknown>;
    const { blockNumber, transactionHash, logIndex, data, topics } = x;
    if (
      typeof blockNumber !== 'string' ||
      typeof transactionHash !== 'string' ||
      typeof logIndex !== 'string' ||
      typeof data !== 'string' ||
      !Array.isArray(topics)
    ) {
      return null;
    }
    out.push(
      [blockNumber, transactionHash, logIndex, data, ...topics.map(String)]
        .map((v) => v.toLowerCase())
        .join(','),
    );
  }
  return out.join(';');
}

/** A head answer's number within HEAD_TOLERANCE_BLOCKS of the slot's reference head. */
export function nearHead(n: number, ref: ReferenceAnswers): boolean {
  return Math.abs(n - ref.head.number) <= HEAD_TOLERANCE_BLOCKS;
}

/**
 * What a provider's answer is: correct (with the block it named, for `block`), or why not. Shape
 * first (`malformed`), then equality with the reference at the pinned block (`wrong_result`); a
 * `block` answer's hash is checked by the caller against the reference's block of that number.
 */
export function checkAnswer(
  kind: RpcKind,
  result: unknown,
  ref: ReferenceAnswers,
):
  | { readonly ok: true; readonly block?: BlockRef }
  | { readonly ok: false; readonly reason: RpcFailureReason } {
  const bad = (reason: RpcFailureReason) => ({ ok: false as const, reason });
  switch (kind) {
    case 'block-number':
      if (typeof result !== 'string' || !QUANTITY.test(result.toLowerCase())) return bad('malformed');
      return nearHead(Number.parseInt(result, 16), ref) ? { ok: true } : bad('wrong_result');
    case 'balance':
      if (typeof result !== 'string' || !QUANTITY.test(result.toLowerCase())) return bad('malformed');
      return BigInt(result) === BigInt(ref.balance) ? { ok: true } : bad('wrong_result');
    case 'call':
      if (typeof result !== 'string' || !DATA.test(result.toLowerCase())) return bad('malformed');
      return result.toLowerCase() === ref.call.toLowerCase() ? { ok: true } : bad('wrong_result');
    case 'logs': {
      const logs = normalLogs(result);
      if (logs === null) return bad('malformed');
      return logs === ref.logs ? { ok: true } : bad('wrong_result');
    }
    case 'block': {
      const block = blockRef(result);
      return block ? { ok: true, block } : bad('malformed');
    }
  }
}
