import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ChainTradeIndex } from './chain-trades.ts';
import { type Fault, type FaultMix, type FaultSetting, faultLabel } from './faults.ts';
import { handle, type SimData, type SimRequest, tradeChainOf } from './handlers.ts';
import { checkAuth, errorBody, SIM_API_KEYS } from './keys.ts';
import { listenLoopback } from './listen.ts';
import { buildListings } from './networks.ts';
import { rng } from './prng.ts';
import { type ChainFaultProfile, captureProfiles, chainFaultProfiles } from './profiles.ts';
import { demoChainIndex, TradeSources } from './trade-source.ts';
import { defaultTradesPerHour, type TradeModel } from './trades.ts';

export { defaultTradesPerHour };

export const SIM_PROVIDERS = [
  'geckoterminal',
  'codex',
  'mobula',
  'coinpaprika',
  'covalent',
  'coinstats',
  'sim-dune',
  'coingecko',
  'bitquery',
] as const;

export interface SimulatorOptions {
  readonly seed: number;
  readonly port?: number;
  /** Latency added to every request (simulated network + provider time). */
  readonly latencyMs?: number;
  readonly faults?: Readonly<Record<string, FaultSetting>>;
  /** Random faults at a rate, on top of (and below) the per-provider ones. */
  readonly faultMix?: FaultMix;
  /** Mean distinct transactions per hour per token; a number applies to every token. */
  readonly tradesPerHour?: number | ((chain: string, address: string) => number);
  readonly capture?: Readonly<Record<string, readonly [number, number]>>;
  /**
   * Demo chains (src/sim/chains) whose Swap logs Mobula, Codex and Bitquery answer from, for
   * windows inside the node's retained history. Omitted (tests, benches): the model answers all.
   */
  readonly chains?: readonly { readonly chain: string; readonly url: string }[];
  /** Faults of the chain answers per provider; default drawn from the seed (chainFaultProfile). */
  readonly chainFaults?: Readonly<Record<string, ChainFaultProfile>>;
}

export interface SimulatorStats {
  readonly requests: number;
  readonly byProvider: Readonly<Record<string, number>>;
  /** Total latency the simulator added, summed over requests (ms). */
  readonly latencyMs: number;
  /** Faults injected, by provider then fault label (`status-503`, `reset`, …). */
  readonly faults: Readonly<Record<string, Readonly<Record<string, number>>>>;
}

export interface Simulator {
  readonly url: string;
  readonly baseUrls: Readonly<Record<string, string>>;
  /** The keys the simulator accepts, by provider. */
  readonly keys: Readonly<Record<string, string>>;
  /** Networks counted per provider under the counting rule: the ground truth for tests. */
  readonly expectedNetworks: Readonly<Record<string, number>>;
  setFault(provider: string, fault: FaultSetting | null): void;
  /** Replaces the random fault mix (null stops it). */
  setFaultMix(mix: FaultMix | null): void;
  stats(): SimulatorStats;
  close(): Promise<void>;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

async function readBody(req: IncomingMessage, cap: number): Promise<string | null> {
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const c of req) {
    n += (c as Buffer).length;
    if (n > cap) return null;
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** One local HTTP server speaking every provider's wire format under /<provider-slug>/… */
export async function startSimulator(opts: SimulatorOptions): Promise<Simulator> {
  const listings = buildListings(opts.seed);
  const tph = opts.tradesPerHour ?? defaultTradesPerHour(opts.seed);
  const model: TradeModel = {
    seed: opts.seed,
    tradesPerHour: typeof tph === 'number' ? () => tph : tph,
    capture: opts.capture ?? captureProfiles(opts.seed, SIM_PROVIDERS),
  };
  const indexes = new Map<string, ChainTradeIndex>(
    (opts.chains ?? []).map((c) => [c.chain, demoChainIndex(c.chain, c.url)]),
  );
  const chainFaults = opts.chainFaults ?? chainFaultProfiles(opts.seed, SIM_PROVIDERS);
  const sources = indexes.size > 0 ? new TradeSources(model, indexes, chainFaults) : undefined;
  const data: SimData = { listings, model, ...(sources ? { sources } : {}) };
  const faults = new Map<string, { fault: Fault; remaining: number }>();
  for (const [p, f] of Object.entries(opts.faults ?? {})) setFault(p, f);
  let mix: { spec: FaultMix; draw: () => number } | null = null;
  setFaultMix(opts.faultMix ?? null);
  const injected: Record<string, Record<string, number>> = {};
  const sockets = new Set<Socket>();
  const byProvider: Record<string, number> = {};
  let requests = 0;
  let latencyTotal = 0;
  let closed = false;
  let url = '';

  function setFault(provider: string, fault: FaultSetting | null): void {
    if (!fault) faults.delete(provider);
    else faults.set(provider, { fault, remaining: fault.times ?? Number.POSITIVE_INFINITY });
  }

  function setFaultMix(m: FaultMix | null): void {
    if (m && (!(m.rate >= 0 && m.rate <= 1) || m.faults.length === 0)) {
      throw new RangeError('fault mix needs a rate in [0, 1] and at least one fault');
    }
    mix = m ? { spec: m, draw: rng(m.seed ?? opts.seed) } : null;
  }

  function count(provider: string, f: Fault | null): Fault | null {
    if (f) {
      const byLabel = injected[provider] ?? {};
      injected[provider] = byLabel;
      const label = faultLabel(f);
      byLabel[label] = (byLabel[label] ?? 0) + 1;
    }
    return f;
  }

  function takeFault(provider: string): Fault | null {
    const f = faults.get(provider);
    if (f) {
      if (--f.remaining <= 0) faults.delete(provider);
      return count(provider, f.fault);
    }
    if (!mix || (mix.spec.providers && !mix.spec.providers.includes(provider))) return null;
    // Two draws per request whatever the outcome, so one seed gives one fault sequence.
    const hit = mix.draw() < mix.spec.rate;
    const pick = mix.spec.faults[Math.floor(mix.draw() * mix.spec.faults.length)] ?? null;
    return hit ? count(provider, pick) : null;
  }

  function send(
    res: ServerResponse,
    status: number,
    text: string,
    headers: Record<string, string> = {},
  ): void {
    if (res.destroyed) return;
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(text)),
      ...headers,
    });
    res.end(text);
  }

  async function streamOversized(res: ServerResponse, bytes: number): Promise<void> {
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.from(`${'"padding-padding-padding-padding",'.repeat(2000)}`);
    res.write('{"data":[');
    for (let sent = 0; sent < bytes && !res.destroyed && !closed; sent += chunk.length) {
      if (!res.write(chunk)) {
        await new Promise<void>((resolve) => {
          const done = () => {
            res.off('drain', done).off('close', done);
            resolve();
          };
          res.on('drain', done).on('close', done);
        });
      }
    }
    if (!res.destroyed) res.end('"end"]}');
  }

  /** Status line, headers and the first `afterBytes` bytes, then a TCP reset. */
  function resetMidBody(res: ServerResponse, text: string, afterBytes: number): void {
    const buf = Buffer.from(text);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(buf.length) });
    res.write(buf.subarray(0, Math.max(1, Math.min(afterBytes, buf.length - 1))), () =>
      res.socket?.resetAndDestroy(),
    );
  }

  /** The real body, a few bytes at a time: alive but never done within a client's total timeout. */
  async function drip(res: ServerResponse, text: string, perTick: number, intervalMs: number): Promise<void> {
    const buf = Buffer.from(text);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(buf.length) });
    for (let i = 0; i < buf.length; i += perTick) {
      if (res.destroyed || closed) return;
      res.write(buf.subarray(i, i + perTick));
      await sleep(intervalMs);
    }
    if (!res.destroyed) res.end();
  }

  async function onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const u = new URL(req.url ?? '/', 'http://sim');
    const m = /^\/([a-z0-9-]+)(\/.*)?$/.exec(u.pathname);
    const provider = m?.[1] ?? '';
    if (!(SIM_PROVIDERS as readonly string[]).includes(provider)) {
      return send(res, 404, JSON.stringify({ message: 'unknown provider' }));
    }
    requests++;
    byProvider[provider] = (byProvider[provider] ?? 0) + 1;
    const raw = req.method === 'POST' ? await readBody(req, 1 << 20) : '';
    if (raw === null) return send(res, 413, JSON.stringify(errorBody(provider, 413, 'Payload Too Large')));
    const fault = takeFault(provider);
    const delay = (opts.latencyMs ?? 0) + (fault?.kind === 'latency' ? fault.ms : 0);
    if (delay > 0) {
      latencyTotal += delay;
      await sleep(delay);
    }
    if (fault?.kind === 'hang') return; // the socket stays open until the client aborts or close()
    if (fault?.kind === 'reset' && fault.afterBytes === undefined) {
      req.socket.resetAndDestroy();
      return;
    }
    if (fault?.kind === 'status') {
      const headers: Record<string, string> =
        fault.status === 429 ? { 'retry-after': String(fault.retryAfterSec ?? 1) } : {};
      const msg =
        fault.status === 429 ? 'Too Many Requests' : fault.status >= 500 ? 'Internal Server Error' : 'Error';
      const body = fault.status === 401 ? (checkAuth(provider, {}) as { body?: unknown }).body : undefined;
      return send(res, fault.status, JSON.stringify(body ?? errorBody(provider, fault.status, msg)), headers);
    }
    if (fault?.kind === 'oversized') return streamOversized(res, fault.bytes ?? 64 * 1024 * 1024);
    const auth = checkAuth(provider, req.headers);
    if (!auth.ok) return send(res, auth.status, JSON.stringify(auth.body));
    let body: unknown = null;
    if (raw) {
      try {
        body = JSON.parse(raw) as unknown;
      } catch {
        return send(res, 400, JSON.stringify(errorBody(provider, 400, 'Invalid JSON body')));
      }
    }
    const simReq: SimRequest = {
      provider,
      method: req.method ?? 'GET',
      path: m?.[2] ?? '/',
      query: u.searchParams,
      body,
      base: `${url}/${provider}`,
      fault,
    };
    const tradeChain = sources ? tradeChainOf(simReq) : null;
    const index = tradeChain ? indexes.get(tradeChain) : undefined;
    // A node error leaves the index as it was (kept in its lastError): the answer then lags, as a
    // provider's indexer does when its node is down.
    if (index) await index.sync().catch(() => {});
    if (closed) return;
    const out = handle(simReq, data);
    let text = out.text ?? JSON.stringify(out.body);
    if (out.status === 200 && fault?.kind === 'malformed')
      text = `{"data":[{"id":1,,]<html>502 Bad Gateway</html>`;
    if (out.status === 200 && fault?.kind === 'wrong-shape')
      text = JSON.stringify({ result: 'moved', items: 'none' });
    if (out.status === 200 && fault?.kind === 'truncated') text = text.slice(0, Math.floor(text.length / 2));
    if (out.status === 200 && fault?.kind === 'reset') return resetMidBody(res, text, fault.afterBytes ?? 0);
    if (out.status === 200 && fault?.kind === 'slow-drip') {
      return drip(res, text, fault.bytesPerTick ?? 16, fault.intervalMs ?? 250);
    }
    send(res, out.status, text, { ...out.headers });
  }

  const server = createServer((req, res) => {
    onRequest(req, res).catch((e: unknown) => {
      if (!res.headersSent)
        send(res, 500, JSON.stringify({ message: `simulator error: ${(e as Error).message}` }));
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 30_000;
  url = await listenLoopback(server, sockets, opts.port);
  const baseUrls = Object.fromEntries(SIM_PROVIDERS.map((p) => [p, `${url}/${p}`]));

  return {
    url,
    baseUrls,
    keys: SIM_API_KEYS,
    expectedNetworks: listings.expected,
    setFault,
    setFaultMix,
    stats: () => ({
      requests,
      byProvider: { ...byProvider },
      latencyMs: latencyTotal,
      faults: Object.fromEntries(Object.entries(injected).map(([p, c]) => [p, { ...c }])),
    }),
    async close() {
      closed = true;
      for (const i of indexes.values()) i.close();
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
