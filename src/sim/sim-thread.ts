import { parentPort, workerData } from 'node:worker_threads';
import { startRpcSimulator } from './rpc/server.ts';
import { startSimulator } from './server.ts';
import type { SimThreadCall, SimThreadData, SimThreadReply } from './thread-protocol.ts';

/**
 * A simulator on a thread of its own (src/sim/threaded.ts starts it): the providers it plays are
 * remote services in a real deployment, so their work (parsing, drawing answers, proxying to the
 * nodes, writing responses) stays off the event loop that serves the API and times the probes.
 */
const data = (workerData as { data: SimThreadData }).data;
const port = parentPort;
if (!port) throw new Error('sim-thread runs as a worker thread');

/** The simulator's control methods this thread answers, by name. */
type Controls = Record<string, (...args: never[]) => unknown>;

async function start(): Promise<Controls & { close(): Promise<void> }> {
  if (data.kind === 'http') {
    const sim = await startSimulator(data.options);
    port?.postMessage({
      type: 'ready',
      info: { url: sim.url, baseUrls: sim.baseUrls, keys: sim.keys, expectedNetworks: sim.expectedNetworks },
    } satisfies SimThreadReply);
    return sim as unknown as Controls & { close(): Promise<void> };
  }
  // The node's head per chain, written by the thread that mines (a shared Float64Array, one slot
  // per chain in `chains` order; NaN while unknown), so a request's draws see the head it would
  // see in process.
  const heads = new Float64Array(data.heads);
  const slot = new Map(data.chains.map((c, i) => [c, i]));
  const sim = await startRpcSimulator({
    ...data.options,
    headOf: (chain) => {
      const i = slot.get(chain);
      const h = i === undefined ? Number.NaN : (heads[i] as number);
      return Number.isNaN(h) ? undefined : h;
    },
  });
  port?.postMessage({ type: 'ready', info: { url: sim.url, keys: sim.keys } } satisfies SimThreadReply);
  return sim as unknown as Controls & { close(): Promise<void> };
}

const started = start().catch((e: unknown) => {
  port.postMessage({ type: 'failed', message: (e as Error)?.message ?? String(e) } satisfies SimThreadReply);
  return null;
});

port.on('message', (m: SimThreadCall) => {
  void (async () => {
    const sim = await started;
    try {
      const fn = sim?.[m.method];
      if (!sim || typeof fn !== 'function') throw new Error(`simulator has no method ${m.method}`);
      const value = await (fn as (...a: unknown[]) => unknown).apply(sim, [...m.args]);
      port.postMessage({ type: 'result', id: m.id, value } satisfies SimThreadReply);
      if (m.method === 'close') port.close();
    } catch (e) {
      port.postMessage({
        type: 'error',
        id: m.id,
        message: (e as Error)?.message ?? String(e),
      } satisfies SimThreadReply);
    }
  })();
});
