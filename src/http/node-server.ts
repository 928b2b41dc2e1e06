import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/**
 * Request limits for every route. Only the MCP endpoint reads a body (capped at 64 KiB in
 * src/mcp/body.ts); every other route is GET-only, so anything past a small declared body is
 * refused before routing, and a chunked body (size unknown) is refused outright there.
 */
export const LIMITS = {
  /** Node's default, made explicit: larger header blocks get 431 from the HTTP parser. */
  maxHeaderBytes: 16 * 1024,
  maxHeadersCount: 100,
  /** Declared body size refused on non-MCP routes. */
  maxBodyBytes: 16 * 1024,
  /** A slow client must send its headers within this (slowloris). */
  headersTimeoutMs: 10_000,
  /** …and its whole request within this. */
  requestTimeoutMs: 30_000,
  /** Default bound on in-flight requests at shutdown. */
  drainGraceMs: 5_000,
} as const;

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Binds an HTTP server with the limits above to `host:port`; resolves with it and the port bound
 * (port 0 picks one). Light on purpose (node:http only): start-up binds before it imports the app.
 */
export function bindServer(
  port: number,
  host: string,
  onRequest: RequestListener,
): Promise<{ server: Server; port: number }> {
  return new Promise((resolve, reject) => {
    const s = createServer(
      {
        maxHeaderSize: LIMITS.maxHeaderBytes,
        headersTimeout: LIMITS.headersTimeoutMs,
        requestTimeout: LIMITS.requestTimeoutMs,
      },
      onRequest,
    );
    s.maxHeadersCount = LIMITS.maxHeadersCount;
    s.once('error', reject);
    s.listen(port, host, () => {
      resolve({ server: s, port: boundPort(s, port) });
    });
  });
}

/** The port a listening server is bound to (`fallback` when it has no TCP address). */
export function boundPort(s: Server, fallback: number): number {
  const a = s.address();
  return typeof a === 'object' && a !== null ? a.port : fallback;
}
