import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { listenLoopback } from '../listen.ts';
import { hashInts, hashString, rng } from '../prng.ts';
import { type RpcProfile, rpcProfile } from '../profiles.ts';
import { answerCalls } from './answers.ts';
import { drawCall, drawRequest } from './draws.ts';
import { DEMO_REGIONS, type RpcFault, SIM_RPC_KEYS, SIM_RPC_PROVIDERS } from './providers.ts';
import { forward, type RpcMessage, type UpstreamCall, upstreamAgent, upstreamCall } from './upstream.ts';

export interface RpcSimulatorOptions {
  seed: number;
  /** chain → upstream node URL (e.g. { ethereum: 'http://127.0.0.1:8545' }). */
  upstream: Readonly<Record<string, string>>;
  port?: number;
  /** Backfill mode: no sleeping; each answer carries `x-sim-delay-ms: <drawn ms>` instead. */
  virtualLatency?: boolean;
  /**
   * The upstream's head block number per chain, when the caller mines the chains itself (the demo,
   * in-process): saves asking the node once per request. Without it the node is asked.
   */
  headOf?: (chain: string) => number | undefined;
}

export interface RpcSimulator {
  readonly url: string;
  /** The endpoint of one provider, region and chain; contains the provider's key as the last path segment. */
  urlFor(region: string, provider: string, chain: string): string;
  readonly keys: Readonly<Record<string, string>>;
  /** The behaviour drawn for a provider in a region (the same for the same seed). */
  profileOf(region: string, provider: string): RpcProfile;
  setVirtualLatency(on: boolean): void;
  /** Scripted faults for tests and the demo's incidents: every request of that provider answers this. */
  setFault(provider: string, fault: RpcFault | null): void;
  stats(): { requests: number; byProvider: Record<string, number> };
  close(): Promise<void>;
}

/** The endpoint of one provider, region and chain on a simulator at `url`: its key is the last segment. */
export function rpcEndpoint(url: string, region: string, provider: string, chain: string): string {
  return `${url}/rpc/${region}/${provider}/${chain}/${SIM_RPC_KEYS[provider] ?? ''}`;
}

/** A provider in a region: its drawn profile (per-request draws: requestStream). */
interface Stream {
  readonly profile: RpcProfile;
}

const JSON_HEADERS = { 'content-type': 'application/json' } as const;
const BODY_CAP = 1 << 20;

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.destroyed || res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { ...JSON_HEADERS, 'content-length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const c of req) {
    n += (c as Buffer).length;
    if (n > BODY_CAP) return null;
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Non-2xx bodies of the simulated providers: short and fixed, never echoing the request. */
function statusBody(status: number): unknown {
  if (status === 429) return { jsonrpc: '2.0', id: null, error: { code: -32005, message: 'rate limited' } };
  return { error: status >= 500 ? 'service unavailable' : 'request failed' };
}

/**
 * Plays the RPC providers in every demo region by proxying JSON-RPC to one real node per chain,
 * adding latency, errors, head lag and wrong answers drawn per (provider, region) from the seed.
 */
export async function startRpcSimulator(opts: RpcSimulatorOptions): Promise<RpcSimulator> {
  const agent = upstreamAgent();
  const upstreams = new Map<string, UpstreamCall>(
    Object.entries(opts.upstream).map(([chain, u]) => [chain, upstreamCall(u, agent)]),
  );
  const streams = new Map<string, Stream>();
  const faults = new Map<string, RpcFault>();
  const sockets = new Set<Socket>();
  const timers = new Set<() => void>();
  const byProvider: Record<string, number> = {};
  let requests = 0;
  let virtual = opts.virtualLatency ?? false;
  let closed = false;

  function streamOf(region: string, provider: string): Stream {
    const k = `${region}|${provider}`;
    let s = streams.get(k);
    if (!s) {
      s = { profile: rpcProfile(opts.seed, provider, region) };
      streams.set(k, s);
    }
    return s;
  }

  /**
   * A request's draws are a pure function of the seed, who is asked (region, provider, chain), the
   * question (methods and parameters, ids aside) and the node's head when it is asked. So a
   * backfill, whose requests run concurrently in any order, draws the same answers every run (the
   * golden corpus hashes them), and the same question asked at a new head draws anew.
   */
  async function requestStream(
    region: string,
    provider: string,
    chain: string,
    calls: readonly unknown[],
    call: UpstreamCall,
  ): Promise<() => number> {
    const known = opts.headOf?.(chain);
    let head = known === undefined ? '' : `0x${known.toString(16)}`;
    if (known === undefined) {
      const [h] = await forward(call, [{ jsonrpc: '2.0', method: 'eth_blockNumber', params: [] }]).catch(
        () => [],
      );
      head = typeof h?.result === 'string' ? h.result : '';
    }
    const question = JSON.stringify(
      calls.map((c) =>
        typeof c === 'object' && c !== null ? [(c as RpcMessage).method, (c as RpcMessage).params] : c,
      ),
    );
    return rng(hashInts(opts.seed, hashString(`${region}|${provider}|${chain}|${question}|${head}`), 0x5eed));
  }

  /** Resolves after `ms`, or early once the client goes away or the simulator closes. */
  function wait(ms: number, res: ServerResponse): Promise<void> {
    if (ms <= 0 || closed) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(t);
        res.off('close', done);
        timers.delete(done);
        resolve();
      };
      const t = setTimeout(done, ms);
      res.on('close', done);
      timers.add(done);
    });
  }

  async function onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const parts = (req.url ?? '/').split('?')[0]?.split('/') ?? [];
    const [, root, region = '', provider = '', chain = '', key, ...rest] = parts;
    const upstream = upstreams.get(chain);
    if (
      root !== 'rpc' ||
      rest.length > 0 ||
      !DEMO_REGIONS.includes(region) ||
      !SIM_RPC_PROVIDERS.includes(provider) ||
      !upstream
    ) {
      return send(res, 404, { error: 'not found' });
    }
    requests++;
    byProvider[provider] = (byProvider[provider] ?? 0) + 1;
    if (key !== SIM_RPC_KEYS[provider]) return send(res, 401, { error: 'invalid api key' });
    if (req.method !== 'POST') return send(res, 405, { error: 'method not allowed' }, { allow: 'POST' });
    const raw = await readBody(req);
    if (raw === null) return send(res, 413, { error: 'request too large' });
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw) as unknown;
    } catch {
      return send(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } });
    }
    const batch = Array.isArray(parsed);
    const calls: unknown[] = batch ? (parsed as unknown[]) : [parsed];
    if (calls.length === 0) {
      return send(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'empty batch' } });
    }

    const { profile } = streamOf(region, provider);
    const next = await requestStream(region, provider, chain, calls, upstream as UpstreamCall);
    const drawn = drawRequest(profile, next);
    const perCall = calls.map(() => drawCall(profile, next));
    const fault = faults.get(provider) ?? null;
    const stall = drawn.stall || fault?.kind === 'stall';
    const delayMs = fault?.kind === 'stall' ? 15_000 : drawn.delayMs;
    const status = fault?.kind === 'status' ? fault.status : drawn.status;
    const headers: Record<string, string> = virtual ? { 'x-sim-delay-ms': String(delayMs) } : {};

    if (fault?.kind === 'reset') {
      req.socket.resetAndDestroy();
      return;
    }
    if (stall || status !== 200) {
      if (!virtual) await wait(delayMs, res);
      if (stall && (closed || res.destroyed)) return;
      return status !== 200 ? send(res, status, statusBody(status), headers) : answer();
    }
    return answer();

    async function answer(): Promise<void> {
      // The node is read while the drawn delay runs: the delay is the provider's whole time,
      // so loopback forwarding does not add to it.
      const [answers] = await Promise.all([
        answerCalls(calls, drawn, perCall, fault, upstream as UpstreamCall, opts.headOf?.(chain)).catch(
          () => null,
        ),
        virtual || stall ? Promise.resolve() : wait(delayMs, res),
      ]);
      if (closed) return;
      // Node down or unreadable: a gateway error, without the node's address or text.
      if (!answers) return send(res, 502, { error: 'upstream unavailable' }, headers);
      send(res, 200, batch ? answers : answers[0], headers);
    }
  }

  const server = createServer({ keepAlive: true }, (req, res) => {
    onRequest(req, res).catch(() => {
      if (!res.headersSent) send(res, 500, { error: 'simulator error' });
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 65_000;
  const url = await listenLoopback(server, sockets, opts.port);

  return {
    url,
    urlFor: (region, provider, chain) => rpcEndpoint(url, region, provider, chain),
    keys: SIM_RPC_KEYS,
    profileOf: (region, provider) => streamOf(region, provider).profile,
    setVirtualLatency(on) {
      virtual = on;
    },
    setFault(provider, fault) {
      if (fault) faults.set(provider, fault);
      else faults.delete(provider);
    },
    stats: () => ({ requests, byProvider: { ...byProvider } }),
    async close() {
      closed = true;
      for (const done of [...timers]) done();
      for (const s of sockets) s.destroy();
      agent.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
