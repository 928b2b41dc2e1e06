import { ReferenceRpc } from '../../reference-rpc.ts';
import {
  type BlockRef,
  blockRef,
  normalLogs,
  type ProbeDraw,
  type ReferenceAnswers,
  requestOf,
} from './methods.ts';

/**
 * A reference head older than this at the slot's start (five 12 s blocks, on the harness clock)
 * means our node has stalled: the chain's probes of that slot are not scored.
 */
export const REFERENCE_STALE_MS = 60_000;

/** The reference node is ours: a generous bound, and a failure means no reference answer. */
const REFERENCE_TIMEOUT_MS = 10_000;

/**
 * The reference node's answers for one chain at the start of a slot (untimed): its head, the block
 * the slot's draw pins behind it, and the balance, call and logs of the drawn account and log range
 * every provider's answer must equal. Null when
 * the node cannot give them (its chain id is wrong, it is down, or it has too few blocks): then the
 * chain's probes of that slot are not scored.
 */
export async function referenceAnswers(
  url: string,
  chainIdHex: string,
  token: string,
  draw: ProbeDraw,
  signal: AbortSignal,
): Promise<ReferenceAnswers | null> {
  const rpc = new ReferenceRpc(url, REFERENCE_TIMEOUT_MS);
  const call = (method: string, params: readonly unknown[]) => rpc.call(method, params, signal);
  try {
    const chainId = await call('eth_chainId', []);
    if (typeof chainId !== 'string' || chainId.toLowerCase() !== chainIdHex) return null;
    const head = blockRef(await call('eth_getBlockByNumber', ['latest', false]));
    if (!head || head.number < draw.depth) return null;
    const pinned = head.number - draw.depth;
    const ask = (kind: 'balance' | 'call' | 'logs') => {
      const r = requestOf(kind, token, pinned, draw);
      return call(r.method, r.params);
    };
    const [balance, callResult, logs] = await Promise.all([ask('balance'), ask('call'), ask('logs')]);
    const normal = normalLogs(logs);
    if (typeof balance !== 'string' || typeof callResult !== 'string' || normal === null) return null;
    return { head, draw, pinned, balance, call: callResult, logs: normal };
  } catch {
    return null;
  }
}

/** The reference's block of a number (to check a provider's `latest`), or null when it has none. */
export async function referenceBlock(url: string, n: number, signal: AbortSignal): Promise<BlockRef | null> {
  try {
    const rpc = new ReferenceRpc(url, REFERENCE_TIMEOUT_MS);
    return blockRef(await rpc.call('eth_getBlockByNumber', [`0x${n.toString(16)}`, false], signal));
  } catch {
    return null;
  }
}

/** Our node's newest block now (read right after a head answer), or null when it cannot say. */
export async function referenceHead(url: string, signal: AbortSignal): Promise<BlockRef | null> {
  try {
    const rpc = new ReferenceRpc(url, REFERENCE_TIMEOUT_MS);
    return blockRef(await rpc.call('eth_getBlockByNumber', ['latest', false], signal));
  } catch {
    return null;
  }
}
