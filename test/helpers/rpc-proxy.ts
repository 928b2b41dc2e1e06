import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { listenLoopback } from '../../src/sim/listen.ts';

/** What the proxy does with one request of one provider (the first path segment). */
export type ProxyBehaviour =
  | { readonly kind: 'pass'; readonly delayMs?: number }
  | { readonly kind: 'stall' }
  | { readonly kind: 'status'; readonly status: number; readonly body?: string }
  | { readonly kind: 'reset' }
  | { readonly kind: 'mutate'; readonly fn: (reply: Record<string, unknown>) => Record<string, unknown> };

export interface RpcProxy {
  readonly url: string;
  /** The behaviour per provider and method (eth_chainId passes unless `chainId` is set). */
  behave(provider: string, fn: (method: string, url: string) => ProxyBehaviour): void;
  close(): Promise<void>;
}

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A JSON-RPC proxy in front of a real node for probe tests: `/<provider>/...` forwards to the
 * upstream, unless the provider's behaviour says to stall, fail, reset or change the answer.
 */
export async function startRpcProxy(upstream: string): Promise<RpcProxy> {
  const behaviours = new Map<string, (method: string, url: string) => ProxyBehaviour>();
  const sockets = new Set<Socket>();
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const provider = (req.url ?? '/').split('/')[1] ?? '';
    const text = await body(req);
    let method = '';
    try {
      method = String((JSON.parse(text) as { method?: unknown }).method ?? '');
    } catch {
      // Forwarded as it is: the upstream answers a parse error.
    }
    const b = behaviours.get(provider)?.(method, req.url ?? '') ?? { kind: 'pass' };
    if (b.kind === 'stall') return;
    if (b.kind === 'reset') {
      req.socket.destroy();
      return;
    }
    if (b.kind === 'status') {
      res.writeHead(b.status, { 'content-type': 'application/json' });
      res.end(b.body ?? '{"error":"nope"}');
      return;
    }
    if (b.kind === 'pass' && b.delayMs) await new Promise((r) => setTimeout(r, b.delayMs));
    const up = await fetch(upstream, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: text,
    });
    let reply = await up.text();
    if (b.kind === 'mutate') reply = JSON.stringify(b.fn(JSON.parse(reply) as Record<string, unknown>));
    res.writeHead(up.status, { 'content-type': 'application/json' });
    res.end(reply);
  });
  const base = await listenLoopback(server, sockets);
  return {
    url: base,
    behave: (provider, fn) => behaviours.set(provider, fn),
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
