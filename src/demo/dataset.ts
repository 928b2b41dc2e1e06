import { hash32, prng } from '../core/prng.ts';
import type { Sample } from '../core/samples.ts';
import { METRICS } from '../harness/families/metric-names.ts';
import {
  type CellScore,
  cycleFiveXxSample,
  scoreCell,
} from '../harness/families/trade-capture/cell-score.ts';
import { type RecallScore, scoreRecall } from '../harness/families/trade-capture/recall-score.ts';

/**
 * A deterministic dataset in the harness's sample shape, for tests and benchmarks (the demo runs
 * real harness cycles instead). Same seed, days and end give the same samples.
 */
export interface DatasetOptions {
  readonly seed: number;
  readonly days: number;
  /** Epoch ms; the last cycle is the newest aligned slot at or before it. */
  readonly end: number;
  /** Probability that a provider's cycle fails (no sample for coverage; 5xx for trades). */
  readonly failureRate?: number;
  /**
   * Write each cycle's harness_cycle markers, one per benchmark the cycle serves, as the harness
   * does (default false: the datasets tests were written against have none).
   */
  readonly markers?: boolean;
  /** The service was down over (from, to]: no cycle ran there, so nothing is written (issue 26's missing slots). */
  readonly down?: { readonly from: number; readonly to: number };
}

const NETWORK_BASE: Readonly<Record<string, number>> = {
  geckoterminal: 263,
  codex: 133,
  mobula: 78,
  coinpaprika: 307,
  coingecko: 388,
  coinstats: 61,
  covalent: 104,
  'sim-dune': 58,
};

export const TRADE_CELLS: readonly { chain: string; token: string }[] = [
  { chain: 'solana', token: 'BONK' },
  { chain: 'solana', token: 'WIF' },
  { chain: 'ethereum', token: 'PEPE' },
  { chain: 'ethereum', token: 'MOG' },
  { chain: 'bsc', token: 'CAKE' },
  { chain: 'bsc', token: 'FLOKI' },
  { chain: 'base', token: 'BRETT' },
  { chain: 'base', token: 'DEGEN' },
  { chain: 'stellar', token: 'yXLM' },
  { chain: 'stellar', token: 'SHX' },
];

/** Typical share of a cell's trades each provider returns, and which chains it covers. */
const TRADE_PROVIDERS: readonly { slug: string; capture: number; spread: number; stellar: boolean }[] = [
  { slug: 'mobula', capture: 0.985, spread: 0.03, stellar: true },
  { slug: 'bitquery', capture: 0.95, spread: 0.06, stellar: false },
  { slug: 'codex', capture: 0.93, spread: 0.05, stellar: false },
];

const H = 3_600_000;
const TRADE_STEP = 30 * 60_000;
const TRADE_BENCHMARK = 'token-trade-coverage';
const NETWORK_BENCHMARK = 'network-coverage';
const RECALL_BENCHMARK = 'token-trade-recall';
/** Chains whose cells have a ground truth (a reference node): the EVM chains. */
const TRUTH_CHAINS = new Set(['ethereum', 'bsc', 'base']);
const BLOCK_MS = 12_000;
/** anvil's finalized block trails latest by 64 blocks. */
const FINALITY_BLOCKS = 64;

/**
 * One provider's answer on a modelled cell. The cell's true trades are the ids 0..truth−1 and a
 * provider returns the contiguous run [start, start + count) of them (it misses some at the start
 * or the end of the window), so the union across providers is exact interval arithmetic instead of
 * materialised sets: a 90-day bench is ~110k answers. A 5xx answer returns nothing.
 */
export type ModelAnswer =
  | { readonly provider: string; readonly kind: 'ok'; readonly start: number; readonly count: number }
  | { readonly provider: string; readonly kind: '5xx' };

export interface ModelCell {
  readonly chain: string;
  readonly token: string;
  /** The trades that happened in the window (ids 0..truth−1). */
  readonly truth: number;
  readonly answers: readonly ModelAnswer[];
}

/** The cycle times of the trade benchmark in the dataset, newest first (every 30 min). */
export function tradeCycleTimes(o: DatasetOptions): number[] {
  const start = o.end - o.days * 24 * H;
  const out: number[] = [];
  for (let t = Math.floor(o.end / TRADE_STEP) * TRADE_STEP; t > start; t -= TRADE_STEP) out.push(t);
  return out;
}

/**
 * What every provider returned on every cell of the cycle at t. A failed provider fails the whole
 * cycle with a 5xx (an outage), which is what makes provider_cycle_5xx 1.
 */
export function modelTradeCycle(seed: number, t: number, failureRate = 0.02): ModelCell[] {
  const r = prng(hash32(`trade:${seed}:${t}`));
  // Offsets come from their own stream so the counts stay those of the seed's earlier dataset.
  const offset = prng(hash32(`trade-offset:${seed}:${t}`));
  const failed = new Set(TRADE_PROVIDERS.filter(() => r() < failureRate).map((p) => p.slug));
  return TRADE_CELLS.map((cell) => {
    const truth = 200 + Math.floor(r() * 1800);
    const answers: ModelAnswer[] = [];
    for (const p of TRADE_PROVIDERS) {
      if (cell.chain === 'stellar' && !p.stellar) continue;
      const share = Math.min(1, Math.max(0, p.capture + (r() - 0.5) * 2 * p.spread));
      const count = Math.round(truth * share);
      const start = Math.floor(offset() * (truth - count + 1));
      answers.push(
        failed.has(p.slug)
          ? { provider: p.slug, kind: '5xx' }
          : { provider: p.slug, kind: 'ok', start, count },
      );
    }
    return { chain: cell.chain, token: cell.token, truth, answers };
  });
}

/** |A ∪ B ∪ …| of the answered runs: merge the intervals in start order. */
function unionOfAnswers(answers: readonly ModelAnswer[]): number {
  const runs: { start: number; end: number }[] = [];
  for (const a of answers)
    if (a.kind === 'ok' && a.count > 0) runs.push({ start: a.start, end: a.start + a.count });
  runs.sort((x, y) => x.start - y.start);
  let n = 0;
  let reach = Number.NEGATIVE_INFINITY;
  for (const { start, end } of runs) {
    if (end <= reach) continue;
    n += end - Math.max(start, reach);
    reach = end;
  }
  return n;
}

/** The cell's samples, by the harness's own scoring (a 5xx is zero trades and a failed probe). */
function scoreModelCell(cell: ModelCell, t: number): CellScore {
  return scoreCell({
    chain: cell.chain,
    token: cell.token,
    at: t,
    outcomes: cell.answers.map((a) => ({
      provider: a.provider,
      outcome:
        a.kind === 'ok'
          ? { kind: 'ok', count: a.count, capped: false }
          : { kind: 'provider_failure', fiveXx: true },
    })),
    unionCount: unionOfAnswers(cell.answers),
  });
}

/**
 * The cell's recall samples, by the harness's own rule (recall-score.ts). The model's truth is the
 * cell's `truth` transactions, all finalized but those of the window's last 64 blocks; a provider's
 * answer is a run of them, so it matches T exactly where it matches T_fin's part of the run.
 */
function recallModelCell(cell: ModelCell, t: number): RecallScore {
  const fromBlock = Math.ceil((t - H) / BLOCK_MS);
  const toBlock = Math.ceil(t / BLOCK_MS) - 1;
  const finalizedTo = toBlock - FINALITY_BLOCKS;
  const finalizedCount = Math.floor((cell.truth * (finalizedTo - fromBlock + 1)) / (toBlock - fromBlock + 1));
  return scoreRecall({
    chain: cell.chain,
    token: cell.token,
    at: t,
    truth: TRUTH_CHAINS.has(cell.chain)
      ? { status: 'ok', finalizedCount, fromBlock, finalizedTo }
      : { status: 'unavailable', reason: 'no-reference-node' },
    outcomes: cell.answers.map((a) => ({
      provider: a.provider,
      outcome:
        a.kind === 'ok'
          ? {
              kind: 'ok',
              returned: a.count,
              inFinalized: Math.max(0, Math.min(a.start + a.count, finalizedCount) - a.start),
              inAll: a.count,
              // A model answer is a run of the cell's truth: nothing outside it, so no phantom.
              phantoms: 0,
            }
          : { kind: 'provider_failure' },
    })),
  });
}

export function buildDataset(o: DatasetOptions): Sample[] {
  const out: Sample[] = [];
  const fail = o.failureRate ?? 0.02;
  const start = o.end - o.days * 24 * H;
  const ran = (t: number) => !(o.down && t > o.down.from && t <= o.down.to);
  const mark = (t: number, benchmarks: readonly string[]) => {
    if (o.markers)
      for (const benchmark of benchmarks)
        out.push({ metric: METRICS.harnessCycle, labels: { benchmark }, t, v: 1 });
  };

  const netStep = 6 * H;
  for (let t = Math.floor(o.end / netStep) * netStep; t > start; t -= netStep) {
    if (!ran(t)) continue;
    mark(t, [NETWORK_BENCHMARK]);
    const r = prng(hash32(`net:${o.seed}:${t}`));
    const dayIndex = Math.floor((t - start) / (24 * H));
    for (const [provider, base] of Object.entries(NETWORK_BASE)) {
      if (r() < fail) continue;
      // Listings grow slowly; the hash keeps the growth per provider deterministic.
      const growth = Math.floor(dayIndex * ((hash32(provider) % 5) / 10));
      out.push({ metric: METRICS.networksSupported, labels: { provider }, t, v: base + growth });
    }
  }

  for (const t of tradeCycleTimes(o)) {
    if (!ran(t)) continue;
    mark(t, [TRADE_BENCHMARK, RECALL_BENCHMARK]);
    // Per benchmark (each over its own cells, as the harness tallies them) and provider.
    const probes = new Map<string, Map<string, { probes: number; fiveXx: number }>>();
    const tally = (benchmark: string, provider: string, fiveXx: boolean) => {
      const byProvider = probes.get(benchmark) ?? new Map<string, { probes: number; fiveXx: number }>();
      probes.set(benchmark, byProvider);
      const x = byProvider.get(provider) ?? { probes: 0, fiveXx: 0 };
      x.probes++;
      if (fiveXx) x.fiveXx++;
      byProvider.set(provider, x);
    };
    for (const cell of modelTradeCycle(o.seed, t, fail)) {
      const score = scoreModelCell(cell, t);
      for (const s of score.samples) out.push(s);
      for (const s of recallModelCell(cell, t).samples) out.push(s);
      for (const p of score.providers) {
        if (!p) continue;
        tally(TRADE_BENCHMARK, p.labels.provider, p.fiveXx);
        if (TRUTH_CHAINS.has(cell.chain)) tally(RECALL_BENCHMARK, p.labels.provider, p.fiveXx);
      }
    }
    for (const [benchmark, byProvider] of probes)
      for (const [provider, x] of byProvider) {
        const s = cycleFiveXxSample(benchmark, provider, t, x.fiveXx, x.probes);
        if (s) out.push(s);
      }
  }
  return out;
}
