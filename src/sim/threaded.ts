import type { Worker } from 'node:worker_threads';
import { startTsWorker } from '../concurrency/ts-worker.ts';
import type { ChainHead } from './chains/demo-chain.ts';
import type { FaultMix, FaultSetting } from './faults.ts';
import { type RpcProfile, rpcProfile } from './profiles.ts';
import type { RpcFault } from './rpc/providers.ts';
import { type RpcSimulatorOptions, rpcEndpoint } from './rpc/server.ts';
import type { SimulatorStats } from './server.ts';
import type {
  SimThreadCall,
  SimThreadData,
  SimThreadReply,
  ThreadedSimulatorOptions,
} from './thread-protocol.ts';

/**
 * The simulators on threads of their own (src/sim/sim-thread.ts), for the demo: in a real
 * deployment the providers are remote, so the work of playing them must not share the event loop
 * that serves the API and times the probes. Each control call is a message answered once the
 * simulator applied it, so a fault set before a cycle is in place before the cycle's first request.
 */
interface SimThread {
  readonly info: Readonly<Record<string, unknown>>;
  call(method: string, ...args: unknown[]): Promise<unknown>;
  close(): Promise<void>;
}

function startSimThread(data: SimThreadData): Promise<SimThread> {
  const worker: Worker = startTsWorker(import.meta.url, 'sim-thread', data);
  // Not a reason to keep the process alive: the service stops it with close().
  worker.unref();
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  let exited: Error | null = null;
  const failAll = (e: Error) => {
    exited = e;
    for (const p of pending.values()) p.reject(e);
    pending.clear();
  };
  return new Promise((resolve, reject) => {
    worker.on('error', (e) => {
      failAll(e);
      reject(e);
    });
    worker.on('exit', (code) => failAll(new Error(`simulator thread exited (${code})`)));
    worker.on('message', (m: SimThreadReply) => {
      if (m.type === 'ready') {
        const call = (method: string, ...args: unknown[]): Promise<unknown> => {
          if (exited) return Promise.reject(exited);
          const id = nextId++;
          return new Promise((res, rej) => {
            pending.set(id, { resolve: res, reject: rej });
            worker.postMessage({ id, method, args } satisfies SimThreadCall);
          });
        };
        resolve({
          info: m.info,
          call,
          async close() {
            if (exited) return;
            // The simulator closes its sockets first; the thread then ends with nothing in flight.
            await call('close').catch(() => undefined);
            await worker.terminate();
          },
        });
      } else if (m.type === 'failed') {
        void worker.terminate();
        reject(new Error(m.message));
      } else {
        const p = pending.get(m.id);
        pending.delete(m.id);
        if (m.type === 'result') p?.resolve(m.value);
        else p?.reject(new Error(m.message));
      }
    });
  });
}

/** The HTTP simulator (every listing and trade provider) on its own thread. */
export interface ThreadedSimulator {
  readonly url: string;
  readonly baseUrls: Readonly<Record<string, string>>;
  readonly keys: Readonly<Record<string, string>>;
  readonly expectedNetworks: Readonly<Record<string, number>>;
  setFault(provider: string, fault: FaultSetting | null): Promise<void>;
  setFaultMix(mix: FaultMix | null): Promise<void>;
  stats(): Promise<SimulatorStats>;
  close(): Promise<void>;
}

export async function startSimulatorThread(options: ThreadedSimulatorOptions): Promise<ThreadedSimulator> {
  const t = await startSimThread({ kind: 'http', options });
  const info = t.info as Pick<ThreadedSimulator, 'url' | 'baseUrls' | 'keys' | 'expectedNetworks'>;
  return {
    url: info.url,
    baseUrls: info.baseUrls,
    keys: info.keys,
    expectedNetworks: info.expectedNetworks,
    setFault: async (provider, fault) => void (await t.call('setFault', provider, fault)),
    setFaultMix: async (mix) => void (await t.call('setFaultMix', mix)),
    stats: async () => (await t.call('stats')) as SimulatorStats,
    close: () => t.close(),
  };
}

/** A chain whose head the RPC simulator's thread must see: the demo's chains. */
export interface WatchedChain {
  readonly chain: string;
  watchHead(fn: (head: ChainHead) => void): () => void;
}

/** The RPC simulator (every RPC provider in every demo region) on its own thread. */
export interface ThreadedRpcSimulator {
  readonly url: string;
  readonly keys: Readonly<Record<string, string>>;
  urlFor(region: string, provider: string, chain: string): string;
  profileOf(region: string, provider: string): RpcProfile;
  setVirtualLatency(on: boolean): Promise<void>;
  setFault(provider: string, fault: RpcFault | null): Promise<void>;
  stats(): Promise<{ requests: number; byProvider: Record<string, number> }>;
  close(): Promise<void>;
}

/**
 * Each chain's head is shared with the thread through a Float64Array the mining side writes as
 * each block is mined, so a request's draws see the same head as they would in process.
 */
export async function startRpcSimulatorThread(
  options: Omit<RpcSimulatorOptions, 'headOf'>,
  chains: readonly WatchedChain[],
): Promise<ThreadedRpcSimulator> {
  const heads = new SharedArrayBuffer(Float64Array.BYTES_PER_ELEMENT * Math.max(1, chains.length));
  const view = new Float64Array(heads).fill(Number.NaN);
  const unwatch = chains.map((c, i) => c.watchHead((h) => (view[i] = h.number)));
  let t: SimThread;
  try {
    t = await startSimThread({ kind: 'rpc', options, chains: chains.map((c) => c.chain), heads });
  } catch (e) {
    for (const u of unwatch) u();
    throw e;
  }
  const url = t.info.url as string;
  return {
    url,
    keys: t.info.keys as Readonly<Record<string, string>>,
    urlFor: (region, provider, chain) => rpcEndpoint(url, region, provider, chain),
    profileOf: (region, provider) => rpcProfile(options.seed, provider, region),
    setVirtualLatency: async (on) => void (await t.call('setVirtualLatency', on)),
    setFault: async (provider, fault) => void (await t.call('setFault', provider, fault)),
    stats: async () => (await t.call('stats')) as { requests: number; byProvider: Record<string, number> },
    async close() {
      for (const u of unwatch) u();
      await t.close();
    },
  };
}
