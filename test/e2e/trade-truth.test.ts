import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DigestSet } from '../../src/harness/digest-set.ts';
import { dexDeployment } from '../../src/harness/families/trade-capture/dexes.ts';
import {
  discoverPools,
  memoryPoolCache,
  poolCacheKey,
} from '../../src/harness/families/trade-capture/pools.ts';
import { createTruthReader, type Truth } from '../../src/harness/families/trade-capture/truth.ts';
import { ReferenceRpc } from '../../src/harness/reference-rpc.ts';
import { deployV2Dex, startTestAnvil, type TestAnvil, type V2Dex } from '../helpers/v2-dex.ts';

/** Real anvil nodes (automine off, blocks sealed at chosen timestamps) and real HTTP servers. */
const nodes: TestAnvil[] = [];
const servers: Server[] = [];
afterAll(async () => {
  await Promise.allSettled(nodes.map((n) => n.stop()));
  await Promise.allSettled(servers.map((s) => new Promise((r) => s.close(r))));
});

const GENESIS = 1_767_225_600; // 2026-01-01T00:00:00Z

function dexOf(d: V2Dex) {
  return dexDeployment('anvil', 'uniswap-v2', 'uniswap-v2', d.factory, d.factoryBlock, 'test');
}

function hashesOf(t: Truth, which: 'all' | 'finalized', candidates: readonly string[]): string[] {
  if (t.status !== 'ok') throw new Error(`${t.reason}: ${t.message}`);
  const set: DigestSet = t[which];
  return candidates.filter((h) => set.has(h.toLowerCase()));
}

describe('the truth reader on a V2 DEX', () => {
  let dex: V2Dex;
  const sent: Record<string, string> = {};
  let startMs = 0;
  let endMs = 0;
  let edge = { fromBlock: 0, toBlock: 0 };

  beforeAll(async () => {
    const node = await startTestAnvil({ genesisSec: GENESIS });
    nodes.push(node);
    dex = await deployV2Dex(node);
    const { tkn, weth, quote } = dex;
    const start = dex.clockSec + 120;
    const end = start + 60;
    startMs = start * 1000;
    endMs = end * 1000;
    sent.before = (await dex.block([{ kind: 'swap', path: [tkn, weth] }], start - 1)).hashes[0] as string;
    const first = await dex.block([{ kind: 'swap', path: [tkn, quote] }], start);
    sent.atStart = first.hashes[0] as string;
    const mixed = await dex.block(
      [
        { kind: 'swap', path: [tkn, weth, quote] },
        { kind: 'transfer' },
        { kind: 'revert', path: [tkn, weth] },
        { kind: 'swap', path: [quote, weth] },
      ],
      start + 12,
    );
    [sent.multiHop, sent.transfer, sent.reverted, sent.otherPool] = mixed.hashes as [
      string,
      string,
      string,
      string,
    ];
    const two = await dex.block(
      [
        { kind: 'swap', path: [weth, tkn] },
        { kind: 'swap', path: [quote, tkn] },
      ],
      end - 1,
    );
    [sent.lastA, sent.lastB] = two.hashes as [string, string];
    sent.atEnd = (await dex.block([{ kind: 'swap', path: [tkn, weth] }], end)).hashes[0] as string;
    edge = { fromBlock: first.number, toBlock: two.number };
    // 70 blocks later everything above is final; one more swap stays in the last 64 blocks.
    await dex.mineEmpty(70);
    sent.recent = (await dex.block([{ kind: 'swap', path: [tkn, weth] }])).hashes[0] as string;
  });

  const reader = () =>
    createTruthReader({ references: new Map([['anvil', dex.node.url]]), dexes: () => [dexOf(dex)] });

  it('finds the token pools from PairCreated logs, in either token position, and caches the scan', async () => {
    const cache = memoryPoolCache();
    const rpc = new ReferenceRpc(dex.node.url);
    const latest = Number(await dex.node.rpc.call<string>('eth_blockNumber'));
    const pools = await discoverPools(rpc, dexOf(dex), dex.tkn, latest, cache);
    expect(pools.map((p) => p.address).sort()).toEqual([dex.pairs.tknWeth, dex.pairs.tknQuote].sort());
    const quotePools = await discoverPools(rpc, dexOf(dex), dex.quote, latest, cache);
    expect(quotePools.map((p) => p.address).sort()).toEqual([dex.pairs.tknQuote, dex.pairs.quoteWeth].sort());
    expect(
      cache.get(`anvil|uniswap-v2|${dex.factory.toLowerCase()}|${dex.tkn.toLowerCase()}`)?.scannedTo,
    ).toBe(latest);
  });

  it('counts the distinct swap txs of blocks in [start, end): a block at start is in, one at end is out', async () => {
    const t = await reader().read('anvil', dex.tkn, { startMs, endMs });
    expect(t.status).toBe('ok');
    if (t.status !== 'ok') return;
    expect({ fromBlock: t.fromBlock, toBlock: t.toBlock }).toEqual(edge);
    const all = Object.values(sent);
    expect(hashesOf(t, 'all', all).sort()).toEqual(
      [sent.atStart, sent.multiHop, sent.lastA, sent.lastB].map((h) => h?.toLowerCase()).sort(),
    );
    // The multi-hop tx left two Swap logs of the token's pools and counts once; the transfer, the
    // reverted swap and the swap of a pool without the token never count.
    expect(t.all.size).toBe(4);
    expect(t.finalized.size).toBe(4);
  });

  it('counts a swap of the last 64 blocks in T and not in T_fin', async () => {
    const t = await reader().read('anvil', dex.tkn, { startMs, endMs: (dex.clockSec + 3600) * 1000 });
    if (t.status !== 'ok') throw new Error(t.message);
    const latest = Number(await dex.node.rpc.call<string>('eth_blockNumber'));
    expect(t.toBlock).toBe(latest);
    expect(t.finalizedTo).toBe(latest - 64);
    expect(hashesOf(t, 'all', [sent.recent as string])).toHaveLength(1);
    expect(hashesOf(t, 'finalized', [sent.recent as string])).toHaveLength(0);
    expect(t.all.size).toBe(6);
    expect(t.finalized.size).toBe(5);
  });

  it('gives an empty truth for a window after the head and none for a chain without a reference node', async () => {
    const later = (dex.clockSec + 7200) * 1000;
    const t = await reader().read('anvil', dex.tkn, { startMs: later, endMs: later + 3_600_000 });
    expect(t.status === 'ok' && t.all.size + t.finalized.size).toBe(0);
    const none = await reader().read('solana', dex.tkn, { startMs, endMs });
    expect(none).toMatchObject({ status: 'unavailable', reason: 'no-reference-node' });
  });
});

describe('the truth reader on a node that pruned the window', () => {
  it('gives before-history, never a count, for a window or a pool scan older than the retained blocks', async () => {
    const node = await startTestAnvil({ genesisSec: GENESIS, keeper: 20 });
    nodes.push(node);
    const dex = await deployV2Dex(node);
    const old = await dex.block([{ kind: 'swap', path: [dex.tkn, dex.weth] }]);
    for (let i = 0; i < 30; i++) await dex.block([{ kind: 'transfer' }]);
    const fresh = await dex.block([{ kind: 'swap', path: [dex.tkn, dex.quote] }]);
    // What the check guards against: anvil answers a pruned block's logs with nothing, no error.
    const at = `0x${old.number.toString(16)}`;
    expect(await node.rpc.call<unknown[]>('eth_getLogs', [{ fromBlock: at, toBlock: at }])).toEqual([]);
    const cache = memoryPoolCache();
    const reader = createTruthReader({
      references: new Map([['anvil', node.url]]),
      dexes: () => [dexOf(dex)],
      cache,
    });
    const oldWindow = { startMs: old.timestampSec * 1000, endMs: (fresh.timestampSec + 1) * 1000 };
    expect(await reader.read('anvil', dex.tkn, oldWindow)).toMatchObject({
      status: 'unavailable',
      reason: 'before-history',
    });
    // The window is retained but the PairCreated logs are not: no pool list, so no truth either.
    const recent = { startMs: fresh.timestampSec * 1000, endMs: (fresh.timestampSec + 1) * 1000 };
    expect(await reader.read('anvil', dex.tkn, recent)).toMatchObject({
      status: 'unavailable',
      reason: 'before-history',
    });
    // Seeded with the pools known up to now (the demo knows its own), the reader counts the retained window.
    const pools = [dex.pairs.tknWeth, dex.pairs.tknQuote].map((address) => ({
      dex: 'uniswap-v2',
      kind: 'uniswap-v2' as const,
      address,
    }));
    cache.set(poolCacheKey(dexOf(dex), dex.tkn), { pools, scannedTo: fresh.number });
    const t = await reader.read('anvil', dex.tkn, recent);
    expect(t.status === 'ok' && hashesOf(t, 'all', fresh.hashes)).toEqual([fresh.hashes[0]]);
  });
});

describe('the truth reader on a failing node', () => {
  /** A node that answers each method by `fn`; eth_getLogs is where failures hurt most. */
  type Answer = { status: number; body: string } | 'stall';
  async function fakeNode(fn: (method: string, params: unknown[]) => Answer): Promise<string> {
    const s = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const msg = JSON.parse(Buffer.concat(chunks).toString()) as {
        id: number;
        method: string;
        params: unknown[];
      };
      const a = fn(msg.method, msg.params);
      const id = msg.id;
      if (a === 'stall') return;
      res.writeHead(a.status, { 'content-type': 'application/json' });
      res.end(a.body.replace('"ID"', String(id)));
    });
    servers.push(s);
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const addr = s.address();
    return `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  }
  const ok = (result: unknown) => ({
    status: 200,
    body: `{"jsonrpc":"2.0","id":"ID","result":${JSON.stringify(result)}}`,
  });
  const block = (n: number) => ({
    number: `0x${n.toString(16)}`,
    timestamp: `0x${(GENESIS + n * 12).toString(16)}`,
    transactionsRoot: '0x01',
    transactions: ['0xaa'],
  });
  const healthyExcept = (bad: Answer) => (method: string, params: unknown[]) => {
    if (method === 'eth_blockNumber') return ok('0x64');
    if (method === 'eth_getBlockByNumber')
      return ok(block(params[0] === 'finalized' ? 36 : Number.parseInt(String(params[0]), 16)));
    return bad;
  };

  it.each([
    ['an HTTP error', { status: 503, body: 'upstream unavailable' }],
    [
      'a JSON-RPC error',
      { status: 200, body: '{"jsonrpc":"2.0","id":"ID","error":{"code":-32603,"message":"internal"}}' },
    ],
    ['a malformed reply', { status: 200, body: '{"jsonrpc":"2.0","id":"ID","result":' }],
    [
      'a rate limit',
      { status: 429, body: '{"jsonrpc":"2.0","id":"ID","error":{"code":-32005,"message":"rate limit"}}' },
    ],
    ['a timeout', 'stall' as const],
  ])('gives node-error on %s', async (_what, bad) => {
    const url = await fakeNode(healthyExcept(bad));
    const reader = createTruthReader({
      references: new Map([['anvil', url]]),
      dexes: () => [dexDeployment('anvil', 'v2', 'uniswap-v2', `0x${'11'.repeat(20)}`, 0, 'test')],
      timeoutMs: 300,
    });
    const t = await reader.read('anvil', `0x${'22'.repeat(20)}`, {
      startMs: (GENESIS + 12) * 1000,
      endMs: (GENESIS + 600) * 1000,
    });
    expect(t).toMatchObject({ status: 'unavailable', reason: 'node-error' });
  });
});
