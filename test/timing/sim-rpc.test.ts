import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { encodeAbiParameters, encodeFunctionData, keccak256, pad, parseAbi, toHex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerCalls } from '../../src/sim/rpc/answers.ts';
import { DEMO_REGIONS, SIM_RPC_PROVIDERS } from '../../src/sim/rpc/providers.ts';
import { type RpcSimulator, startRpcSimulator } from '../../src/sim/rpc/server.ts';
import { upstreamAgent, upstreamCall } from '../../src/sim/rpc/upstream.ts';
import { scaledBudget } from '../helpers/calibration.ts';
import { until } from '../helpers/until.ts';

const ANVIL = new URL('../../node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil', import.meta.url).pathname;
const TOKEN = '0x00000000000000000000000000000000000c0de1';
const EMITTER = '0x00000000000000000000000000000000000c0de2';
const HOLDER = '0x1111111111111111111111111111111111111111';
const TRANSFER = keccak256(toHex('Transfer(address,address,uint256)'));
const BALANCE_OF = encodeFunctionData({
  abi: parseAbi(['function balanceOf(address) view returns (uint256)']),
  args: [HOLDER],
});

interface RpcAnswer {
  jsonrpc?: string;
  id?: unknown;
  result?: unknown;
  error?: { code: number; message: string };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

async function post(url: string, body: unknown, signal?: AbortSignal): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
}

async function rpc(url: string, method: string, params: unknown[] = []): Promise<RpcAnswer> {
  const res = await post(url, { jsonrpc: '2.0', id: 7, method, params });
  return (await res.json()) as RpcAnswer;
}

/**
 * A call through a simulated provider until it answers 200 without a JSON-RPC error (the drawn
 * 5xx/429/rpc-error rates are ~1–2%, so six tries fail together about once in 10^10).
 */
async function rpcOk(url: string, method: string, params: unknown[] = []): Promise<RpcAnswer> {
  for (let i = 0; i < 6; i++) {
    const res = await post(url, { jsonrpc: '2.0', id: 7, method, params });
    const a = (res.status === 200 ? await res.json() : await res.arrayBuffer()) as RpcAnswer;
    if (res.status === 200 && a.error === undefined) return a;
  }
  throw new Error(`${method} failed six times in a row`);
}

/** The same, until the answer equals the node's (drawn wrong answers are ≤ 0.5%). */
async function rpcLikeNode(url: string, method: string, params: unknown[]): Promise<RpcAnswer> {
  const want = await rpc(node, method, params);
  let got: RpcAnswer = {};
  for (let i = 0; i < 6; i++) {
    got = await rpcOk(url, method, params);
    if (JSON.stringify(got) === JSON.stringify(want)) break;
  }
  return got;
}

let anvil: ChildProcess | undefined;
let node = '';
let sim: RpcSimulator | undefined;
let head = 0n;

beforeAll(async () => {
  const port = await freePort();
  anvil = spawn(ANVIL, ['--port', String(port), '--chain-id', '1', '--silent'], { stdio: 'ignore' });
  node = `http://127.0.0.1:${port}`;
  // Quiet, anvil answers within ~0.3 s; the bound (against a hang only) allows 100 times that.
  await until(
    async () => {
      try {
        return (await rpc(node, 'eth_chainId')).result === '0x1';
      } catch {
        return false;
      }
    },
    30_000,
    'anvil answering eth_chainId',
  );
  const erc20 = JSON.parse(
    readFileSync(new URL('../../node_modules/@uniswap/v2-core/build/ERC20.json', import.meta.url), 'utf8'),
  ) as { evm: { deployedBytecode: { object: string } } };
  await rpc(node, 'anvil_setCode', [TOKEN, `0x${erc20.evm.deployedBytecode.object}`]);
  // balanceOf is mapping slot 1 in UniswapV2ERC20.
  const slot = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [HOLDER, 1n]));
  await rpc(node, 'anvil_setStorageAt', [TOKEN, slot, pad(toHex(123_456_789n))]);
  // PUSH32 Transfer topic, PUSH1 0, PUSH1 0, LOG1, STOP: every call logs one Transfer.
  await rpc(node, 'anvil_setCode', [EMITTER, `0x7f${TRANSFER.slice(2)}60006000a100`]);
  const [from] = (await rpc(node, 'eth_accounts')).result as string[];
  for (let i = 0; i < 3; i++) await rpc(node, 'eth_sendTransaction', [{ from, to: EMITTER }]);
  await rpc(node, 'anvil_mine', ['0x12c']);
  head = BigInt((await rpc(node, 'eth_blockNumber')).result as string);
  sim = await startRpcSimulator({ seed: 7, upstream: { ethereum: node }, virtualLatency: true });
});

afterAll(async () => {
  await sim?.close();
  if (anvil && anvil.exitCode === null) {
    const exited = new Promise((r) => anvil?.once('exit', r));
    anvil.kill('SIGKILL');
    await exited;
  }
});

function s(): RpcSimulator {
  if (!sim) throw new Error('simulator not started');
  return sim;
}

describe('RPC simulator: a proxy to a real anvil', () => {
  it('answers every method the probe uses like the node (single and batch)', async () => {
    const at = toHex(head - 10n);
    const calls: [string, unknown[]][] = [
      ['eth_chainId', []],
      ['eth_getBalance', [HOLDER, at]],
      ['eth_call', [{ to: TOKEN, data: BALANCE_OF }, at]],
      ['eth_getLogs', [{ address: EMITTER, fromBlock: '0x0', toBlock: at, topics: [TRANSFER] }]],
      ['eth_getBlockByNumber', [at, false]],
    ];
    for (const provider of ['alchemy', 'ankr', 'tenderly']) {
      const url = s().urlFor('eu-west', provider, 'ethereum');
      for (const [method, params] of calls) {
        const got = await rpcLikeNode(url, method, params);
        expect(got, `${provider} ${method}`).toEqual(await rpc(node, method, params));
      }
    }
    const call = (await rpc(node, 'eth_call', [{ to: TOKEN, data: BALANCE_OF }, at])).result;
    expect(BigInt(call as string)).toBe(123_456_789n);
    const logs = (await rpc(node, 'eth_getLogs', [{ address: EMITTER, fromBlock: '0x0', toBlock: at }]))
      .result;
    expect(logs).toHaveLength(3);

    const want = [
      ['a', '0x1'],
      ['b', (await rpc(node, 'eth_getBalance', [HOLDER, at])).result],
    ];
    let got: unknown[] = [];
    for (let i = 0; i < 6 && JSON.stringify(got) !== JSON.stringify(want); i++) {
      const res = await post(s().urlFor('us-east', 'drpc', 'ethereum'), [
        { jsonrpc: '2.0', id: 'a', method: 'eth_chainId', params: [] },
        { jsonrpc: '2.0', id: 'b', method: 'eth_getBalance', params: [HOLDER, at] },
      ]);
      if (res.status !== 200) continue;
      got = ((await res.json()) as RpcAnswer[]).map((a) => [a.id, a.result]);
    }
    expect(got).toEqual(want);
  });

  it('refuses a wrong key with 401 without echoing it; unknown paths are 404 JSON', async () => {
    const good = s().urlFor('us-east', 'infura', 'ethereum');
    const wrong = good.replace(/[^/]+$/, 'canary-key-0xdeadbeef');
    const res = await post(wrong, { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] });
    expect(res.status).toBe(401);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ error: 'invalid api key' });
    expect(text).not.toContain('canary');
    expect(text).not.toContain(s().keys.infura as string);
    for (const bad of [
      good.replace('/infura/', '/nosuchprovider/'),
      good.replace('/us-east/', '/mars/'),
      good.replace('/ethereum/', '/solana/'),
    ]) {
      const r = await post(bad, { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] });
      expect(r.status).toBe(404);
      expect(r.headers.get('content-type')).toContain('application/json');
      expect(await r.json()).toEqual({ error: 'not found' });
    }
  });

  it('serves `latest` 0–3 blocks behind the node, as the drawn lag says', async () => {
    for (const provider of SIM_RPC_PROVIDERS) {
      const url = s().urlFor('ap-southeast', provider, 'ethereum');
      const n = BigInt((await rpcOk(url, 'eth_blockNumber')).result as string);
      expect(n, provider).toBeLessThanOrEqual(head);
      expect(n, provider).toBeGreaterThanOrEqual(head - 3n);
      // Every answer is within the lag bounds; a drawn non-canonical hash (≤ 0.3%) is retried.
      let matched = false;
      for (let i = 0; i < 6 && !matched; i++) {
        const block = (await rpcOk(url, 'eth_getBlockByNumber', ['latest', false])).result as {
          number: string;
          hash: string;
        };
        const num = BigInt(block.number);
        expect(num).toBeLessThanOrEqual(head);
        expect(num).toBeGreaterThanOrEqual(head - 3n);
        const canonical = (await rpc(node, 'eth_getBlockByNumber', [block.number, false])).result as {
          hash: string;
        };
        matched = block.hash === canonical.hash;
      }
      expect(matched, provider).toBe(true);
    }
    const lags = new Set(
      DEMO_REGIONS.flatMap((r) => SIM_RPC_PROVIDERS.map((p) => s().profileOf(r, p).headLag)),
    );
    expect(lags.size).toBeGreaterThan(1);
  });

  it('virtual mode answers at once with the drawn delay in x-sim-delay-ms', async () => {
    const url = s().urlFor('us-east', 'publicnode', 'ethereum');
    const t0 = performance.now();
    const res = await post(url, { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] });
    await res.json();
    // Quiet, the answer (a loopback hop to the simulator and one to anvil) takes 1–2 ms, against
    // drawn delays of 15–150 ms median; the budget allows 50 ms × the calibration's factor.
    expect(performance.now() - t0).toBeLessThan(scaledBudget(50));
    const delay = Number(res.headers.get('x-sim-delay-ms'));
    expect(delay).toBeGreaterThan(0);
  });

  it('drawn delays, errors and lags follow the profile over many requests', async () => {
    const url = s().urlFor('eu-west', 'quicknode', 'ethereum');
    const p = s().profileOf('eu-west', 'quicknode');
    const delays: number[] = [];
    const statuses: Record<number, number> = {};
    for (let i = 0; i < 1500; i++) {
      // Distinct questions: one question at one head always draws the same (determinism below).
      const who = `0x${i.toString(16).padStart(40, '0')}`;
      const res = await post(url, {
        jsonrpc: '2.0',
        id: i,
        method: 'eth_getBalance',
        params: [who, 'latest'],
      });
      await res.arrayBuffer();
      delays.push(Number(res.headers.get('x-sim-delay-ms')));
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    }
    delays.sort((a, b) => a - b);
    const median = delays[750] as number;
    expect(median).toBeGreaterThan(p.medianMs * 0.85);
    expect(median).toBeLessThan(p.medianMs * 1.15);
    expect(p.medianMs).toBeGreaterThanOrEqual(15);
    expect(p.medianMs).toBeLessThanOrEqual(150);
    expect((statuses[200] ?? 0) / 1500).toBeGreaterThan(0.95);
    expect(Object.keys(statuses).every((c) => ['200', '429', '502', '503'].includes(c))).toBe(true);
  });

  it('draws are a function of the question and the head: repeatable in any order, new at a new head', async () => {
    const url = s().urlFor('us-east', 'alchemy', 'ethereum');
    const ask = async (id: number) => {
      const res = await post(url, { jsonrpc: '2.0', id, method: 'eth_blockNumber', params: [] });
      await res.arrayBuffer();
      return res.headers.get('x-sim-delay-ms');
    };
    const first = await ask(1);
    expect(await ask(99)).toBe(first);
    await post(node, { jsonrpc: '2.0', id: 1, method: 'anvil_mine', params: ['0x1'] }).then((r) =>
      r.arrayBuffer(),
    );
    const later = await Promise.all([ask(2), ask(3), ask(4)]);
    expect(new Set(later).size).toBe(1);
    const heads = [first];
    for (let i = 0; i < 5; i++) {
      await post(node, { jsonrpc: '2.0', id: 1, method: 'anvil_mine', params: ['0x1'] }).then((r) =>
        r.arrayBuffer(),
      );
      heads.push(await ask(10 + i));
    }
    expect(new Set(heads).size).toBeGreaterThan(1);
  });

  it('real mode sleeps the drawn delay: a same-seed virtual twin tells how long', async () => {
    const twin = await startRpcSimulator({ seed: 7, upstream: { ethereum: node }, virtualLatency: true });
    const live = await startRpcSimulator({ seed: 7, upstream: { ethereum: node } });
    try {
      for (let i = 0; i < 5; i++) {
        const body = { jsonrpc: '2.0', id: i, method: 'eth_blockNumber', params: [] };
        const v = await post(twin.urlFor('ap-southeast', 'chainstack', 'ethereum'), body);
        await v.arrayBuffer();
        const expected = Number(v.headers.get('x-sim-delay-ms'));
        const t0 = performance.now();
        const r = await post(live.urlFor('ap-southeast', 'chainstack', 'ethereum'), body);
        await r.arrayBuffer();
        const took = performance.now() - t0;
        expect(r.headers.get('x-sim-delay-ms')).toBeNull();
        expect(r.status).toBe(v.status);
        if (expected < 10_000) {
          expect(took).toBeGreaterThanOrEqual(expected - 1);
          // The drawn delay plus a margin: quiet, the answer comes 2–7 ms after it (the node is read
          // while the delay runs); the margin allows 40 ms × the calibration's factor.
          expect(took).toBeLessThan(expected + scaledBudget(40));
        }
      }
    } finally {
      await Promise.all([twin.close(), live.close()]);
    }
  });

  it('scripted faults: status, rpc-error, wrong-chain, reset', async () => {
    const url = s().urlFor('us-east', 'alchemy', 'ethereum');
    const body = { jsonrpc: '2.0', id: 3, method: 'eth_chainId', params: [] };
    s().setFault('alchemy', { kind: 'status', status: 503 });
    expect((await post(url, body)).status).toBe(503);
    s().setFault('alchemy', { kind: 'rpc-error' });
    const e = await post(url, body);
    expect(e.status).toBe(200);
    const ea = (await e.json()) as RpcAnswer;
    expect(ea.id).toBe(3);
    expect(ea.error?.code).toBeLessThan(0);
    s().setFault('alchemy', { kind: 'wrong-chain' });
    expect((await rpcOk(url, 'eth_chainId')).result).toBe('0x2');
    s().setFault('alchemy', { kind: 'reset' });
    await expect(post(url, body)).rejects.toThrow();
    s().setFault('alchemy', null);
    expect((await rpcOk(url, 'eth_chainId')).result).toBe('0x1');
    // Other providers never saw the faults.
    expect((await rpcOk(s().urlFor('us-east', 'ankr', 'ethereum'), 'eth_chainId')).result).toBe('0x1');
  });

  it('a stall is cut by the client abort, and close() ends at once with a stall in flight', async () => {
    const live = await startRpcSimulator({ seed: 7, upstream: { ethereum: node } });
    live.setFault('tenderly', { kind: 'stall' });
    const url = live.urlFor('us-east', 'tenderly', 'ethereum');
    const body = { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] };
    const ABORT_MS = 300;
    const t0 = performance.now();
    await expect(post(url, body, AbortSignal.timeout(ABORT_MS))).rejects.toThrow();
    // The abort plus a margin: quiet, the rejection comes ~2 ms after it, where a stall left alone
    // answers after 15 s; the margin allows 250 ms × the calibration's factor.
    expect(performance.now() - t0).toBeLessThan(ABORT_MS + scaledBudget(250));
    const inFlight = post(url, body).then(
      () => 'answered',
      () => 'failed',
    );
    // In flight once the simulator has counted it (the stall then holds it for 15 s).
    await until(() => live.stats().byProvider.tenderly === 2, 30_000, 'the second stalled request');
    const t1 = performance.now();
    await live.close();
    // "At once": quiet, close() takes ~0.5 ms; the budget allows 250 ms × the calibration's factor,
    // where waiting for the stall would take 15 s.
    expect(performance.now() - t1).toBeLessThan(scaledBudget(250));
    expect(await inFlight).toBe('failed');
    expect(live.stats().byProvider.tenderly).toBe(2);
  });

  it('an unreachable node is a 502 that names no address; setVirtualLatency toggles the header', async () => {
    const gone = await freePort();
    const dead = await startRpcSimulator({ seed: 7, upstream: { ethereum: `http://127.0.0.1:${gone}` } });
    try {
      dead.setVirtualLatency(true);
      const url = dead.urlFor('eu-west', 'infura', 'ethereum');
      const res = await post(url, { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] });
      expect([502, 503, 429]).toContain(res.status);
      expect(res.headers.get('x-sim-delay-ms')).not.toBeNull();
      expect(await res.text()).not.toContain(String(gone));
      dead.setVirtualLatency(false);
      const again = await post(url, { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] });
      await again.arrayBuffer();
      expect(again.headers.get('x-sim-delay-ms')).toBeNull();
    } finally {
      await dead.close();
    }
  });

  it('wrong answers and non-canonical heads rewrite the node answer the one way', async () => {
    const agent = upstreamAgent();
    try {
      const up = upstreamCall(node, agent);
      const at = toHex(head - 10n);
      const call = (method: string, params: unknown[]) => ({ jsonrpc: '2.0', id: 1, method, params });
      const draw = { delayMs: 0, stall: false, status: 200, lag: 0 };
      const bad = [{ rpcError: false, wrong: true, nonCanonical: true, pick: 0.5 }];
      const [bal] = await answerCalls([call('eth_getBalance', [HOLDER, at])], draw, bad, null, up);
      const real = (await rpc(node, 'eth_getBalance', [HOLDER, at])).result as string;
      expect(BigInt(bal?.result as string)).toBe(BigInt(real) + 1n);
      const [word] = await answerCalls(
        [call('eth_call', [{ to: TOKEN, data: BALANCE_OF }, at])],
        draw,
        bad,
        null,
        up,
      );
      expect(word?.result).toHaveLength(66);
      expect(BigInt(word?.result as string)).toBe(123_456_790n);
      const filter = { address: EMITTER, fromBlock: '0x0', toBlock: at };
      const [logs] = await answerCalls([call('eth_getLogs', [filter])], draw, bad, null, up);
      expect(logs?.result).toHaveLength(2);
      const [block] = await answerCalls(
        [call('eth_getBlockByNumber', ['latest', false])],
        draw,
        bad,
        null,
        up,
      );
      const canonical = (await rpc(node, 'eth_getBlockByNumber', ['latest', false])).result as {
        hash: string;
      };
      const served = block?.result as { hash: string; number: string };
      expect(served.hash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(served.hash).not.toBe(canonical.hash);
      // Explicit block numbers pass through unchanged, whatever the draw.
      const lagged = { ...draw, lag: 3 };
      const [exact] = await answerCalls([call('eth_getBlockByNumber', [at, false])], lagged, [], null, up);
      expect((exact?.result as { number?: string } | undefined)?.number).toBe(at);
    } finally {
      agent.destroy();
    }
  });

  it('the simulator proxies with well under 1 ms of overhead (p50, eth_blockNumber), scaled to this machine by a bare loopback hop', async () => {
    const url = s().urlFor('us-east', 'ankr', 'ethereum');
    const body = { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] };
    // One loopback hop on this machine, now: a bare node:http server answering fixed bytes. The
    // 1 ms target is the reference machine's (an idle 2-core VM: bare hop ~0.1 ms, overhead ~0.4 ms);
    // on a machine several times slower (CI on 2026-11-28: a CPU loop 20 times slower) the same
    // code measured 1.1 ms, so the bound grows with the hop and the calibration: 1 ms × the
    // calibration's factor or 8 hops, whichever is more.
    // A proxy that sleeps, retries or does quadratic work still fails it.
    const answer = JSON.stringify({ jsonrpc: '2.0', id: 1, result: '0x10' });
    const bare = createHttpServer({ keepAlive: true }, (req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(answer),
        });
        res.end(answer);
      });
    });
    await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
    const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/`;
    // A bare keep-alive node:http client, as the probe uses: fetch's own overhead would hide ours.
    const agent = upstreamAgent();
    const time = async (u: string) => {
      const call = upstreamCall(u, agent);
      const out: number[] = [];
      for (let i = 0; i < 300; i++) {
        const t0 = performance.now();
        await call(body);
        out.push(performance.now() - t0);
      }
      return out.sort((a, b) => a - b)[150] as number;
    };
    try {
      await time(url);
      const rounds: string[] = [];
      // Up to three rounds: one quiet round is the measurement; a busy machine spoils single ones.
      for (let round = 0; round < 3; round++) {
        const hop = await time(bareUrl);
        const direct = await time(node);
        const proxied = await time(url);
        const bound = Math.max(scaledBudget(1), 8 * hop);
        rounds.push(
          `direct ${direct.toFixed(3)} ms, proxied ${proxied.toFixed(3)} ms, bare hop ${hop.toFixed(3)} ms: overhead ${(proxied - direct).toFixed(3)} ms, bound ${bound.toFixed(3)} ms`,
        );
        console.log(`eth_blockNumber p50: ${rounds.at(-1)}`);
        if (proxied - direct < bound) return;
      }
      throw new Error(`proxy overhead over its bound in 3 rounds:\n${rounds.join('\n')}`);
    } finally {
      agent.destroy();
      await new Promise<void>((r) => bare.close(() => r()));
    }
  });
});
