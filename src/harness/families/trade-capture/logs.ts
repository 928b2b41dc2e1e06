import { parseQuantity, quantity, type ReferenceRpc, RpcFailure } from '../../reference-rpc.ts';

/** Why a cell has no truth (issue 23 §5): every one of them means "no count", never a low one. */
export type TruthFailureReason = 'before-history' | 'node-error' | 'limit';

export class TruthFailure extends Error {
  constructor(
    readonly reason: TruthFailureReason,
    message: string,
  ) {
    super(message);
    this.name = 'TruthFailure';
  }
}

export type Hex = `0x${string}`;
export type TopicFilter = readonly (string | readonly string[] | null)[];

export interface LogFilter {
  readonly address: Hex | readonly Hex[];
  readonly topics: TopicFilter;
}

/** The fields of a log the reader uses; the rest of the reply is dropped as it is parsed. */
export interface SlimLog {
  readonly blockNumber: number;
  readonly transactionHash: string;
  readonly topics: readonly string[];
  readonly data: string;
}

/** Filters carry at most this many addresses (or V4 pool ids): providers cap a request's parameters (Infura: 5,000). */
export const FILTER_CHUNK = 500;

export function chunked<T>(items: readonly T[], size = FILTER_CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * A provider's "too much" answer, by the status and codes real providers send: QuickNode HTTP 413
 * / -32614, Infura -32005 (results) and -32602 (range), Alchemy -32602 (response size), and the
 * generic range or result-count texts of other nodes (BlockPI, Ankr, geth, reth). A rate limit
 * (429, "too many requests") is not one: splitting would only send more.
 */
export function isLimitError(e: RpcFailure): boolean {
  const text = `${e.rpcMessage ?? ''} ${e.message}`;
  if (e.httpStatus === 429 || /rate.?limit|too many requests/i.test(text)) return false;
  if (e.httpStatus === 413 || e.code === -32614 || e.code === -32005) return true;
  return /block range|range .*(limit|exceed)|exceeds? .*limit|limited to|too (large|wide|big)|more than \d+ (results|logs)|response size|max(imum)? .*(range|results|logs)/i.test(
    text,
  );
}

/** The end of the range a limit error suggests ("[0xa, 0xb]", Alchemy and Infura), if it starts at `from` and helps. */
export function suggestedEnd(e: RpcFailure, from: number, end: number): number | undefined {
  const m = /\[\s*(0x[0-9a-fA-F]+)\s*,\s*(0x[0-9a-fA-F]+)\s*\]/.exec(e.rpcMessage ?? e.message);
  if (!m?.[1] || !m[2]) return undefined;
  const a = Number.parseInt(m[1], 16);
  const b = Number.parseInt(m[2], 16);
  return a === from && b >= from && b < end ? b : undefined;
}

function slim(raw: unknown, from: number, to: number): SlimLog | null {
  const r = raw as Record<string, unknown> | null;
  if (typeof r !== 'object' || r === null) throw new TruthFailure('node-error', 'eth_getLogs: malformed log');
  // A log of a block reorganised away since the node answered is no trade of the chain.
  if (r.removed === true) return null;
  const blockNumber = parseQuantity(r.blockNumber, 'eth_getLogs blockNumber');
  const { transactionHash: tx, topics, data } = r;
  if (typeof tx !== 'string' || !Array.isArray(topics) || typeof data !== 'string')
    throw new TruthFailure('node-error', 'eth_getLogs: malformed log');
  if (blockNumber < from || blockNumber > to)
    throw new TruthFailure(
      'node-error',
      `eth_getLogs: a log of block ${blockNumber} outside [${from}, ${to}]`,
    );
  return { blockNumber, transactionHash: tx.toLowerCase(), topics: topics as string[], data };
}

export interface GetLogsStats {
  requests: number;
  limitErrors: number;
}

/**
 * Every log of `filter` in [from, to], by as many requests as the node's limits need. A limit
 * error narrows the span (to the suggested range when the error gives one, else halves it) and
 * retries: a limited answer is never taken as complete. A single block still over the limit is a
 * `limit` failure; any other failure (HTTP, JSON-RPC, timeout, malformed reply) is `node-error`.
 * The span found is kept for the next ranges, so a 10,000-block limit costs one failed request.
 */
export async function getLogsSplit(
  rpc: ReferenceRpc,
  filter: LogFilter,
  from: number,
  to: number,
  onLog: (log: SlimLog) => void,
  signal?: AbortSignal,
  stats?: GetLogsStats,
): Promise<void> {
  let cursor = from;
  let span = to - from + 1;
  while (cursor <= to) {
    const end = Math.min(to, cursor + span - 1);
    let logs: unknown;
    if (stats) stats.requests++;
    try {
      logs = await rpc.call(
        'eth_getLogs',
        [
          {
            address: filter.address,
            topics: filter.topics,
            fromBlock: quantity(cursor),
            toBlock: quantity(end),
          },
        ],
        signal,
      );
    } catch (e) {
      if (!(e instanceof RpcFailure) || !isLimitError(e))
        throw new TruthFailure('node-error', e instanceof Error ? e.message : String(e));
      if (stats) stats.limitErrors++;
      if (end === cursor)
        throw new TruthFailure(
          'limit',
          `block ${cursor} alone is over the node's eth_getLogs limit: ${e.message}`,
        );
      const s = suggestedEnd(e, cursor, end);
      span = s !== undefined ? s - cursor + 1 : Math.max(1, Math.floor((end - cursor + 1) / 2));
      continue;
    }
    if (!Array.isArray(logs)) throw new TruthFailure('node-error', 'eth_getLogs: reply is not an array');
    for (const raw of logs) {
      const log = slim(raw, cursor, end);
      if (log) onLog(log);
    }
    cursor = end + 1;
  }
}
