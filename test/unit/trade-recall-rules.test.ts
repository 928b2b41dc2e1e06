import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { loadHarnessConfig, simulatorEnv } from '../../src/harness/config.ts';
import { DigestSet } from '../../src/harness/digest-set.ts';
import { scoreCell } from '../../src/harness/families/trade-capture/cell-score.ts';
import { TRADE_CAPTURE_METRICS as M } from '../../src/harness/families/trade-capture/metrics.ts';
import {
  matchTruth,
  recallTruthOf,
  scoreRecall,
} from '../../src/harness/families/trade-capture/recall-score.ts';
import type { Truth } from '../../src/harness/families/trade-capture/truth.ts';
import { startHarness } from '../../src/harness/service.ts';
import { loadSpecs } from '../../src/publication/load-specs.ts';
import { startSimulator } from '../../src/sim/server.ts';
import { BENCHMARKS_DIR } from '../helpers/fixture.ts';
import { openTestStore } from '../helpers/memory-store.ts';

const hash = (i: number) => `0x${i.toString(16).padStart(64, '0')}`;
const set = (from: number, to: number, extra: readonly string[] = []): DigestSet => {
  const s = new DigestSet(1_000_000);
  for (let i = from; i < to; i++) s.add(hash(i));
  for (const h of extra) s.add(h);
  return s;
};
type OkTruth = Extract<Truth, { status: 'ok' }>;
/** T: txs 0..1099, of which 0..999 are up to the finalized block. */
const truth = (): OkTruth => ({
  status: 'ok',
  all: set(0, 1100),
  finalized: set(0, 1000),
  fromBlock: 100,
  toBlock: 400,
  finalizedTo: 336,
  complete: true,
});
const at = 1_700_000_000_000;
const reader =
  (samples: readonly { metric: string; labels: Record<string, string>; v: number }[]) =>
  (metric: string, provider?: string) =>
    samples.find((s) => s.metric === metric && s.labels.provider === provider)?.v;

describe('recall against the chain (issue 23, rule 6)', () => {
  it('counts finalized blocks only: a swap after the finalized block is in T, not T_fin', () => {
    const r = scoreRecall({
      chain: 'ethereum',
      token: 'PEPE',
      at,
      truth: recallTruthOf(truth()),
      outcomes: [
        // Everything up to latest: 1000 of T_fin found, nothing unmatched.
        { provider: 'a', outcome: matchTruth(set(0, 1100), truth()) },
        // Still indexing the newest blocks: it loses nothing.
        { provider: 'b', outcome: matchTruth(set(0, 1000), truth()) },
        // Half of T_fin.
        { provider: 'c', outcome: matchTruth(set(0, 500), truth()) },
      ],
    });
    const v = reader(r.samples);
    expect(v(M.tokenTradeTruthCount)).toBe(1000);
    expect([
      v(M.tokenTradeRecallPct, 'a'),
      v(M.tokenTradeRecallPct, 'b'),
      v(M.tokenTradeRecallPct, 'c'),
    ]).toEqual([100, 100, 50]);
    expect([v(M.tokenTradeUnmatched, 'a'), v(M.tokenTradeUnmatched, 'b')]).toEqual([0, 0]);
    const edges = r.samples
      .filter((s) => s.metric === M.tokenTradeTruthBlocks)
      .map((s) => [s.labels.edge, s.v]);
    expect(edges).toEqual([
      ['from', 100],
      ['to', 336],
    ]);
  });

  it('a failure the provider causes is 0 recall and a failed probe; one on our side writes nothing', () => {
    const r = scoreRecall({
      chain: 'ethereum',
      token: 'PEPE',
      at,
      truth: recallTruthOf(truth()),
      outcomes: [
        { provider: 'a', outcome: { kind: 'provider_failure' } },
        { provider: 'b', outcome: { kind: 'ours' } },
      ],
    });
    const v = reader(r.samples);
    expect(v(M.tokenTradeRecallPct, 'a')).toBe(0);
    expect(v(M.tokenTradeRecallProbeOk, 'a')).toBe(0);
    expect(v(M.tokenTradeUnmatched, 'a')).toBeUndefined();
    expect(r.samples.some((s) => s.labels.provider === 'b')).toBe(false);
    expect(r.providers).toEqual([{ recallPct: 0, unmatched: null, phantoms: null }, null]);
  });

  it('no 0/0: an empty T_fin stores the truth count and no recall', () => {
    const r = scoreRecall({
      chain: 'base',
      token: 'BRETT',
      at,
      truth: recallTruthOf({ ...truth(), finalized: set(0, 0) }),
      outcomes: [{ provider: 'a', outcome: matchTruth(set(0, 10), truth()) }],
    });
    expect(r.samples.map((s) => s.metric)).toEqual([
      M.tokenTradeTruthCount,
      M.tokenTradeTruthBlocks,
      M.tokenTradeTruthBlocks,
    ]);
    expect(r.samples[0]?.v).toBe(0);
  });

  it('no truth: only the reason is stored, never a count', () => {
    const r = scoreRecall({
      chain: 'solana',
      token: 'BONK',
      at,
      truth: recallTruthOf({ status: 'unavailable', reason: 'no-reference-node', message: 'none' }),
      outcomes: [{ provider: 'a', outcome: matchTruth(set(0, 10), truth()) }],
    });
    expect(r.samples).toEqual([
      {
        metric: M.tokenTradeTruthUnavailable,
        labels: { chain: 'solana', token: 'BONK', reason: 'no-reference-node' },
        t: at,
        v: 1,
      },
    ]);
  });

  it('the self-baseline fault, shown: 10% phantoms and out-of-window rows win capture and cost the others ~9%; recall is unchanged', () => {
    const t = truth();
    // Every provider finds all 1000 finalized swaps; `c` adds 50 phantom hashes and 50 real
    // transactions from outside the window (in neither T nor T_fin).
    const extras = [...Array.from({ length: 50 }, (_, i) => `0xdead${hash(i).slice(6)}`)];
    const outside = Array.from({ length: 50 }, (_, i) => hash(5000 + i));
    const answers = {
      a: set(0, 1000),
      b: set(0, 1000),
      c: set(0, 1000, [...extras, ...outside]),
    };
    const cell = { chain: 'ethereum', token: 'PEPE', at };
    const capture = scoreCell({
      ...cell,
      outcomes: Object.entries(answers).map(([provider, h]) => ({
        provider,
        outcome: { kind: 'ok' as const, count: h.size, capped: false },
      })),
      unionCount: 1100,
    });
    const cap = reader(capture.samples);
    expect(cap(M.tokenTradeCapturePct, 'c')).toBe(100);
    expect(cap(M.tokenTradeCapturePct, 'a')).toBeCloseTo(90.909, 3);
    expect(cap(M.tokenTradeCapturePct, 'b')).toBeCloseTo(90.909, 3);
    const recall = scoreRecall({
      ...cell,
      truth: recallTruthOf(t),
      outcomes: Object.entries(answers).map(([provider, hashes]) => ({
        provider,
        outcome: matchTruth(hashes, t),
      })),
    });
    const rec = reader(recall.samples);
    expect(['a', 'b', 'c'].map((p) => rec(M.tokenTradeRecallPct, p))).toEqual([100, 100, 100]);
    expect(['a', 'b', 'c'].map((p) => rec(M.tokenTradeUnmatched, p))).toEqual([0, 0, 100]);
  });
});

describe('the recall benchmark tallies only the cells it scores', () => {
  it('a provider failing every cell, with no truth anywhere, has a cycle of 5xx for capture and none for recall', async () => {
    const specs = (await loadSpecs(BENCHMARKS_DIR)).filter((s) => s.family === 'trade-capture');
    const sim = await startSimulator({
      seed: 3,
      tradesPerHour: 60,
      faults: { mobula: { kind: 'status', status: 503 } },
    });
    const store = await openTestStore();
    try {
      const h = startHarness({
        store,
        specs,
        metrics: new Registry(),
        // No REFERENCE_RPC_*: no cell has truth.
        harnessConfig: loadHarnessConfig({
          HARNESS_MAX_RETRIES: '0',
          ...simulatorEnv(sim.baseUrls, sim.keys),
        }),
        autoStart: false,
        sleep: async () => {},
      });
      const at = Date.UTC(2026, 6, 23, 12, 0);
      await h.runCycle('token-trade-coverage', at);
      await h.stop();
      const cycles = await store.select({ metric: M.providerCycle5xx, after: at - 1, until: at });
      const mobula = cycles
        .filter((s) => s.labels.provider === 'mobula')
        .map((s) => [s.labels.benchmark, s.v]);
      expect(mobula).toEqual([['token-trade-coverage', 1]]);
    } finally {
      await sim.close();
      await store.close();
    }
  });
});
