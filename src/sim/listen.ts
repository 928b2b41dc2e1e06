import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Binds a simulator's server on loopback (port 0: a free one) and tracks its sockets, so closing
 * it can destroy keep-alive and stalled connections at once. Resolves with its base URL.
 */
export async function listenLoopback(server: Server, sockets: Set<Socket>, port = 0): Promise<string> {
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const addr = server.address();
  return `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
}
