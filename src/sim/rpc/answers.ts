import { keccak256 } from 'viem';
import type { CallDraw, RequestDraw } from './draws.ts';
import type { RpcFault } from './providers.ts';
import { forward, type RpcMessage, type UpstreamCall } from './upstream.ts';

/** Codes real nodes answer internal trouble with; which one a failing call gets is drawn. */
const RPC_ERRORS = [
  { code: -32603, message: 'internal error' },
  { code: -32000, message: 'header not found' },
  { code: -32005, message: 'request limit exceeded' },
] as const;

const toQuantity = (n: bigint) => `0x${n.toString(16)}`;

function isLatestBlock(c: RpcMessage): boolean {
  return c.method === 'eth_getBlockByNumber' && Array.isArray(c.params) && c.params[0] === 'latest';
}

/** A hex quantity plus one, or a data word plus one at the same width (so it stays well-formed). */
function plusOne(hex: unknown, keepWidth: boolean): unknown {
  if (typeof hex !== 'string' || !/^0x[0-9a-fA-F]*$/.test(hex)) return hex;
  const digits = hex.length - 2;
  const next = (digits === 0 ? 0n : BigInt(hex)) + 1n;
  if (!keepWidth || digits === 0) return toQuantity(next);
  return `0x${(next % (1n << BigInt(digits * 4))).toString(16).padStart(digits, '0')}`;
}

/** The one rewrite of a wrong answer per method; other methods are never wrong. */
function corrupt(method: unknown, result: unknown, pick: number): unknown {
  if (method === 'eth_getBalance' || method === 'eth_call') return plusOne(result, method === 'eth_call');
  if (method === 'eth_getLogs' && Array.isArray(result) && result.length > 0) {
    const drop = Math.floor(pick * result.length);
    return result.filter((_, i) => i !== drop);
  }
  return result;
}

function otherHash(hash: unknown): unknown {
  return typeof hash === 'string' && /^0x[0-9a-fA-F]{64}$/.test(hash)
    ? keccak256(`0x${hash.slice(2)}00` as `0x${string}`)
    : hash;
}

function isCall(c: unknown): c is RpcMessage {
  return (
    typeof c === 'object' && c !== null && !Array.isArray(c) && typeof (c as RpcMessage).method === 'string'
  );
}

/**
 * Answers the calls of one request through the upstream node, with the provider's head lag, drawn
 * errors and wrong answers. `latest` is resolved against one upstream head read so that
 * eth_blockNumber and a `latest` block in the same request agree.
 */
export async function answerCalls(
  calls: readonly unknown[],
  draw: RequestDraw,
  perCall: readonly CallDraw[],
  fault: RpcFault | null,
  upstream: UpstreamCall,
  /** The upstream head when the caller knows it (see RpcSimulatorOptions.headOf). */
  knownHead?: number,
): Promise<RpcMessage[]> {
  const out: (RpcMessage | null)[] = calls.map(() => null);
  const pending: { index: number; call: RpcMessage }[] = [];
  const lagged =
    draw.lag > 0 && calls.some((c) => isCall(c) && (c.method === 'eth_blockNumber' || isLatestBlock(c)));
  let head: bigint | null = null;
  if (lagged && knownHead !== undefined) head = BigInt(knownHead);
  else if (lagged) {
    const [h] = await forward(upstream, [{ jsonrpc: '2.0', method: 'eth_blockNumber', params: [] }]);
    if (typeof h?.result === 'string') head = BigInt(h.result);
  }
  const behind = head === null ? null : head - BigInt(draw.lag) < 0n ? 0n : head - BigInt(draw.lag);
  calls.forEach((c, index) => {
    if (!isCall(c)) {
      out[index] = { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request' } };
      return;
    }
    const d = perCall[index];
    if (fault?.kind === 'rpc-error' || d?.rpcError) {
      const e = RPC_ERRORS[Math.floor((d?.pick ?? 0) * RPC_ERRORS.length)] ?? RPC_ERRORS[0];
      out[index] = { jsonrpc: '2.0', id: c.id ?? null, error: { ...e } };
    } else if (behind !== null && c.method === 'eth_blockNumber') {
      out[index] = { jsonrpc: '2.0', id: c.id ?? null, result: toQuantity(behind) };
    } else if (behind !== null && isLatestBlock(c)) {
      const params = [toQuantity(behind), ...(c.params as unknown[]).slice(1)];
      pending.push({ index, call: { jsonrpc: '2.0', method: c.method, params } });
    } else {
      pending.push({ index, call: { jsonrpc: '2.0', method: c.method, params: c.params ?? [] } });
    }
  });
  const answers = await forward(
    upstream,
    pending.map((p) => p.call),
  );
  pending.forEach(({ index }, i) => {
    const c = calls[index] as RpcMessage;
    const a = answers[i] ?? {};
    const d = perCall[index];
    const answer: RpcMessage = { jsonrpc: '2.0', id: c.id ?? null };
    if (a.error !== undefined || !('result' in a))
      answer.error = a.error ?? { code: -32603, message: 'internal error' };
    else {
      let result = a.result;
      if (d?.wrong) result = corrupt(c.method, result, d.pick);
      if (d?.nonCanonical && isLatestBlock(c) && typeof result === 'object' && result !== null) {
        result = { ...result, hash: otherHash((result as { hash?: unknown }).hash) };
      }
      if (fault?.kind === 'wrong-chain' && (c.method === 'eth_chainId' || c.method === 'net_version')) {
        result = c.method === 'eth_chainId' ? plusOne(result, false) : String(Number(result) + 1);
      }
      answer.result = result;
    }
    out[index] = answer;
  });
  return out.map(
    (a) => a ?? { jsonrpc: '2.0', id: null, error: { code: -32603, message: 'internal error' } },
  );
}
