import { mapLimit } from '../../../concurrency/semaphore.ts';
import type { Sample } from '../../../core/samples.ts';
import type { BenchmarkSpec } from '../../../core/spec-schema.ts';
import type { HarnessProvider } from '../../config.ts';
import { type DigestSet, unionSize } from '../../digest-set.ts';
import type { CellProviderOutcome, CellReport, CycleReport, ProviderOutcome } from '../../report.ts';
import { adapterContext, checkConfigured, type HarnessRuntime, providerSemaphore } from '../../runtime.ts';
import { TRADE_WINDOW_MS } from '../../tokens.ts';
import { blame, guard, is5xx, type Result } from '../../types.ts';
import type { ProbeReports, ProbeRun } from '../family.ts';
import { providerUnion } from '../union.ts';
import type { TradeAdapter, TradeFetch, TradeWindow } from './adapters/contract.ts';
import { TRADE_ADAPTERS } from './adapters/registry.ts';
import { type CellLabels, type CellOutcome, cycleFiveXxSample, scoreCell } from './cell-score.ts';
import { markUnresponsive, seedUnresponsive } from './mark-unresponsive.ts';
import { withPhantoms } from './phantoms.ts';
import {
  matchTruth,
  type RecallOutcome,
  recallTruthOf,
  reportedRecall,
  scoreRecall,
} from './recall-score.ts';
import type { Truth } from './truth.ts';

/** A provider the probe measures: its adapter and the union of the chains its benchmarks want. */
interface Measured {
  readonly slug: HarnessProvider;
  readonly adapter: TradeAdapter;
  readonly chains: ReadonlySet<string>;
}

/** One benchmark's view of one provider: the chains it measures it on, and what its cells came to. */
export interface BenchmarkTally {
  readonly slug: HarnessProvider;
  readonly chains: ReadonlySet<string>;
  /** Cells scored this cycle (a sample was written), and how many of them ended in a 5xx. */
  probes: number;
  fiveXx: number;
  okCells: number;
  zeroCells: number;
  total: number;
}

interface BenchmarkRun {
  readonly spec: BenchmarkSpec;
  readonly outcomes: ProviderOutcome[];
  readonly tallies: BenchmarkTally[];
  done: number;
  total: number;
}

/** Why the cycle's signal fired: our deadline, or the harness stopping. */
export function abortReason(signal: AbortSignal): 'deadline' | 'shutdown' {
  return signal.reason === 'shutdown' ? 'shutdown' : 'deadline';
}

/** Only chains in the spec count: a provider without Stellar is excluded there, never zero. */
const chainsOf = (chains: readonly string[] | undefined, adapter: TradeAdapter) =>
  (chains ?? adapter.chains).filter((c) => adapter.chains.includes(c));

/**
 * One trade-capture probe over [at − 60 min, at), for the union of the providers and cells of the
 * family's benchmarks: each (provider, token) is fetched once per slot. Per cell, every provider
 * measuring that chain runs in parallel and the cell is scored by the harness contract (`blame` in
 * types.ts): failures the provider causes count as zero trades and a failed probe, failures on our
 * side write nothing for that provider, and a cell our deadline cut short writes nothing for anyone.
 * Each benchmark then tallies its own providers and cells (its provider_cycle_5xx, its report).
 * Every sample of the cycle is written in one append, so a cycle is stored whole or not at all.
 */
export async function runTradeCaptureProbe(run: ProbeRun): Promise<ProbeReports> {
  const { rt, at, signal } = run;
  const started = performance.now();
  const w: TradeWindow = { startMs: at - TRADE_WINDOW_MS, endMs: at };
  const samples: Sample[] = [];
  const measured: Measured[] = [];
  const setupOutcomes = new Map<string, ProviderOutcome>();
  for (const u of providerUnion(run.benchmarks)) {
    if (rt.onlyProviders && !rt.onlyProviders.has(u.slug)) continue;
    const adapter = TRADE_ADAPTERS.get(u.slug);
    if (!adapter) {
      rt.log('warn', `no trade adapter for ${u.slug}`, { provider: u.slug });
      setupOutcomes.set(u.slug, { provider: u.slug, status: 'unsupported', durationMs: 0 });
      continue;
    }
    if (!checkConfigured(rt, adapter.provider)) {
      setupOutcomes.set(u.slug, { provider: u.slug, status: 'not_configured', durationMs: 0 });
      continue;
    }
    const chains = new Set(u.entries.flatMap((e) => chainsOf(e.chains, adapter)));
    measured.push({ slug: adapter.provider, adapter, chains });
  }
  const runs: BenchmarkRun[] = run.benchmarks.map((spec) => {
    const outcomes: ProviderOutcome[] = [];
    const tallies: BenchmarkTally[] = [];
    for (const p of spec.providers) {
      const early = setupOutcomes.get(p.slug);
      if (early) outcomes.push(early);
      const m = measured.find((x) => x.slug === p.slug);
      if (m) {
        const chains = new Set(chainsOf(p.chains, m.adapter));
        tallies.push({ slug: m.slug, chains, probes: 0, fiveXx: 0, okCells: 0, zeroCells: 0, total: 0 });
      }
    }
    const total = rt.tokens.filter((t) => tallies.some((x) => x.chains.has(t.chain))).length;
    return { spec, outcomes, tallies, done: 0, total };
  });
  /**
   * The benchmarks that measure `provider` on `chain` and scored its probe of the cell (a sample of
   * their probe metric was written: every cell for capture, only cells with truth for recall),
   * with their tally of it: each benchmark's cycles of 5xx are over the cells it scores.
   */
  const talliesOf = (provider: string, chain: string, written: readonly Sample[]) =>
    runs
      .filter((b) => {
        const d = b.spec.derivation;
        return (
          d.mode !== 'window' ||
          written.some((s) => s.metric === d.probeMetric && s.labels.provider === provider)
        );
      })
      .flatMap((b) => b.tallies.filter((x) => x.slug === provider && x.chains.has(chain)));
  const runsOfCell = (chain: string) => runs.filter((b) => b.tallies.some((x) => x.chains.has(chain)));
  // The unresponsive streaks' one store read, before anything is measured (mark-unresponsive.ts).
  await seedUnresponsive(
    rt,
    runs.map((b) => b.spec.slug),
    at,
  );

  /** A cell's report per benchmark that measures it, by slug. */
  type CellReports = Map<string, CellReport>;
  const abandon = (chain: string, token: string): CellReports => {
    const reason = abortReason(signal);
    const benches = runsOfCell(chain);
    const out: CellReports = new Map();
    for (const b of benches) {
      rt.metrics.cellsAbandoned.inc({ benchmark: b.spec.slug, reason });
      out.set(b.spec.slug, { chain, token, providers: [], abandoned: reason });
    }
    const benchmark = benches.map((b) => b.spec.slug).join(',');
    rt.log('warn', `${benchmark} ${chain}/${token}: cell abandoned (${reason}), nothing stored for it`, {
      benchmark,
      reason,
    });
    return out;
  };
  // Every cell's truth is read from the cycle's start, beside the providers' fetches (cells run a
  // few at a time; the reads need only the nodes): it never delays the providers' timing, and a
  // cell rarely waits for it.
  const truthReads = new Map(
    rt.tokens
      .filter((t) => measured.some((m) => m.chains.has(t.chain)))
      .map((t) => [t, readTruth(rt, t, w, signal)] as const),
  );
  const cells = await mapLimit(
    rt.tokens,
    rt.config.cellConcurrency,
    async (token): Promise<CellReports | null> => {
      const ps = measured.filter((m) => m.chains.has(token.chain));
      if (ps.length === 0) return null;
      if (signal.aborted) return abandon(token.chain, token.symbol);
      const truthRead = truthReads.get(token) ?? readTruth(rt, token, w, signal);
      const results = await Promise.all(
        ps.map(async (m) => {
          const t0 = performance.now();
          const r = await providerSemaphore(rt, m.slug).run(() =>
            guard(() => m.adapter.fetch(token, w, adapterContext(rt, m.slug, signal))),
          );
          return { m, r, durationMs: performance.now() - t0 };
        }),
      );
      // Our deadline cut the cell short: the others' counts would be scored against a baseline
      // that misses a provider, so nobody's sample is stored.
      if (results.some(({ r }) => !r.ok && r.failure.type === 'deadline')) {
        return abandon(token.chain, token.symbol);
      }
      // Scored by the one rule the deterministic dataset also applies (cell-score.ts); the union
      // is over the hashes of the providers that answered, a failure adds none.
      const okSets: DigestSet[] = [];
      for (const { r } of results) if (r.ok) okSets.push(r.value.hashes);
      const score = scoreCell({
        chain: token.chain,
        token: token.symbol,
        at,
        outcomes: results.map(({ m, r }) => ({ provider: m.slug, outcome: outcomeOf(r) })),
        unionCount: unionSize(okSets),
      });
      samples.push(...score.samples);
      const checked = await withPhantoms(
        rt.truth,
        token,
        results.map(({ r }) => r),
        await truthRead,
        signal,
      );
      const truth = checked.truth;
      if (truth.status === 'unavailable' && truth.message.startsWith('phantom check'))
        rt.log('warn', `ground truth ${token.chain}/${token.address}: ${truth.message}`, {});
      const recall = scoreRecall({
        chain: token.chain,
        token: token.symbol,
        at,
        truth: recallTruthOf(truth),
        outcomes: results.map(({ m, r }, i) => ({
          provider: m.slug,
          outcome: recallOutcomeOf(r, truth, checked.phantoms[i] ?? 0),
        })),
      });
      samples.push(...recall.samples);
      const cellSamples = [...score.samples, ...recall.samples];
      const providers: CellProviderOutcome[] = [];
      results.forEach(({ m, r, durationMs }, i) => {
        const s = score.providers[i];
        const labels = { provider: m.slug, chain: token.chain, token: token.symbol };
        const tallies = talliesOf(m.slug, token.chain, cellSamples);
        if (!r.ok) {
          const f = r.failure;
          const benchmark = runsOfCell(token.chain)
            .filter((b) => b.tallies.some((x) => x.slug === m.slug && x.chains.has(token.chain)))
            .map((b) => b.spec.slug);
          for (const slug of benchmark)
            rt.metrics.fetchErrors.inc({ benchmark: slug, provider: m.slug, error_type: f.type });
          rt.log('warn', `${m.slug} ${token.chain}/${token.symbol}: ${f.type}: ${f.message}`, {
            benchmark: benchmark.join(','),
            provider: m.slug,
            error_type: f.type,
          });
          if (!s) {
            removeGauges(rt, labels);
            providers.push({ provider: m.slug, status: 'excluded', failure: f, durationMs });
            return;
          }
          for (const x of tallies) {
            x.probes++;
            x.zeroCells++;
            if (s.fiveXx) x.fiveXx++;
          }
          setGauges(rt, labels, 0, s.pct, 0);
          providers.push({
            provider: m.slug,
            status: 'zero',
            count: 0,
            ...(s.pct !== null ? { capturePct: s.pct } : {}),
            ...reportedRecall(recall.providers[i]),
            failure: f,
            durationMs,
          });
          return;
        }
        if (!s) return; // scoreCell returns null only for a failure on our side
        const v = r.value;
        for (const x of tallies) {
          x.probes++;
          x.okCells++;
          x.total += s.count;
        }
        setGauges(rt, labels, s.count, s.pct, 1);
        rt.metrics.tokenTradeCapped.set(labels, v.capped ? 1 : 0);
        providers.push({
          provider: m.slug,
          status: 'ok',
          count: s.count,
          ...(s.pct !== null ? { capturePct: s.pct } : {}),
          ...reportedRecall(recall.providers[i]),
          capped: v.capped,
          pages: v.pages,
          durationMs,
        });
      });
      const unionCount = score.unionCount;
      if (unionCount !== undefined) {
        rt.metrics.tokenTradeUnionCount.set({ chain: token.chain, token: token.symbol }, unionCount);
      }
      const out: CellReports = new Map();
      for (const b of runsOfCell(token.chain)) {
        // Each benchmark's report shows its own providers of the cell.
        const own = new Set(b.tallies.filter((x) => x.chains.has(token.chain)).map((x) => x.slug));
        const report: CellReport = {
          chain: token.chain,
          token: token.symbol,
          providers: providers.filter((p) => own.has(p.provider as HarnessProvider)),
          ...(unionCount !== undefined ? { unionCount } : {}),
          truth: truth.status === 'ok' ? { count: truth.finalized.size } : { unavailable: truth.reason },
        };
        out.set(b.spec.slug, report);
        rt.onCell?.(b.spec.slug, report, ++b.done, b.total);
      }
      return out;
    },
  );

  // One provider_cycle_5xx sample per benchmark and provider scored this cycle feeds the
  // unresponsive marker, each over the benchmark's own cells.
  const fiveXx = new Map<string, Sample[]>();
  for (const b of runs) {
    const own: Sample[] = [];
    for (const x of b.tallies) {
      const s = cycleFiveXxSample(b.spec.slug, x.slug, at, x.fiveXx, x.probes);
      if (s) own.push(s);
    }
    samples.push(...own);
    fiveXx.set(b.spec.slug, own);
  }
  const written = await run.write(samples);
  const reports = new Map<string, CycleReport>();
  for (const b of runs) {
    // From the harness's own cycles: nothing reads the store between the append and the report.
    const unresponsive = markUnresponsive(rt, b.spec.slug, at, b.tallies, fiveXx.get(b.spec.slug) ?? []);
    const outcomes = [...b.outcomes];
    for (const x of b.tallies) {
      outcomes.push({
        provider: x.slug,
        status: x.okCells > 0 ? 'ok' : x.zeroCells > 0 ? 'zero' : 'failed',
        count: x.total,
        durationMs: 0,
      });
    }
    reports.set(b.spec.slug, {
      benchmark: b.spec.slug,
      at,
      durationMs: performance.now() - started,
      samplesWritten: written,
      aborted: signal.aborted,
      providers: outcomes,
      // In token order, as the cells were listed (mapLimit keeps input order).
      cells: cells.flatMap((c) => c?.get(b.spec.slug) ?? []),
      unresponsive,
    });
  }
  return reports;
}

/** How long a cell's truth read may take (wall clock) before the cell is scored without it. */
export const TRUTH_BUDGET_MS = 120_000;

/** A reader failure is the reference node's, never the providers': the cell then has no truth. */
async function readTruth(
  rt: HarnessRuntime,
  token: { readonly chain: string; readonly address: string },
  w: TradeWindow,
  signal: AbortSignal,
): Promise<Truth> {
  const address = token.address.toLowerCase();
  if (!rt.truth || !/^0x[0-9a-f]{40}$/.test(address))
    return { status: 'unavailable', reason: 'no-reference-node', message: 'no reference node for the chain' };
  // Its own budget within the cycle's: a slow node (or a first pool scan) must not hold the cells
  // waiting for it until the cycle's deadline abandons the ones not yet run.
  const budget = AbortSignal.any([signal, AbortSignal.timeout(TRUTH_BUDGET_MS)]);
  try {
    return await rt.truth.read(token.chain, address as `0x${string}`, w, budget);
  } catch (e) {
    rt.log('warn', `ground truth ${token.chain}/${token.address}: ${(e as Error).message}`, {});
    return { status: 'unavailable', reason: 'node-error', message: (e as Error).message };
  }
}

function recallOutcomeOf(r: Result<TradeFetch>, truth: Truth, phantoms: number): RecallOutcome {
  if (r.ok) return truth.status === 'ok' ? matchTruth(r.value.hashes, truth, phantoms) : { kind: 'ours' };
  return blame(r.failure) === 'ours' ? { kind: 'ours' } : { kind: 'provider_failure' };
}

/** The scoring's view of a fetch: blame decides whether a failure is the provider's or ours. */
function outcomeOf(r: Result<TradeFetch>): CellOutcome {
  if (r.ok) return { kind: 'ok', count: r.value.hashes.size, capped: r.value.capped };
  if (blame(r.failure) === 'ours') return { kind: 'ours' };
  return { kind: 'provider_failure', fiveXx: is5xx(r.failure) };
}

function setGauges(
  rt: HarnessRuntime,
  labels: CellLabels,
  count: number,
  pct: number | null,
  probe: number,
): void {
  if (pct === null) rt.metrics.tokenTradeCapturePct.remove(labels);
  else rt.metrics.tokenTradeCapturePct.set(labels, pct);
  rt.metrics.tokenTradeCount.set(labels, count);
  rt.metrics.tokenTradeProbeOk.set(labels, probe);
}

function removeGauges(rt: HarnessRuntime, labels: CellLabels): void {
  rt.metrics.tokenTradeCapturePct.remove(labels);
  rt.metrics.tokenTradeCount.remove(labels);
  rt.metrics.tokenTradeProbeOk.remove(labels);
}
