/**
 * What the json-rpc probe adds to a request's time (issue 22 target: p99 < 2 ms), against a bare
 * Node keep-alive client, on one real anvil node, in one run: the two clients alternate request by
 * request for each method, so both see the same node and machine state.
 *
 * Run: npx tsx bench/rpc-probe-overhead.ts [requests per method, default 2000]
 */
import { Agent, request } from 'node:http';
import { RpcConnection } from '../src/harness/families/json-rpc/client.ts';
import { PROBE_ACCOUNTS, requestOf } from '../src/harness/families/json-rpc/methods.ts';
import { RPC_KINDS } from '../src/harness/families/json-rpc/metrics.ts';
import { REFERENCE_TOKENS } from '../src/harness/tokens.ts';
import { startDemoChains } from '../src/sim/chains/index.ts';

const N = Number(process.argv[2] ?? 2000);
const now = Date.now();
const [chain] = await startDemoChains({ seed: 9, origin: now - 200 * 12_000, chains: ['ethereum'] });
if (!chain) throw new Error('no chain');
await chain.buildTo(now);
const url = chain.node.url;
const token = REFERENCE_TOKENS.find((t) => t.chain === 'ethereum')?.address ?? '';
const pinned = chain.head().number - 10;

const agent = new Agent({ keepAlive: true, maxSockets: 1 });
function bare(body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = request(url, {
      method: 'POST',
      agent,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    req.on('response', (res) => {
      res.on('data', () => {});
      res.on('end', () => resolve(performance.now() - t0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const q = (a: number[], p: number) => {
  const s = [...a].sort((x, y) => x - y);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? Number.NaN;
};
const rows: string[] = [];
for (const kind of RPC_KINDS) {
  const r = requestOf(kind, token, pinned, { account: PROBE_ACCOUNTS[0], logBlocks: 100 });
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: r.method, params: r.params });
  const conn = new RpcConnection(url, '0x1');
  const ours: number[] = [];
  const base: number[] = [];
  for (let i = 0; i < N + 100; i++) {
    const a = await bare(body);
    const b = await conn.call(r.method, r.params, { timeoutMs: 10_000 });
    if (!b.ok) throw new Error(`${kind}: ${b.reason}`);
    if (i >= 100) {
      base.push(a);
      ours.push(b.ms);
    }
  }
  conn.close();
  const cell = (p: number) =>
    `${q(base, p).toFixed(3)} / ${q(ours, p).toFixed(3)} / ${(q(ours, p) - q(base, p)).toFixed(3)}`;
  rows.push(`| ${kind} | ${cell(0.5)} | ${cell(0.9)} | ${cell(0.99)} |`);
}
agent.destroy();
await chain.stop();
console.log(`${N} requests per method on one anvil; ms: bare / probe / added`);
console.log('| method | p50 | p90 | p99 |\n| --- | --- | --- | --- |');
for (const r of rows) console.log(r);
