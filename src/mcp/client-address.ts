import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';

interface NodeBindings {
  readonly incoming?: IncomingMessage;
}

/** The Node request under @hono/node-server (c.env.incoming); undefined elsewhere (app.request in tests). */
export function nodeIncoming(c: Context): IncomingMessage | undefined {
  const incoming = (c.env as NodeBindings | undefined)?.incoming;
  return incoming && typeof incoming.on === 'function' ? incoming : undefined;
}

/**
 * The peer address and the local port from the Node socket. X-Forwarded-For is ignored on
 * purpose: anyone can send it.
 */
export function clientAddress(c: Context): { ip: string; localPort: number | undefined } {
  const socket = nodeIncoming(c)?.socket;
  return { ip: socket?.remoteAddress || 'unknown', localPort: socket?.localPort };
}
