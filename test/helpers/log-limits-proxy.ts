import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { listenLoopback } from '../../src/sim/listen.ts';

/**
 * A JSON-RPC proxy in front of a real node that enforces real providers' eth_getLogs limits with
 * their real error answers, the limits divided by `scale` (100 in tests, so demo-sized windows hit
 * them; 1 for the real numbers). `/<profile>` selects the provider:
 * - quicknode: 10,000-block range, HTTP 413, -32614 "eth_getLogs is limited to a 10,000 range".
 * - quicknode-free: the free plan's 5-block range (not scaled), same answer.
 * - alchemy: 2,000 blocks unless the answer holds <= 10,000 logs; -32602 "Log response size
 *   exceeded. … this block range should work: [0x.., 0x..]".
 * - infura: 10,000 blocks (-32602 "range N exceeds limit of 10000") and 10,000 results (-32005
 *   "query returned more than 10000 results. Try with this block range [0x.., 0x..].").
 * - blockpi: 1,024 blocks. We found no published BlockPI error text: a generic -32000.
 * - ankr: 200,000 logs, refused as a whole (never a partial answer). No published text found
 *   either: a generic -32000.
 * Every other method, and batches, pass through unchanged.
 */
export type LimitProfile = 'quicknode' | 'quicknode-free' | 'alchemy' | 'infura' | 'blockpi' | 'ankr';

export const LIMIT_PROFILES: readonly LimitProfile[] = [
  'quicknode',
  'quicknode-free',
  'alchemy',
  'infura',
  'blockpi',
  'ankr',
];

export interface ProfileStats {
  getLogs: number;
  refused: number;
}

export interface LogLimitsProxy {
  url(profile: LimitProfile): string;
  readonly stats: ReadonlyMap<LimitProfile, ProfileStats>;
  close(): Promise<void>;
}

interface Refusal {
  readonly status: number;
  readonly code: number;
  readonly message: string;
}

const hex = (n: number): string => `0x${n.toString(16)}`;
const fmt = (n: number): string => n.toLocaleString('en-US');

/** The last block b >= from such that the logs of [from, b] are at most `limit` (logs sorted by block). */
function lastBlockWithin(blocks: readonly number[], from: number, limit: number): number {
  const over = blocks[limit];
  return over === undefined ? Number.MAX_SAFE_INTEGER : Math.max(from, over - 1);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startLogLimitsProxy(upstream: string, scale = 100): Promise<LogLimitsProxy> {
  const stats = new Map<LimitProfile, ProfileStats>(
    LIMIT_PROFILES.map((p) => [p, { getLogs: 0, refused: 0 }]),
  );
  const forward = async (body: string): Promise<{ status: number; text: string }> => {
    const up = await fetch(upstream, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    return { status: up.status, text: await up.text() };
  };
  const blockOf = async (tag: unknown): Promise<number> => {
    if (typeof tag === 'string' && tag.startsWith('0x')) return Number.parseInt(tag, 16);
    const r = await forward(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'eth_blockNumber', params: [] }));
    return Number.parseInt((JSON.parse(r.text) as { result: string }).result, 16);
  };

  /** The profile's answer to eth_getLogs over [from, to]: a refusal, or undefined to pass the upstream's reply. */
  const judge = (
    p: LimitProfile,
    from: number,
    to: number,
    logBlocks: () => readonly number[],
  ): Refusal | undefined => {
    const range = to - from + 1;
    const blocks = (n: number) => Math.max(1, Math.floor(n / scale));
    switch (p) {
      case 'quicknode':
      case 'quicknode-free': {
        const max = p === 'quicknode' ? blocks(10_000) : 5;
        if (range <= max) return undefined;
        return { status: 413, code: -32614, message: `eth_getLogs is limited to a ${fmt(max)} range` };
      }
      case 'alchemy': {
        const maxRange = blocks(2_000);
        const maxLogs = blocks(10_000);
        const got = logBlocks();
        if (range <= maxRange || got.length <= maxLogs) return undefined;
        const b = Math.min(to - 1, Math.max(from + maxRange - 1, lastBlockWithin(got, from, maxLogs)));
        return {
          status: 200,
          code: -32602,
          message: `Log response size exceeded. You can make eth_getLogs requests with up to a ${fmt(maxRange)} block range and no limit on the response size, or you can request any block range with a cap of ${fmt(maxLogs)} logs in the response. Based on your parameters, this block range should work: [${hex(from)}, ${hex(b)}]`,
        };
      }
      case 'infura': {
        const maxRange = blocks(10_000);
        if (range > maxRange)
          return { status: 200, code: -32602, message: `range ${to - from} exceeds limit of ${maxRange}` };
        const maxLogs = blocks(10_000);
        const got = logBlocks();
        if (got.length <= maxLogs) return undefined;
        const b = Math.min(to, lastBlockWithin(got, from, maxLogs));
        return {
          status: 200,
          code: -32005,
          message: `query returned more than ${maxLogs} results. Try with this block range [${hex(from)}, ${hex(b)}].`,
        };
      }
      case 'blockpi': {
        const max = blocks(1_024);
        if (range <= max) return undefined;
        return { status: 200, code: -32000, message: `eth_getLogs block range exceeds the limit of ${max}` };
      }
      case 'ankr': {
        const max = blocks(200_000);
        if (logBlocks().length <= max) return undefined;
        return { status: 200, code: -32000, message: `eth_getLogs result exceeds the limit of ${max} logs` };
      }
    }
  };

  const sockets = new Set<Socket>();
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const profile = (req.url ?? '/').split('/')[1] as LimitProfile;
    const body = await readBody(req);
    const send = (status: number, text: string): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(text);
    };
    let msg: { id?: unknown; method?: unknown; params?: unknown[] } | undefined;
    try {
      const parsed = JSON.parse(body) as unknown;
      if (!Array.isArray(parsed)) msg = parsed as typeof msg;
    } catch {
      // Forwarded as it is: the upstream answers a parse error.
    }
    const st = stats.get(profile);
    if (st === undefined || msg?.method !== 'eth_getLogs') {
      const r = await forward(body);
      return send(r.status, r.text);
    }
    st.getLogs++;
    const f = (msg.params?.[0] ?? {}) as { fromBlock?: unknown; toBlock?: unknown };
    const from = await blockOf(f.fromBlock ?? 'latest');
    const to = await blockOf(f.toBlock ?? 'latest');
    let reply: { status: number; text: string } | undefined;
    const logBlocks = (): number[] => {
      // Only profiles that cap the answer need it; the judge asks synchronously, so it was fetched before.
      const parsed = JSON.parse(reply?.text ?? '{}') as { result?: { blockNumber: string }[] };
      return (parsed.result ?? []).map((l) => Number.parseInt(l.blockNumber, 16));
    };
    if (profile === 'alchemy' || profile === 'infura' || profile === 'ankr') reply = await forward(body);
    const refusal = judge(profile, from, to, logBlocks);
    if (refusal) {
      st.refused++;
      return send(
        refusal.status,
        JSON.stringify({
          jsonrpc: '2.0',
          id: msg.id ?? null,
          error: { code: refusal.code, message: refusal.message },
        }),
      );
    }
    reply ??= await forward(body);
    send(reply.status, reply.text);
  });
  const base = await listenLoopback(server, sockets);
  return {
    url: (p) => `${base}/${p}`,
    stats,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
