import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChainHead } from '../../src/sim/chains/demo-chain.ts';
import { SIM_RPC_PROVIDERS } from '../../src/sim/rpc/providers.ts';
import { startSimulator } from '../../src/sim/server.ts';
import { startRpcSimulatorThread, startSimulatorThread } from '../../src/sim/threaded.ts';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

const mobulaListing = async (base: string, key: string) => {
  const r = await fetch(`${base}/api/1/blockchains`, { headers: { authorization: key } });
  return { status: r.status, body: await r.text() };
};

describe('the simulators on a thread of their own', () => {
  it('the HTTP simulator answers as in process, and a fault set is in place for the next request', async () => {
    const inProcess = await startSimulator({ seed: 5 });
    cleanup.push(() => inProcess.close());
    const threaded = await startSimulatorThread({ seed: 5 });
    cleanup.push(() => threaded.close());
    expect(threaded.keys).toEqual(inProcess.keys);
    expect(threaded.expectedNetworks).toEqual(inProcess.expectedNetworks);
    const key = threaded.keys.mobula ?? '';
    const there = await mobulaListing(threaded.baseUrls.mobula ?? '', key);
    expect(there).toEqual(await mobulaListing(inProcess.baseUrls.mobula ?? '', key));
    expect(there.status).toBe(200);
    // The call resolves once the thread applied it: the very next request sees it.
    await threaded.setFault('mobula', { kind: 'status', status: 503 });
    expect((await mobulaListing(threaded.baseUrls.mobula ?? '', key)).status).toBe(503);
    await threaded.setFault('mobula', null);
    expect((await mobulaListing(threaded.baseUrls.mobula ?? '', key)).status).toBe(200);
    const stats = await threaded.stats();
    expect(stats.byProvider.mobula).toBe(3);
    expect(stats.faults.mobula).toEqual({ 'status-503': 1 });
  });

  it('the RPC simulator proxies to its node from another thread, with the head the mining side publishes', async () => {
    // A node that answers every call with 0x64 and counts what it was asked.
    let asked = 0;
    const node: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        asked++;
        const calls = JSON.parse(body) as
          | Array<{ id: number; method: string }>
          | { id: number; method: string };
        const list = Array.isArray(calls) ? calls : [calls];
        const out = list.map((c) => ({ jsonrpc: '2.0', id: c.id, result: '0x64' }));
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(Array.isArray(calls) ? out : out[0]));
      });
    });
    await new Promise<void>((r) => node.listen(0, '127.0.0.1', () => r()));
    cleanup.push(() => new Promise<void>((r) => node.close(() => r())));
    const address = node.address();
    const nodeUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    const watchers: Array<(h: ChainHead) => void> = [];
    const chain = {
      chain: 'ethereum',
      watchHead(fn: (h: ChainHead) => void) {
        watchers.push(fn);
        fn({ number: 100, timestampMs: 0 });
        return () => undefined;
      },
    };
    const sim = await startRpcSimulatorThread(
      { seed: 3, upstream: { ethereum: nodeUrl }, virtualLatency: true },
      [chain],
    );
    cleanup.push(() => sim.close());
    expect(watchers).toHaveLength(1);
    const provider = SIM_RPC_PROVIDERS[0] as string;
    const url = sim.urlFor('eu-west', provider, 'ethereum');
    expect(url.startsWith(`${sim.url}/rpc/eu-west/${provider}/ethereum/`)).toBe(true);
    const ask = () =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
      });
    const r = await ask();
    expect(r.status).toBe(200);
    // Virtual latency: the drawn delay is a header, not a sleep.
    expect(Number(r.headers.get('x-sim-delay-ms'))).toBeGreaterThanOrEqual(0);
    const head = Number.parseInt(((await r.json()) as { result: string }).result, 16);
    // eth_blockNumber is answered from the head the shared array holds (100, less the provider's
    // drawn lag): the node is never asked for its head, which it would be without the array.
    expect(head).toBeLessThanOrEqual(100);
    expect(head).toBeGreaterThan(50);
    expect(asked).toBe(0);
    await sim.setFault(provider, { kind: 'status', status: 503 });
    expect((await ask()).status).toBe(503);
    expect((await sim.stats()).byProvider[provider]).toBe(2);
  });
});
