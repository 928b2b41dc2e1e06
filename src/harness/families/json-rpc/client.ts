import {
  type ClientRequest,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { RpcFailureReason } from './metrics.ts';

/** Bodies past this are malformed: no method we probe answers with more (100 blocks of logs). */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

/**
 * A test-and-demo hook: the simulator's backfill answers at once and says in this header how long
 * it would have taken, so a backfilled slot is timed on the simulated clock. Read only when the
 * harness is told to (`virtualLatency`), never from a real provider.
 */
export const SIM_DELAY_HEADER = 'x-sim-delay-ms';

export type RpcCall =
  | {
      readonly ok: true;
      readonly ms: number;
      readonly result: unknown;
      /** performance.now() when the timed interval began (request written on a connected socket). */
      readonly startedAt: number;
    }
  | { readonly ok: false; readonly reason: RpcFailureReason | 'key_refused'; readonly ms: number };

export interface RpcSendOptions {
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  readonly virtualLatency?: boolean;
}

function tlsError(e: NodeJS.ErrnoException): boolean {
  const code = e.code ?? '';
  return code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL') || /CERT|SELF_SIGNED|EPROTO/.test(code);
}

let nextId = 1;

/**
 * One series' connection (provider × chain × method): its own keep-alive agent holding one socket,
 * so a stalled probe of one series never queues another, and a timed request reuses a connection
 * whose chain id was already checked. Connecting and the per-connection eth_chainId check are
 * untimed; a probe is timed from the moment its request is written on a connected socket to the
 * last byte of the body, on the monotonic clock. No retries.
 */
export class RpcConnection {
  private readonly agent: HttpAgent;
  private readonly send: typeof httpRequest;
  private checked: Socket | null = null;

  constructor(
    private readonly url: string,
    private readonly chainIdHex: string,
  ) {
    const tls = url.startsWith('https:');
    const opts = { keepAlive: true, maxSockets: 1, maxFreeSockets: 1 };
    this.agent = tls ? new HttpsAgent(opts) : new HttpAgent(opts);
    this.send = tls ? httpsRequest : httpRequest;
  }

  /** Sends one JSON-RPC request, first checking the connection's chain id when it is new. */
  async call(method: string, params: readonly unknown[], o: RpcSendOptions): Promise<RpcCall> {
    if (this.checked === null || this.checked.destroyed) {
      const check = await this.raw('eth_chainId', [], o, false);
      if (!check.ok) return { ...check, ms: o.timeoutMs };
      if (typeof check.result !== 'string' || check.result.toLowerCase() !== this.chainIdHex) {
        return { ok: false, reason: 'wrong_chain', ms: o.timeoutMs };
      }
    }
    return this.raw(method, params, o, true);
  }

  close(): void {
    this.agent.destroy();
    this.checked = null;
  }

  private raw(
    method: string,
    params: readonly unknown[],
    o: RpcSendOptions,
    timed: boolean,
  ): Promise<RpcCall> {
    const id = nextId++;
    const body = JSON.stringify({ jsonrpc: '2.0', id, method, params });
    return new Promise<RpcCall>((resolve) => {
      let t0 = Number.NaN;
      let connected = false;
      let done = false;
      let req: ClientRequest | undefined;
      const finish = (r: RpcCall) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        o.signal?.removeEventListener('abort', onAbort);
        resolve(r);
      };
      const failed = (reason: RpcFailureReason | 'key_refused') => {
        req?.destroy();
        finish({ ok: false, reason, ms: o.timeoutMs });
      };
      const timer = setTimeout(() => failed(connected ? 'timeout' : 'connect'), o.timeoutMs);
      const onAbort = () => failed('timeout');
      o.signal?.addEventListener('abort', onAbort, { once: true });
      const start = () => {
        connected = true;
        t0 = performance.now();
      };
      try {
        req = this.send(this.url, {
          method: 'POST',
          agent: this.agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        });
      } catch {
        finish({ ok: false, reason: 'connect', ms: o.timeoutMs });
        return;
      }
      req.on('socket', (s: Socket) => {
        // A connecting socket is timed from its connection (TLS: its handshake): connect is untimed.
        if (s.connecting) s.once(this.url.startsWith('https:') ? 'secureConnect' : 'connect', start);
        else start();
        if (!timed) this.checked = s;
      });
      req.on('error', (e: NodeJS.ErrnoException) => {
        if (tlsError(e)) failed('tls');
        // Refused, reset or dropped: the connection failed, before or during the exchange.
        else failed('connect');
      });
      req.on('response', (res: IncomingMessage) => this.read(res, id, o, finish, failed, () => t0));
      req.end(body);
    });
  }

  private read(
    res: IncomingMessage,
    id: number,
    o: RpcSendOptions,
    finish: (r: RpcCall) => void,
    failed: (reason: RpcFailureReason | 'key_refused') => void,
    startedAt: () => number,
  ): void {
    const status = res.statusCode ?? 0;
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        res.destroy();
        failed('malformed');
      } else chunks.push(c);
    });
    res.on('error', () => failed('connect'));
    res.on('end', () => {
      // In the simulator's backfill the declared delay is the answer's whole time: the real one is
      // loopback plus our own queueing, hundreds of probes at once, which is no provider's doing.
      const declared = Number(res.headers[SIM_DELAY_HEADER]);
      const ms =
        o.virtualLatency && Number.isFinite(declared) && declared >= 0
          ? declared
          : performance.now() - startedAt();
      if (ms >= o.timeoutMs) return failed('timeout');
      if (status === 401 || status === 403) return failed('key_refused');
      if (status === 429) return failed('http_429');
      if (status >= 500) return failed('http_5xx');
      if (status !== 200) return failed('http_other');
      let env: unknown;
      try {
        env = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return failed('malformed');
      }
      const r = parseEnvelope(env, id);
      if (typeof r === 'string') return failed(r);
      finish({ ok: true, ms, result: r.result, startedAt: startedAt() });
    });
  }
}

/** JSON-RPC 2.0 with our id, and either an error object or a result. */
function parseEnvelope(env: unknown, id: number): { readonly result: unknown } | RpcFailureReason {
  if (typeof env !== 'object' || env === null || Array.isArray(env)) return 'malformed';
  const e = env as { jsonrpc?: unknown; id?: unknown; result?: unknown; error?: unknown };
  if (e.jsonrpc !== '2.0' || e.id !== id) return 'malformed';
  if (e.error !== undefined && e.error !== null) return 'rpc_error';
  if (!('result' in e)) return 'malformed';
  return { result: e.result };
}
