import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_TOKENS } from '../../src/harness/tokens.ts';
import { ChainTokenStream } from '../../src/sim/chain-stream.ts';
import { ChainTradeIndex } from '../../src/sim/chain-trades.ts';
import { demoDex, referenceTokens } from '../../src/sim/chains/dex.ts';
import { type DemoChain, startDemoChains } from '../../src/sim/chains/index.ts';
import { type ChainFaultProfile, captureProfiles, NO_CHAIN_FAULTS } from '../../src/sim/profiles.ts';
import {
  SIM_PROVIDERS,
  type Simulator,
  type SimulatorOptions,
  startSimulator,
} from '../../src/sim/server.ts';
import { TradeSources } from '../../src/sim/trade-source.ts';
import { TokenStream } from '../../src/sim/trades.ts';

const SEED = 7;
const MIN = 60_000;
const ORIGIN = Date.UTC(2026, 6, 23, 6, 0, 0);
const SWAP = '0xd78ad95fa46c994b6551d0da85fc275fe613ce37657fb8d5e3d130840159d822';
const TOKENS = REFERENCE_TOKENS.filter((t) => t.chain === 'ethereum').map((t) => t.address);
const PEPE = TOKENS[0] as string;
/** The window most tests read: well inside the built history, with blocks on both sides. */
const W = { start: ORIGIN + 30 * MIN, end: ORIGIN + 90 * MIN };
const OFF = Object.fromEntries(SIM_PROVIDERS.map((p) => [p, NO_CHAIN_FAULTS]));

let chain: DemoChain;
const sims: Simulator[] = [];

beforeAll(async () => {
  [chain] = (await startDemoChains({ seed: SEED, origin: ORIGIN, chains: ['ethereum'] })) as [DemoChain];
  await chain.buildTo(ORIGIN + 100 * MIN);
});
afterAll(async () => {
  await Promise.all(sims.map((s) => s.close()));
  await chain?.stop();
});

async function sim(o: Partial<SimulatorOptions> = {}, withChain = true): Promise<Simulator> {
  const s = await startSimulator({
    seed: SEED,
    capture: {},
    chainFaults: OFF,
    ...(withChain ? { chains: [{ chain: 'ethereum', url: chain.node.url }] } : {}),
    ...o,
  });
  sims.push(s);
  return s;
}

async function rpc<T>(method: string, params: unknown[]): Promise<T> {
  const r = await fetch(chain.node.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return ((await r.json()) as { result: T }).result;
}

interface Log {
  transactionHash: string;
  blockNumber: string;
  blockTimestamp: string;
}

/** Every Swap log of a token's pairs, read with one raw eth_getLogs (no simulator code). */
async function swapLogs(token: string): Promise<{ hash: string; ms: number }[]> {
  const pairs = demoDex('ethereum').pairs.filter(
    (p) => p.token0 === token.toLowerCase() || p.token1 === token.toLowerCase(),
  );
  const logs = await rpc<Log[]>('eth_getLogs', [
    { fromBlock: '0x0', toBlock: 'latest', address: pairs.map((p) => p.address), topics: [SWAP] },
  ]);
  return logs.map((l) => ({ hash: l.transactionHash, ms: Number(l.blockTimestamp) * 1000 }));
}

async function truth(token: string, start: number, end: number): Promise<Set<string>> {
  return new Set((await swapLogs(token)).filter((l) => l.ms >= start && l.ms < end).map((l) => l.hash));
}

async function post(s: Simulator, provider: string, body: unknown, auth: string): Promise<string> {
  const r = await fetch(`${s.baseUrls[provider]}/graphql`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return r.text();
}

/** Mobula's pages (inclusive cursor: its boundary row comes again), as row hashes. */
async function mobula(
  s: Simulator,
  token: string,
  start: number,
  end: number,
  limit = 1000,
  chainName = 'Ethereum',
) {
  const pages: string[][] = [];
  let cursor: string | null = null;
  do {
    const q = new URLSearchParams({
      blockchain: chainName,
      tokenAddress: token,
      from: String(start),
      to: String(end - 1),
      limit: String(limit),
    });
    if (cursor) q.set('cursor', cursor);
    const r = await fetch(`${s.baseUrls.mobula}/api/2/trades/filters?${q}`, {
      headers: { authorization: s.keys.mobula ?? '' },
    });
    const b = (await r.json()) as {
      data: { transactionHash: string }[];
      pagination: { nextCursor: string | null };
    };
    pages.push(b.data.map((d) => d.transactionHash));
    cursor = b.pagination.nextCursor;
  } while (cursor && pages.length < 200);
  return pages;
}

async function codex(s: Simulator, token: string, start: number, end: number, limit = 200, networkId = 1) {
  const pages: string[][] = [];
  let cursor: string | null = null;
  do {
    const text = await post(
      s,
      'codex',
      {
        query:
          'query($query: EventsQueryInput!, $limit: Int, $cursor: String) { getTokenEvents(query: $query, limit: $limit, cursor: $cursor) { items { transactionHash } cursor } }',
        variables: {
          query: { address: token, networkId, timestamp: { from: start / 1000, to: end / 1000 - 1 } },
          limit,
          cursor,
        },
      },
      s.keys.codex ?? '',
    );
    const b = JSON.parse(text) as {
      data: { getTokenEvents: { items: { transactionHash: string }[]; cursor: string | null } };
    };
    pages.push(b.data.getTokenEvents.items.map((i) => i.transactionHash));
    cursor = b.data.getTokenEvents.cursor;
  } while (cursor && pages.length < 200);
  return pages;
}

async function bitquery(
  s: Simulator,
  token: string,
  start: number,
  end: number,
  network = 'eth',
): Promise<string> {
  const query = `query($token: String!, $since: DateTime!, $before: DateTime!) { EVM(dataset: realtime, network: ${network}) { DEXTradeByTokens(limit: {count: 10000}, where: {Block: {Time: {since: $since, before: $before}}, Trade: {Currency: {SmartContract: {is: $token}}}}) { Transaction { Hash } } } }`;
  const variables = { token, since: new Date(start).toISOString(), before: new Date(end).toISOString() };
  return post(s, 'bitquery', { query, variables }, `Bearer ${s.keys.bitquery}`);
}

function bitqueryHashes(text: string): string[] {
  const b = JSON.parse(text) as { data: { EVM: { DEXTradeByTokens: { Transaction: { Hash: string } }[] } } };
  return b.data.EVM.DEXTradeByTokens.map((r) => r.Transaction.Hash);
}

const distinct = (pages: string[][]) => new Set(pages.flat());

describe('simulated providers read the demo chain', () => {
  it('with every fault off, Mobula, Codex and Bitquery return exactly the chain’s distinct swap txs of the window', async () => {
    const s = await sim();
    for (const token of TOKENS) {
      const t = await truth(token, W.start, W.end);
      expect(t.size).toBeGreaterThan(100);
      expect(distinct(await mobula(s, token, W.start, W.end, 100))).toEqual(t);
      expect(distinct(await codex(s, token, W.start, W.end))).toEqual(t);
      expect(new Set(bitqueryHashes(await bitquery(s, token, W.start, W.end)))).toEqual(t);
    }
  });

  it('drops follow the provider’s capture range per (token, hour), whole txs at a time', async () => {
    const s = await sim({ capture: { codex: [0.5, 0.5] } });
    const t = await truth(PEPE, W.start, W.end);
    const rows = (await codex(s, PEPE, W.start, W.end)).flat();
    const got = new Set(rows);
    for (const h of got) expect(t.has(h)).toBe(true);
    expect(got.size / t.size).toBeGreaterThan(0.4);
    expect(got.size / t.size).toBeLessThan(0.6);
    // Both Swap logs of a multi-hop tx go, or stay, together.
    const logs = (await swapLogs(PEPE)).filter((l) => l.ms >= W.start && l.ms < W.end);
    for (const h of got)
      expect(rows.filter((r) => r === h).length).toBe(logs.filter((l) => l.hash === h).length);
    // The seed's capture ranges (what the model uses today) keep each provider's level on the chain.
    const d = await sim({ capture: captureProfiles(SEED, SIM_PROVIDERS) });
    for (const p of ['mobula', 'codex'] as const) {
      const [lo, hi] = captureProfiles(SEED, SIM_PROVIDERS)[p] ?? [1, 1];
      const n = distinct(
        p === 'mobula' ? await mobula(d, PEPE, W.start, W.end) : await codex(d, PEPE, W.start, W.end),
      ).size;
      expect(n / t.size).toBeGreaterThan(lo - 0.05);
      expect(n / t.size).toBeLessThan(Math.min(1, hi + 0.05) + 1e-9);
    }
  });

  it('phantoms are hashes no Swap log and no transaction has', async () => {
    const s = await sim({ chainFaults: { ...OFF, mobula: { ...NO_CHAIN_FAULTS, phantomRate: 0.1 } } });
    const t = await truth(PEPE, W.start, W.end);
    const got = distinct(await mobula(s, PEPE, W.start, W.end));
    const extra = [...got].filter((h) => !t.has(h));
    for (const h of t) expect(got.has(h)).toBe(true);
    expect(extra.length).toBeGreaterThan(t.size * 0.05);
    expect(extra.length).toBeLessThan(t.size * 0.15);
    const all = new Set((await Promise.all(TOKENS.map(swapLogs))).flat().map((l) => l.hash));
    for (const h of extra) expect(all.has(h)).toBe(false);
    for (const h of extra.slice(0, 3)) expect(await rpc('eth_getTransactionByHash', [h])).toBeNull();
  });

  it('out-of-window rows are real swap txs from just outside the window', async () => {
    const f: ChainFaultProfile = { ...NO_CHAIN_FAULTS, outOfWindowMax: 4 };
    const s = await sim({ chainFaults: { ...OFF, bitquery: f } });
    const logs = await swapLogs(PEPE);
    const when = new Map(logs.map((l) => [l.hash, l.ms]));
    let outside = 0;
    for (let k = 0; k < 6; k++) {
      const start = W.start + k * 5 * MIN;
      const end = start + 50 * MIN;
      const t = await truth(PEPE, start, end);
      const got = new Set(bitqueryHashes(await bitquery(s, PEPE, start, end)));
      for (const h of t) expect(got.has(h)).toBe(true);
      for (const h of got) {
        if (t.has(h)) continue;
        const ms = when.get(h) as number;
        expect(ms < start || ms >= end).toBe(true);
        // "Just outside": at most 4 rows a side, in blocks a minute or so from the edge.
        expect(Math.min(Math.abs(ms - start), Math.abs(ms - end))).toBeLessThan(2 * MIN);
        outside++;
      }
    }
    expect(outside).toBeGreaterThan(0);
  });

  it('indexing lag drops the rows newer than the indexed head’s time minus the lag', async () => {
    const head = chain.head().timestampMs;
    const start = head + 1000 - 60 * MIN;
    const end = head + 1000;
    const lag = await sim({ chainFaults: { ...OFF, codex: { ...NO_CHAIN_FAULTS, lagSec: 120 } } });
    const t = await truth(PEPE, start, end);
    const got = distinct(await codex(lag, PEPE, start, end));
    const when = new Map((await swapLogs(PEPE)).map((l) => [l.hash, l.ms]));
    const missing = [...t].filter((h) => !got.has(h));
    expect(missing.length).toBeGreaterThan(0);
    expect(new Set(missing)).toEqual(new Set([...t].filter((h) => (when.get(h) as number) > head - 120_000)));
    for (const h of got) expect(t.has(h)).toBe(true);
  });

  it('duplicates repeat a page’s last row at the start of the next page', async () => {
    const dup = await sim({ chainFaults: { ...OFF, codex: { ...NO_CHAIN_FAULTS, duplicateRate: 1 } } });
    const clean = await sim();
    const t = await truth(PEPE, W.start, W.end);
    const pages = await codex(dup, PEPE, W.start, W.end, 50);
    expect(pages.length).toBeGreaterThan(3);
    for (let k = 1; k < pages.length; k++) expect(pages[k]?.[0]).toBe(pages[k - 1]?.at(-1));
    expect(distinct(pages)).toEqual(t);
    // Without the fault every Swap log comes once; with it, once more per page boundary.
    const logs = (await swapLogs(PEPE)).filter((l) => l.ms >= W.start && l.ms < W.end).length;
    expect((await codex(clean, PEPE, W.start, W.end, 50)).flat()).toHaveLength(logs);
    expect(pages.flat()).toHaveLength(logs + pages.length - 1);
  });

  it('Solana, Stellar and windows before the retained range answer from the model, byte for byte', async () => {
    const opts = { tradesPerHour: 600, capture: captureProfiles(SEED, SIM_PROVIDERS) };
    const withChain = await sim(opts);
    const without = await sim(opts, false);
    const bonk = REFERENCE_TOKENS[0]?.address ?? '';
    const early = { start: ORIGIN - 50 * MIN, end: ORIGIN + 10 * MIN };
    const answers = async (s: Simulator) => [
      await mobula(s, bonk, W.start, W.end, 500, 'Solana'),
      await mobula(
        s,
        'yXLM:GARDNV3Q7YGT4AKSDF25LT32YSCCW4EV22Y2TV3I2PU2MMXJTEDL5T55',
        W.start,
        W.end,
        500,
        'Stellar',
      ),
      await codex(s, bonk, W.start, W.end, 200, 1399811149),
      await mobula(s, PEPE, early.start, early.end, 500),
      await codex(s, PEPE, early.start, early.end),
      await bitquery(s, PEPE, early.start, early.end),
    ];
    expect(await answers(withChain)).toEqual(await answers(without));
    // Inside the retained range the chain answers instead.
    const t = await truth(PEPE, W.start, W.end);
    for (const h of (await codex(withChain, PEPE, W.start, W.end)).flat()) expect(t.has(h)).toBe(true);
    for (const h of (await codex(without, PEPE, W.start, W.end)).flat()) expect(t.has(h)).toBe(false);
  });

  it('seed-drawn faults answer the same twice', async () => {
    const a = await sim({ capture: captureProfiles(SEED, SIM_PROVIDERS), chainFaults: undefined });
    const b = await sim({ capture: captureProfiles(SEED, SIM_PROVIDERS), chainFaults: undefined });
    expect(await codex(a, PEPE, W.start, W.end, 50)).toEqual(await codex(b, PEPE, W.start, W.end, 50));
    const text = await bitquery(a, PEPE, W.start, W.end);
    expect(await bitquery(b, PEPE, W.start, W.end)).toBe(text);
    // And it is the chain's answer: nearly every hash is a real Swap tx (the rest phantoms).
    const real = new Set((await swapLogs(PEPE)).map((l) => l.hash));
    const hashes = bitqueryHashes(text);
    expect(hashes.filter((h) => real.has(h)).length).toBeGreaterThan(hashes.length * 0.9);
  });
});

describe('ChainTradeIndex', () => {
  it('keeps the node’s retained blocks only, shares a read in flight, and picks the model before them', async () => {
    const index = new ChainTradeIndex({
      chain: 'ethereum',
      url: chain.node.url,
      pairs: demoDex('ethereum').pairs,
      tokens: referenceTokens('ethereum'),
      keptBlocks: 100,
    });
    const one = index.sync();
    expect(index.sync()).toBe(one);
    await one;
    const head = chain.head();
    expect(index.head()).toEqual({ block: head.number, timestampMs: head.timestampMs });
    const first = index.firstRetained();
    expect(first?.block).toBe(head.number - 99);
    expect(first?.timestampMs).toBe(ORIGIN + (head.number - 100) * 12_000);
    const rows = index.rows(PEPE);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.block >= head.number - 99)).toBe(true);
    for (let k = 1; k < rows.length; k++) {
      const [p, r] = [rows[k - 1], rows[k]] as [(typeof rows)[0], (typeof rows)[0]];
      expect(p.block * 1e6 + p.logIndex).toBeLessThan(r.block * 1e6 + r.logIndex);
    }
    expect(new Set(rows.map((r) => r.hash))).toEqual(
      await truth(PEPE, first?.timestampMs ?? 0, head.timestampMs + 1),
    );
    const model = { seed: SEED, tradesPerHour: () => 600, capture: {} };
    const sources = new TradeSources(model, new Map([['ethereum', index]]), OFF);
    expect(sources.rows('codex', 'ethereum', PEPE, first?.timestampMs ?? 0)).toBeInstanceOf(ChainTokenStream);
    expect(sources.rows('codex', 'ethereum', PEPE, (first?.timestampMs ?? 0) - 1000)).toBeInstanceOf(
      TokenStream,
    );
    expect(sources.rows('codex', 'solana', PEPE, first?.timestampMs ?? 0)).toBeInstanceOf(TokenStream);
    index.close();
  });
});
