import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DigestSet } from '../../src/harness/digest-set.ts';
import { PHANTOM_CANDIDATES } from '../../src/harness/families/trade-capture/adapters/contract.ts';
import { TRADE_CAPTURE_METRICS as M } from '../../src/harness/families/trade-capture/metrics.ts';
import { PHANTOM_CHECKS, withPhantoms } from '../../src/harness/families/trade-capture/phantoms.ts';
import {
  matchTruth,
  recallTruthOf,
  scoreRecall,
} from '../../src/harness/families/trade-capture/recall-score.ts';
import { createTruthReader, type Truth } from '../../src/harness/families/trade-capture/truth.ts';
import { ok } from '../../src/harness/types.ts';
import { listenLoopback } from '../../src/sim/listen.ts';

const TOKEN = '0x6982508145454ce325ddbe47a25d4ec3d2311933';
const OTHER = '0x00000000000000000000000000000000000000aa';
const hash = (i: number) => `0x${i.toString(16).padStart(64, '0')}`;
/** Swaps 0..199 are T_fin and T. 1000..1049 are trades of the token on a DEX we do not list. */
const TOKEN_TRADES = new Set(Array.from({ length: 50 }, (_, i) => hash(1000 + i)));
/** 2000..2099 are transactions of the chain with no log of the token (a transfer of another token). */
const UNRELATED = new Set(Array.from({ length: 100 }, (_, i) => hash(2000 + i)));

let server: Server;
const sockets = new Set<Socket>();
let url = '';
let nodeDown = false;
let lookups = 0;

/** The reference node's receipts: a log of the token, a log of another contract, or none (no such transaction). */
function receipt(h: string): unknown {
  if (TOKEN_TRADES.has(h))
    return { transactionHash: h, logs: [{ address: TOKEN.toUpperCase().replace('0X', '0x') }] };
  if (UNRELATED.has(h)) return { transactionHash: h, logs: [{ address: OTHER }] };
  return null;
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      type Msg = { id: number; method: string; params: string[] };
      const parsed = JSON.parse(body) as Msg | Msg[];
      res.setHeader('content-type', 'application/json');
      if (nodeDown) {
        res.statusCode = 502;
        res.end('{}');
        return;
      }
      const reply = (msg: Msg) => {
        lookups++;
        const result = msg.method === 'eth_getTransactionReceipt' ? receipt(msg.params[0] ?? '') : null;
        return { jsonrpc: '2.0', id: msg.id, result };
      };
      res.end(JSON.stringify(Array.isArray(parsed) ? parsed.map(reply) : reply(parsed)));
    });
  });
  url = await listenLoopback(server, sockets);
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((r) => server.close(() => r()));
});

const answer = (hashes: readonly string[]) => {
  const s = new DigestSet(1_000_000, PHANTOM_CANDIDATES);
  for (const h of hashes) s.add(h);
  return ok({ hashes: s, rows: hashes.length, pages: 1, capped: false });
};
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => hash(from + i));
const truth = (): Extract<Truth, { status: 'ok' }> => {
  const all = new DigestSet(1_000_000);
  const finalized = new DigestSet(1_000_000);
  for (const h of range(0, 200)) {
    all.add(h);
    finalized.add(h);
  }
  return { status: 'ok', all, finalized, fromBlock: 10, toBlock: 310, finalizedTo: 310, complete: true };
};

/** Recall of each answer on the cell, scored by the harness's rule after the phantom check. */
async function recalls(answers: Record<string, readonly string[]>, complete = true) {
  const reader = createTruthReader({ references: new Map([['ethereum', url]]) });
  const results = Object.values(answers).map(answer);
  const checked = await withPhantoms(reader, { chain: 'ethereum', address: TOKEN }, results, {
    ...truth(),
    complete,
  });
  const t = checked.truth;
  const score = scoreRecall({
    chain: 'ethereum',
    token: 'PEPE',
    at: 1_700_000_000_000,
    truth: recallTruthOf(t),
    outcomes: Object.keys(answers).map((provider, i) => {
      const r = results[i];
      if (!r?.ok || t.status !== 'ok') throw new Error('an ok answer and truth');
      return { provider, outcome: matchTruth(r.value.hashes, t, checked.phantoms[i] ?? 0) };
    }),
  });
  const v = (metric: string, provider: string) =>
    score.samples.find((s) => s.metric === metric && s.labels.provider === provider)?.v;
  return { truth: t, v };
}

describe('over-reporting is scored: verified phantoms lower recall', () => {
  it('every swap plus 400 made-up hashes scores below an honest 97.5%; its phantoms are stored', async () => {
    const made = Array.from({ length: 400 }, (_, i) => `0xdead${hash(9000 + i).slice(6)}`);
    const { v } = await recalls({ honest: range(0, 195), greedy: [...range(0, 200), ...made] });
    expect(v(M.tokenTradeRecallPct, 'honest')).toBe(97.5);
    // 200 / (200 + 400): each phantom counts as a missed swap would.
    expect(v(M.tokenTradeRecallPct, 'greedy')).toBeCloseTo(33.333333, 5);
    expect(v(M.tokenTradePhantoms, 'greedy')).toBe(400);
    expect(v(M.tokenTradeUnmatched, 'greedy')).toBe(400);
    expect(v(M.tokenTradeMatched, 'greedy')).toBe(200);
    expect(v(M.tokenTradePhantoms, 'honest')).toBe(0);
  });

  it('an unmatched transaction with a log of the token stays reported only; one without, or not a hash, is a phantom', async () => {
    const { v } = await recalls({
      otherDex: [...range(0, 200), ...TOKEN_TRADES],
      unrelated: [...range(0, 200), ...UNRELATED],
      garbage: [...range(0, 200), 'not-a-hash', '0x12'],
    });
    expect(v(M.tokenTradeRecallPct, 'otherDex')).toBe(100);
    expect(v(M.tokenTradeUnmatched, 'otherDex')).toBe(50);
    expect(v(M.tokenTradePhantoms, 'otherDex')).toBe(0);
    expect(v(M.tokenTradePhantoms, 'unrelated')).toBe(100);
    expect(v(M.tokenTradeRecallPct, 'unrelated')).toBeCloseTo((200 / 300) * 100, 5);
    expect(v(M.tokenTradePhantoms, 'garbage')).toBe(2);
  });

  it('while our node has not reached the window end nothing is verified: what a provider ahead of it names stays unmatched', async () => {
    lookups = 0;
    const made = Array.from({ length: 40 }, (_, i) => hash(70_000 + i));
    const { v } = await recalls({ ahead: [...range(0, 200), ...made] }, false);
    expect(lookups).toBe(0);
    expect(v(M.tokenTradePhantoms, 'ahead')).toBe(0);
    expect(v(M.tokenTradeRecallPct, 'ahead')).toBe(100);
    expect(v(M.tokenTradeUnmatched, 'ahead')).toBe(40);
  });

  it('looks up at most PHANTOM_CHECKS receipts per answer; the rest stay unmatched', async () => {
    lookups = 0;
    const made = Array.from({ length: PHANTOM_CHECKS + 300 }, (_, i) => hash(50_000 + i));
    const { v } = await recalls({ many: [...range(0, 200), ...made] });
    expect(lookups).toBe(PHANTOM_CHECKS);
    expect(v(M.tokenTradePhantoms, 'many')).toBe(PHANTOM_CHECKS);
    expect(v(M.tokenTradeUnmatched, 'many')).toBe(PHANTOM_CHECKS + 300);
  });

  it('an empty T_fin scores nobody, so nothing is looked up', async () => {
    lookups = 0;
    const reader = createTruthReader({ references: new Map([['ethereum', url]]) });
    const empty = { ...truth(), finalized: new DigestSet(1_000_000) };
    const checked = await withPhantoms(
      reader,
      { chain: 'ethereum', address: TOKEN },
      [answer(range(300, 700))],
      empty,
    );
    expect(checked.phantoms).toEqual([0]);
    expect(lookups).toBe(0);
  });

  it('a node error during the check leaves the cell without truth: nobody is scored on it', async () => {
    nodeDown = true;
    try {
      const reader = createTruthReader({ references: new Map([['ethereum', url]]) });
      const checked = await withPhantoms(
        reader,
        { chain: 'ethereum', address: TOKEN },
        [answer([...range(0, 200), hash(77_777)])],
        truth(),
      );
      expect(checked.truth).toMatchObject({ status: 'unavailable', reason: 'node-error' });
      expect(checked.phantoms).toEqual([0]);
    } finally {
      nodeDown = false;
    }
  });
});
