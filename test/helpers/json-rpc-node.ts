import { createServer } from 'node:http';
import type { Socket } from 'node:net';
import { listenLoopback } from '../../src/sim/listen.ts';

/** One block of a test chain: its number, a hash made of it, and `timestampMs` in whole seconds. */
export function testBlock(n: number, timestampMs: number) {
  return {
    number: `0x${n.toString(16)}`,
    hash: `0x${n.toString(16).padStart(64, '0')}`,
    timestamp: `0x${Math.floor(timestampMs / 1000).toString(16)}`,
  };
}

/**
 * The answer of an Ethereum mainnet test node whose newest block is `head`, block n stamped
 * `stamp(n)`: the methods the json-rpc family asks, with answers every honest node would agree on.
 */
export function testNodeAnswer(
  method: string,
  params: readonly unknown[],
  head: number,
  stamp: (n: number) => number,
) {
  switch (method) {
    case 'eth_chainId':
      return '0x1';
    case 'eth_blockNumber':
      return `0x${head.toString(16)}`;
    case 'eth_getBlockByNumber': {
      const n = params[0] === 'latest' ? head : Number.parseInt(String(params[0]), 16);
      return testBlock(n, stamp(n));
    }
    case 'eth_getBalance':
      return '0x10';
    case 'eth_call':
      return `0x${'0'.repeat(64)}`;
    case 'eth_getLogs':
      return [];
    default:
      return null;
  }
}

export interface NodeRequest {
  readonly path: string;
  readonly method: string;
  readonly params: readonly unknown[];
}

/** How the node replies: the JSON-RPC result, with an HTTP status other than 200, or after a delay. */
export interface NodeReply {
  readonly result: unknown;
  readonly status?: number;
  readonly delayMs?: number;
}

/** A loopback JSON-RPC server answering each request with `reply(request)`. */
export async function startJsonRpcNode(
  reply: (r: NodeRequest) => NodeReply,
): Promise<{ readonly url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const msg = JSON.parse(body) as { id: number; method: string; params?: unknown[] };
      const r = reply({ path: req.url ?? '/', method: msg.method, params: msg.params ?? [] });
      const send = () => {
        res.statusCode = r.status ?? 200;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: r.result }));
      };
      if (r.delayMs) setTimeout(send, r.delayMs);
      else send();
    });
  });
  const url = await listenLoopback(server, sockets);
  return {
    url,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
