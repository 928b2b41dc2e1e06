import { createServer, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

export interface StubRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

export interface StubResponse {
  readonly status?: number;
  readonly body?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Never answer (to exercise client timeouts). */
  readonly hang?: boolean;
  /** Drop the connection without answering (a connection reset). */
  readonly reset?: boolean;
}

export interface StubServer {
  readonly url: string;
  readonly requests: StubRequest[];
  close(): Promise<void>;
}

/**
 * A programmable HTTP server for replaying recorded provider responses (fixtures) to adapters:
 * the handler maps each request to a canned response, and every request is recorded.
 */
export async function startStubServer(
  handler: (req: StubRequest) => StubResponse | Promise<StubResponse>,
): Promise<StubServer> {
  const requests: StubRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const u = new URL(req.url ?? '/', 'http://stub');
    const r: StubRequest = {
      method: req.method ?? 'GET',
      path: u.pathname,
      query: u.searchParams,
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    };
    requests.push(r);
    try {
      const out = await handler(r);
      if (out.hang) return;
      if (out.reset) {
        req.socket.resetAndDestroy();
        return;
      }
      const text = out.body ?? '';
      res.writeHead(out.status ?? 200, { 'content-type': 'application/json', ...out.headers });
      res.end(text);
    } catch (e) {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`stub handler error: ${(e as Error).message}`);
    }
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
