import { encodeFunctionData, type Hex, keccak256, parseAbi, toHex } from 'viem';
import { hash32 } from '../../../core/prng.ts';
import type { RpcFailureReason, RpcKind } from './metrics.ts';

/**
 * The accounts a slot's balance and call probes read: the first five default accounts of the
 * Hardhat/Foundry test mnemonic, public on every chain and holding something on most, so the
 * answer is a real lookup.
 */
export const PROBE_ACCOUNTS = [
  '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
  '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65',
] as const;
/** How far behind the reference head reads pin their block: every provider in sync has it. */
export const PIN_DEPTHS = [6, 8, 10, 12, 16] as const;
/** Blocks of Transfer logs a `logs` probe asks for, ending at the pinned block. */
export const LOG_RANGES = [25, 50, 100, 200] as const;
/**
 * A head answer (eth_blockNumber, `latest`) more than this many blocks from the reference head of
 * the slot is wrong, not slow: two Ethereum epochs, past which a block is finalised history.
 */
export const HEAD_TOLERANCE_BLOCKS = 64;

/**
 * A slot's question on a chain, the same for every provider: the account, the pin depth and the
 * log range, each drawn from its published set by a hash of (seed, chain, slot). The same seed
 * asks the same questions (the demo's), and no fixed question repeats slot after slot for a
 * provider to cache.
 */
export interface ProbeDraw {
  readonly account: string;
  readonly depth: number;
  readonly logBlocks: number;
}

export function probeDraw(seed: number, chain: string, slot: number): ProbeDraw {
  const pick = <T>(set: readonly T[], what: string): T =>
    set[hash32(`${seed}|${chain}|${slot}|${what}`) % set.length] as T;
  return {
    account: pick(PROBE_ACCOUNTS, 'account'),
    depth: pick(PIN_DEPTHS, 'depth'),
    logBlocks: pick(LOG_RANGES, 'logs'),
  };
}

const TRANSFER_TOPIC = keccak256(toHex('Transfer(address,address,uint256)'));
/** ERC-20 `balanceOf`, the `call` probe's question (the demo chains' tests ask it too). */
export const BALANCE_OF_ABI = parseAbi(['function balanceOf(address owner) view returns (uint256)']);

/** A block as the probe needs it: number, hash and timestamp (ms). */
export interface BlockRef {
  readonly number: number;
  readonly hash: string;
  readonly timestampMs: number;
}

/** The reference node's answers for one chain and slot: what every provider's answer must equal. */
export interface ReferenceAnswers {
  readonly head: BlockRef;
  /** The slot's question: its account and log range (the pinned block is head - depth). */
  readonly draw: ProbeDraw;
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
  draw: Pick<ProbeDraw, 'account' | 'logBlocks'>,
): { method: string; params: unknown[] } {
  switch (kind) {
    case 'block-number':
      return { method: 'eth_blockNumber', params: [] };
    case 'balance':
      return { method: 'eth_getBalance', params: [draw.account, hex(pinned)] };
    case 'call': {
      const data = encodeFunctionData({
        abi: BALANCE_OF_ABI,
        functionName: 'balanceOf',
        args: [draw.account as Hex],
      });
      return { method: 'eth_call', params: [{ to: token, data }, hex(pinned)] };
    }
    case 'logs':
      return {
        method: 'eth_getLogs',
        params: [
          {
            address: token,
            topics: [TRANSFER_TOPIC],
            fromBlock: hex(Math.max(0, pinned - draw.logBlocks + 1)),
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

/** A head answer's number within HEAD_TOLERANCE_BLOCKS of our node's head read beside it. */
export function nearHead(n: number, head: number): boolean {
  return Math.abs(n - head) <= HEAD_TOLERANCE_BLOCKS;
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
  | { readonly ok: true; readonly block?: BlockRef; readonly headNumber?: number }
  | { readonly ok: false; readonly reason: RpcFailureReason } {
  const bad = (reason: RpcFailureReason) => ({ ok: false as const, reason });
  switch (kind) {
    case 'block-number':
      if (typeof result !== 'string' || !QUANTITY.test(result.toLowerCase())) return bad('malformed');
      return { ok: true, headNumber: Number.parseInt(result, 16) };
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
      return block ? { ok: true, block, headNumber: block.number } : bad('malformed');
    }
  }
}
