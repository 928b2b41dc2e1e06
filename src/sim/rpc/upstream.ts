import { Agent, request } from 'node:http';

/** A JSON-RPC call or answer as it travels: only the fields the simulator reads are typed. */
export interface RpcMessage {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
  result?: unknown;
  error?: unknown;
}

/** Posts JSON-RPC to one node over reused connections; rejects on anything but a JSON answer. */
export type UpstreamCall = (body: unknown) => Promise<unknown>;

/**
 * One keep-alive agent for all upstreams: a fresh TCP connection per proxied call would add more
 * than the < 1 ms of overhead the probe-overhead bench allows.
 */
export function upstreamAgent(): Agent {
  return new Agent({ keepAlive: true, maxSockets: 64, maxFreeSockets: 16 });
}

export function upstreamCall(url: string, agent: Agent): UpstreamCall {
  const u = new URL(url);
  return (body) =>
    new Promise((resolve, reject) => {
      const text = JSON.stringify(body);
      const req = request(
        {
          hostname: u.hostname,
          port: u.port,
          path: `${u.pathname}${u.search}`,
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            try {
              resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown);
            } catch (e) {
              reject(e);
            }
          });
        },
      );
      req.on('error', reject);
      req.end(text);
    });
}

/** Sends the calls as one request (a batch when there are several) and returns answers in order. */
export async function forward(call: UpstreamCall, calls: readonly RpcMessage[]): Promise<RpcMessage[]> {
  if (calls.length === 0) return [];
  // Our own ids upstream: the client's may repeat or be missing, and batch answers may come reordered.
  const tagged = calls.map((c, i) => ({ ...c, id: i }));
  const raw = await call(tagged.length === 1 ? tagged[0] : tagged);
  const list = (Array.isArray(raw) ? raw : [raw]) as RpcMessage[];
  const out: RpcMessage[] = calls.map(() => ({ error: { code: -32603, message: 'internal error' } }));
  for (const a of list) if (typeof a?.id === 'number' && a.id >= 0 && a.id < out.length) out[a.id] = a;
  return out;
}
