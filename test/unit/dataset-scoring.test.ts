/**
 * The deterministic dataset (src/demo/dataset.ts) scores its cells with the harness's own rule
 * (src/harness/cell-score.ts): its union is a real union of the trades each provider returned, its
 * samples are the ones the harness writes for the same answers, and 0/0 writes no capture.
 */
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import type { Sample } from '../../src/core/samples.ts';
import type { BenchmarkSpec } from '../../src/core/spec-schema.ts';
import {
  buildDataset,
  type ModelAnswer,
  type ModelCell,
  modelTradeCycle,
  tradeCycleTimes,
} from '../../src/demo/dataset.ts';
import { loadHarnessConfig } from '../../src/harness/config.ts';
import { DigestSet, unionSize } from '../../src/harness/digest-set.ts';
import { METRICS } from '../../src/harness/families/metric-names.ts';
import { cycleFiveXxSample, scoreCell } from '../../src/harness/families/trade-capture/cell-score.ts';
import {
  matchTruth,
  type RecallScore,
  scoreRecall,
} from '../../src/harness/families/trade-capture/recall-score.ts';
import type { Truth } from '../../src/harness/families/trade-capture/truth.ts';
import { createMemoryStore } from '../../src/harness/memory-store.ts';
import { startHarness } from '../../src/harness/service.ts';
import { REFERENCE_TOKENS, type ReferenceToken } from '../../src/harness/tokens.ts';
import { loadSpecs } from '../../src/publication/load-specs.ts';
import { type StubRequest, type StubResponse, startStubServer } from '../../src/sim/stub-server.ts';
import { BENCHMARKS_DIR, NOW } from '../helpers/fixture.ts';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
});

const cellKey = (s: Sample) => `${s.t}|${s.labels.chain}|${s.labels.token}`;
const sampleKey = (s: Sample) => `${s.metric}|${JSON.stringify(Object.entries(s.labels).sort())}|${s.t}`;
/** Samples as a sorted list, so two writers that order them differently compare equal. */
const canonical = (xs: readonly Sample[]) =>
  [...xs].sort((a, b) => (sampleKey(a) < sampleKey(b) ? -1 : 1)).map((s) => [sampleKey(s), s.v]);

function byCell(samples: readonly Sample[]): Map<string, Sample[]> {
  const out = new Map<string, Sample[]>();
  for (const s of samples) {
    if (s.labels.chain === undefined) continue;
    const k = cellKey(s);
    const list = out.get(k);
    if (list) list.push(s);
    else out.set(k, [s]);
  }
  return out;
}

/** The trade ids a modelled answer stands for, as the hashes the harness would dedupe. */
function hashesOf(cell: { chain: string; token: string }, a: ModelAnswer): string[] {
  if (a.kind !== 'ok') return [];
  return Array.from({ length: a.count }, (_, i) => `${cell.chain}:${cell.token}:${a.start + i}`);
}

/** A modelled answer's trades as the digest set the harness would hold for the provider. */
function digestsOf(cell: { chain: string; token: string }, a: ModelAnswer): DigestSet {
  const d = new DigestSet(10_000);
  for (const h of hashesOf(cell, a)) d.add(h);
  return d;
}

const EVM = new Set(['ethereum', 'bsc', 'base']);
const BLOCK_MS = 12_000;
/** The reference node's finalized block trails its latest by 64 blocks (anvil). */
const FINALITY_BLOCKS = 64;

/**
 * The ground truth the dataset models for a cell at t, as the harness's reader returns it: on an
 * EVM chain the cell's true trades 0..truth−1 lie in the window's blocks [t − 60 min, t) in id
 * order, evenly spread over its 12 s blocks, so T holds them all and T_fin the share in the blocks
 * up to 64 before the last; Solana and Stellar have no reference node.
 */
function modelTruth(cell: ModelCell, t: number): Truth {
  if (!EVM.has(cell.chain))
    return { status: 'unavailable', reason: 'no-reference-node', message: 'no reference node for the chain' };
  const fromBlock = Math.ceil((t - 60 * 60_000) / BLOCK_MS);
  const toBlock = Math.ceil(t / BLOCK_MS) - 1;
  const finalizedTo = toBlock - FINALITY_BLOCKS;
  const finalizedCount = Math.floor((cell.truth * (finalizedTo - fromBlock + 1)) / (toBlock - fromBlock + 1));
  const all = new DigestSet(10_000);
  const finalized = new DigestSet(10_000);
  for (let i = 0; i < cell.truth; i++) {
    const h = `${cell.chain}:${cell.token}:${i}`;
    all.add(h);
    if (i < finalizedCount) finalized.add(h);
  }
  return { status: 'ok', all, finalized, fromBlock, toBlock, finalizedTo, complete: true };
}

/** The cell's recall samples by the harness's rule: each answer matched against the truth's digests. */
function rescoreRecall(cell: ModelCell, t: number): RecallScore {
  const truth = modelTruth(cell, t);
  return scoreRecall({
    chain: cell.chain,
    token: cell.token,
    at: t,
    truth:
      truth.status === 'ok'
        ? {
            status: 'ok',
            finalizedCount: truth.finalized.size,
            fromBlock: truth.fromBlock,
            finalizedTo: truth.finalizedTo,
          }
        : { status: 'unavailable', reason: truth.reason },
    outcomes: cell.answers.map((a) => ({
      provider: a.provider,
      outcome:
        a.kind !== 'ok'
          ? { kind: 'provider_failure' }
          : truth.status === 'ok'
            ? matchTruth(digestsOf(cell, a), truth)
            : { kind: 'ours' },
    })),
  });
}

/** Whether a benchmark measures the provider on the chain (its spec's provider entry and chains). */
function measures(spec: BenchmarkSpec, provider: string, chain: string): boolean {
  const entry = spec.providers.find((p) => p.slug === provider);
  return entry !== undefined && (!entry.chains || entry.chains.includes(chain));
}

const isRecall = (s: Sample) =>
  s.metric === METRICS.tokenTradeRecallPct ||
  s.metric === METRICS.tokenTradeRecallProbeOk ||
  s.metric === METRICS.tokenTradeUnmatched ||
  s.metric === METRICS.tokenTradePhantoms ||
  s.metric === METRICS.tokenTradeMatched ||
  s.metric === METRICS.tokenTradeTruthCount ||
  s.metric === METRICS.tokenTradeTruthBlocks ||
  s.metric === METRICS.tokenTradeTruthUnavailable;

describe('the dataset union is a union, not the max', () => {
  const opts = { seed: 7, days: 1, end: NOW };

  it('the union sample is at least every count of the cell, and above the max where providers missed different trades', () => {
    const cells = byCell(buildDataset(opts));
    let above = 0;
    for (const [key, samples] of cells) {
      const union = samples.filter((s) => s.metric === METRICS.tokenTradeUnionCount);
      expect(union, key).toHaveLength(1);
      const max = Math.max(...samples.filter((s) => s.metric === METRICS.tokenTradeCount).map((s) => s.v));
      expect(union[0]?.v, key).toBeGreaterThanOrEqual(max);
      if ((union[0]?.v ?? 0) > max) above++;
    }
    expect(cells.size).toBe(48 * 10);
    expect(above).toBeGreaterThan(0);
  });

  it('equals the size of the union of the trades each provider returned', () => {
    const union = new Map(
      buildDataset(opts)
        .filter((s) => s.metric === METRICS.tokenTradeUnionCount)
        .map((s) => [cellKey(s), s.v]),
    );
    let above = 0;
    for (const t of tradeCycleTimes(opts)) {
      for (const cell of modelTradeCycle(opts.seed, t)) {
        const ids = new Set<number>();
        let max = 0;
        for (const a of cell.answers) {
          if (a.kind !== 'ok') continue;
          max = Math.max(max, a.count);
          for (let i = a.start; i < a.start + a.count; i++) ids.add(i);
          // Every returned trade is one that happened.
          expect(a.start + a.count).toBeLessThanOrEqual(cell.truth);
        }
        expect(union.get(`${t}|${cell.chain}|${cell.token}`)).toBe(ids.size);
        if (ids.size > max) above++;
      }
    }
    expect(above).toBeGreaterThan(0);
  });
});

describe("the dataset's samples are the harness's scoring of the same answers", () => {
  // A high failure rate so cycles with 5xx providers are common.
  const opts = { seed: 11, days: 1, end: NOW, failureRate: 0.3 };

  it('every cell and every 5xx sample re-scored from the modelled answers, through digest sets', async () => {
    const specs = (await loadSpecs(BENCHMARKS_DIR)).filter((b) => b.family === 'trade-capture');
    expect(specs.map((b) => b.slug).sort()).toEqual(['token-trade-coverage', 'token-trade-recall']);
    const data = buildDataset(opts).filter((s) => s.metric !== METRICS.networksSupported);
    const cells = byCell(data);
    let failures = 0;
    let recalls = 0;
    for (const t of tradeCycleTimes(opts)) {
      // Per benchmark and provider, over the cells that benchmark measures the provider on.
      const tally = new Map<
        string,
        { benchmark: string; provider: string; probes: number; fiveXx: number }
      >();
      for (const cell of modelTradeCycle(opts.seed, t, opts.failureRate)) {
        const sets = cell.answers.map((a) => digestsOf(cell, a));
        const score = scoreCell({
          chain: cell.chain,
          token: cell.token,
          at: t,
          outcomes: cell.answers.map((a, i) => ({
            provider: a.provider,
            outcome:
              a.kind === 'ok'
                ? { kind: 'ok', count: sets[i]?.size ?? 0, capped: false }
                : { kind: 'provider_failure', fiveXx: true },
          })),
          unionCount: unionSize(sets.filter((_, i) => cell.answers[i]?.kind === 'ok')),
        });
        // The capture samples, as before, and beside them (same cycle, same answers) the recall
        // samples: truth and recall on EVM cells, token_trade_truth_unavailable elsewhere.
        const recall = rescoreRecall(cell, t);
        recalls += recall.samples.filter((x) => x.metric === METRICS.tokenTradeRecallPct).length;
        const own = cells.get(`${t}|${cell.chain}|${cell.token}`) ?? [];
        expect(canonical(own.filter((x) => !isRecall(x)))).toEqual(canonical(score.samples));
        expect(canonical(own.filter(isRecall))).toEqual(canonical(recall.samples));
        for (const a of cell.answers) {
          if (a.kind === '5xx') failures++;
          for (const spec of specs) {
            if (!measures(spec, a.provider, cell.chain)) continue;
            const k = `${spec.slug}|${a.provider}`;
            const x = tally.get(k) ?? { benchmark: spec.slug, provider: a.provider, probes: 0, fiveXx: 0 };
            x.probes++;
            if (a.kind === '5xx') x.fiveXx++;
            tally.set(k, x);
          }
        }
      }
      const fiveXx = data.filter((s) => s.metric === METRICS.providerCycle5xx && s.t === t);
      const expected = [...tally.values()].map((x) =>
        cycleFiveXxSample(x.benchmark, x.provider, t, x.fiveXx, x.probes),
      );
      expect(canonical(fiveXx)).toEqual(canonical(expected.filter((s): s is Sample => s !== null)));
      expect(new Set(fiveXx.map((s) => s.labels.benchmark))).toEqual(
        new Set(['token-trade-coverage', 'token-trade-recall']),
      );
    }
    expect(failures).toBeGreaterThan(0);
    expect(recalls).toBeGreaterThan(0);
  });

  it('dataset cells with a 5xx provider are what a real harness cycle writes for the same answers', async () => {
    // A Solana cell and an EVM cell, so the cycle serves both benchmarks of the family.
    const bonk = REFERENCE_TOKENS[0] as ReferenceToken;
    const pepe = REFERENCE_TOKENS[2] as ReferenceToken;
    const t = tradeCycleTimes(opts).find((x) => {
      const answers = modelTradeCycle(opts.seed, x, opts.failureRate)[0]?.answers ?? [];
      return answers.some((a) => a.kind === '5xx') && answers.some((a) => a.kind === 'ok');
    });
    if (t === undefined) throw new Error('no cycle with both a 5xx and an answer');
    const model = modelTradeCycle(opts.seed, t, opts.failureRate);
    const cellOf = (token: ReferenceToken): ModelCell => {
      const c = model.find((x) => x.chain === token.chain && x.token === token.symbol);
      if (!c) throw new Error(`no dataset cell ${token.chain}/${token.symbol}`);
      return c;
    };
    const cells = [bonk, pepe].map((token) => ({ token, cell: cellOf(token) }));
    // Each request names its token's address (Mobula's query, the GraphQL variables).
    const cellAsked = (r: StubRequest): ModelCell => {
      const text = `${r.path}?${r.query}${r.body}`;
      const hit = cells.find((c) => text.includes(c.token.address));
      if (!hit) throw new Error(`a request for no modelled cell: ${text.slice(0, 200)}`);
      return hit.cell;
    };
    const reply = (r: StubRequest, p: string, body: (h: string[]) => unknown): StubResponse => {
      const cell = cellAsked(r);
      const a = cell.answers.find((x) => x.provider === p);
      if (a?.kind !== 'ok') return { status: 503, body: '{}' };
      return { body: JSON.stringify(body(hashesOf(cell, a))) };
    };
    const stub = await startStubServer((r: StubRequest) => {
      if (r.path.startsWith('/mobula/')) {
        return reply(r, 'mobula', (h) => ({
          data: h.map((transactionHash) => ({ transactionHash, type: 'buy', date: t - 1000 })),
          pagination: { count: h.length, nextCursor: null, hasMore: false },
        }));
      }
      if (r.path.startsWith('/bitquery/')) {
        return reply(r, 'bitquery', (h) =>
          cellAsked(r).chain === 'solana'
            ? {
                data: {
                  Solana: { DEXTradeByTokens: h.map((Signature) => ({ Transaction: { Signature } })) },
                },
              }
            : { data: { EVM: { DEXTradeByTokens: h.map((Hash) => ({ Transaction: { Hash } })) } } },
        );
      }
      return reply(r, 'codex', (h) => ({
        data: { getTokenEvents: { items: h.map((transactionHash) => ({ transactionHash })), cursor: null } },
      }));
    });
    cleanup.push(() => stub.close());
    // No REFERENCE_RPC_<CHAIN>: the harness has no reference node, so no cell has a ground truth.
    const env: Record<string, string> = { HARNESS_MAX_RETRIES: '0' };
    for (const p of ['mobula', 'bitquery', 'codex']) {
      env[`${p.toUpperCase()}_BASE_URL`] = `${stub.url}/${p}`;
      env[`${p.toUpperCase()}_API_KEY`] = 'k';
    }
    const mem = createMemoryStore();
    const written: Sample[] = [];
    const store = {
      ...mem,
      append: (xs: readonly Sample[]) => {
        written.push(...xs);
        return mem.append(xs);
      },
    };
    const h = startHarness({
      store,
      specs: await loadSpecs(BENCHMARKS_DIR),
      metrics: new Registry(),
      harnessConfig: loadHarnessConfig(env),
      tokens: [bonk, pepe],
      autoStart: false,
      sleep: async () => {},
    });
    cleanup.push(() => h.stop());
    await h.runCycle('token-trade-coverage', t);

    const dataset = buildDataset(opts).filter((s) => s.t === t);
    const of = (token: ReferenceToken, xs: readonly Sample[]) =>
      xs.filter((s) => s.labels.chain === token.chain && s.labels.token === token.symbol);
    // Capture: the same samples, cell by cell.
    for (const { token } of cells) {
      const capture = (xs: readonly Sample[]) => of(token, xs).filter((s) => !isRecall(s));
      expect(canonical(capture(written)), token.symbol).toEqual(canonical(capture(dataset)));
      expect(capture(written).some((s) => s.metric === METRICS.tokenTradeCapturePct)).toBe(true);
    }
    // Recall: Solana has no reference node in either, so both write the same unavailable truth.
    expect(canonical(of(bonk, written).filter(isRecall))).toEqual(
      canonical(of(bonk, dataset).filter(isRecall)),
    );
    expect(
      of(bonk, written)
        .filter(isRecall)
        .map((s) => [s.metric, s.labels.reason, s.v]),
    ).toEqual([[METRICS.tokenTradeTruthUnavailable, 'no-reference-node', 1]]);
    // The EVM cell: this harness has no node and says so, scoring nobody; the dataset models the
    // node the demo runs, and its recall samples are the harness's rule on that truth (checked
    // through digest sets) and score the failed provider 0 with a failed probe.
    expect(
      of(pepe, written)
        .filter(isRecall)
        .map((s) => [s.metric, s.labels.reason, s.v]),
    ).toEqual([[METRICS.tokenTradeTruthUnavailable, 'no-reference-node', 1]]);
    const pepeRecall = of(pepe, dataset).filter(isRecall);
    expect(canonical(pepeRecall)).toEqual(canonical(rescoreRecall(cellOf(pepe), t).samples));
    const failed = cellOf(pepe)
      .answers.filter((a) => a.kind === '5xx')
      .map((a) => a.provider);
    expect(failed.length).toBeGreaterThan(0);
    for (const provider of failed) {
      const own = pepeRecall.filter((s) => s.labels.provider === provider);
      expect(own.map((s) => [s.metric, s.v]).sort()).toEqual([
        [METRICS.tokenTradeRecallPct, 0],
        [METRICS.tokenTradeRecallProbeOk, 0],
      ]);
    }
    // The failed provider failed every cell of the dataset cycle: both call it a cycle of 5xx on
    // token-trade-coverage (all cells). token-trade-recall tallies only the cells it scores (with
    // truth): this harness has none, so it writes no recall cycle at all; the dataset, whose EVM
    // cells have the modelled truth, calls the failed provider a cycle of 5xx there too.
    const cycle5xx = (xs: readonly Sample[], benchmark: string) =>
      xs.filter((s) => s.metric === METRICS.providerCycle5xx && s.labels.benchmark === benchmark);
    expect(canonical(cycle5xx(written, 'token-trade-coverage'))).toEqual(
      canonical(cycle5xx(dataset, 'token-trade-coverage')),
    );
    expect(cycle5xx(written, 'token-trade-recall')).toEqual([]);
    for (const xs of [written, dataset]) {
      const own = xs === written ? cycle5xx(xs, 'token-trade-coverage') : cycle5xx(xs, 'token-trade-recall');
      expect(
        own
          .filter((s) => s.v === 1)
          .map((s) => s.labels.provider)
          .sort(),
      ).toEqual([...failed].sort());
    }
  });
});

describe('no 0/0 in the dataset', () => {
  it('a cell where every provider returned zero stores probe, count and capped samples but no capture', () => {
    // Every provider fails every cycle: each cell's counts are all zero.
    const data = buildDataset({ seed: 3, days: 1, end: NOW, failureRate: 1 });
    const trade = data.filter((s) => s.labels.chain !== undefined);
    expect(trade.filter((s) => s.metric === METRICS.tokenTradeCapturePct)).toEqual([]);
    const probes = trade.filter((s) => s.metric === METRICS.tokenTradeProbeOk);
    // 48 cycles × (8 cells × 3 providers + 2 Stellar cells × mobula).
    expect(probes).toHaveLength(48 * 26);
    expect(probes.every((s) => s.v === 0)).toBe(true);
    const counts = trade.filter((s) => s.metric === METRICS.tokenTradeCount);
    expect(counts).toHaveLength(48 * 26);
    expect(counts.every((s) => s.v === 0)).toBe(true);
    expect(trade.filter((s) => s.metric === METRICS.tokenTradeCapped)).toHaveLength(48 * 26);
    expect(trade.filter((s) => s.metric === METRICS.tokenTradeUnionCount).map((s) => s.v)).toEqual(
      Array(48 * 10).fill(0),
    );
  });

  it('the scoring: every provider answered with zero trades, so probes are ok and nothing is a score', () => {
    const score = scoreCell({
      chain: 'solana',
      token: 'BONK',
      at: NOW,
      outcomes: [
        { provider: 'mobula', outcome: { kind: 'ok', count: 0, capped: false } },
        { provider: 'bitquery', outcome: { kind: 'ok', count: 0, capped: false } },
        { provider: 'codex', outcome: { kind: 'ours' } },
      ],
      unionCount: 0,
    });
    expect(score.samples.map((s) => [s.metric, s.labels.provider ?? '', s.v])).toEqual([
      [METRICS.tokenTradeCount, 'mobula', 0],
      [METRICS.tokenTradeProbeOk, 'mobula', 1],
      [METRICS.tokenTradeCapped, 'mobula', 0],
      [METRICS.tokenTradeCount, 'bitquery', 0],
      [METRICS.tokenTradeProbeOk, 'bitquery', 1],
      [METRICS.tokenTradeCapped, 'bitquery', 0],
      [METRICS.tokenTradeUnionCount, '', 0],
    ]);
    expect(score.providers.map((p) => p?.pct)).toEqual([null, null, undefined]);
  });
});
