import { mapLimit } from '../../../concurrency/semaphore.ts';
import type { Sample } from '../../../core/samples.ts';
import type { BenchmarkSpec } from '../../../core/spec-schema.ts';
import type { HarnessProvider } from '../../config.ts';
import { type DigestSet, unionSize } from '../../digest-set.ts';
import type { CellProviderOutcome, CellReport, CycleReport, ProviderOutcome } from '../../report.ts';
import { adapterContext, checkConfigured, providerSemaphore } from '../../runtime.ts';
import { TRADE_WINDOW_MS } from '../../tokens.ts';
import { guard } from '../../types.ts';
import type { ProbeReports, ProbeRun } from '../family.ts';
import { providerUnion } from '../union.ts';
import type { TradeAdapter, TradeWindow } from './adapters/contract.ts';
import { TRADE_ADAPTERS } from './adapters/registry.ts';
import { removeGauges, setGauges } from './cell-gauges.ts';
import { cycleFiveXxSample, scoreCell } from './cell-score.ts';
import { isRefusal, outcomeOf, readTruth, recallOutcomeOf } from './fetch-outcome.ts';
import { markUnresponsive, seedUnresponsive } from './mark-unresponsive.ts';
import { TRADE_CAPTURE_METRICS } from './metrics.ts';
import { withPhantoms } from './phantoms.ts';
import { recallTruthOf, reportedRecall, scoreRecall } from './recall-score.ts';
import {
  exclusionSample,
  keyRefusedProviders,
  type ProbeRefusal,
  type RefusedCell,
  refusalAsFailure,
} from './refusals.ts';

/** A cell report's provider entry, completed once the cycle decides whose a refusal was. */
type PendingOutcome = { -readonly [K in keyof CellProviderOutcome]: CellProviderOutcome[K] };
const M = TRADE_CAPTURE_METRICS;

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
 * side score nothing for that provider and store its exclusion, a cell our deadline cut short scores
 * nobody, and a refusal is ours only when the provider refused every cell of the cycle.
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

  // Every probe's refusal or not, and the cells scored without a refusal: decided after the cycle.
  const refusals: ProbeRefusal[] = [];
  const refused: (RefusedCell & { readonly entry: PendingOutcome })[] = [];
  /** A cell's report per benchmark that measures it, by slug. */
  type CellReports = Map<string, CellReport>;
  const abandon = (chain: string, token: string, ps: readonly Measured[]): CellReports => {
    const reason = abortReason(signal);
    for (const m of ps) samples.push(exclusionSample({ provider: m.slug, chain, token }, reason, at));
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
      if (signal.aborted) return abandon(token.chain, token.symbol, ps);
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
        return abandon(token.chain, token.symbol, ps);
      }
      for (const { m, r } of results) refusals.push({ provider: m.slug, refused: isRefusal(r) });
      // Scored by the one rule the deterministic dataset also applies (cell-score.ts); the union
      // is over the hashes of the providers that answered, a failure adds none.
      const okSets: DigestSet[] = [];
      for (const { r } of results) if (r.ok) okSets.push(r.value.hashes);
      const captureInput = {
        chain: token.chain,
        token: token.symbol,
        at,
        outcomes: results.map(({ m, r }) => ({ provider: m.slug, outcome: outcomeOf(r) })),
        unionCount: unionSize(okSets),
      };
      const score = scoreCell(captureInput);
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
      const recallInput = {
        chain: token.chain,
        token: token.symbol,
        at,
        truth: recallTruthOf(truth),
        outcomes: results.map(({ m, r }, i) => ({
          provider: m.slug,
          outcome: recallOutcomeOf(r, truth, checked.phantoms[i] ?? 0),
        })),
      };
      const recall = scoreRecall(recallInput);
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
            const entry: PendingOutcome = { provider: m.slug, status: 'excluded', failure: f, durationMs };
            providers.push(entry);
            if (isRefusal(r))
              refused.push({ capture: captureInput, recall: recallInput, provider: m.slug, entry });
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

  // A refusal is our key's only when the provider refused every probe of the cycle.
  const refusedKeys = keyRefusedProviders(refusals);
  for (const cell of refused) {
    const { provider, capture } = cell;
    const labels = { provider, chain: capture.chain, token: capture.token };
    if (refusedKeys.has(provider)) {
      samples.push(exclusionSample(labels, 'key_refused', at));
      continue;
    }
    const failed = refusalAsFailure(cell);
    samples.push(...failed);
    for (const x of talliesOf(provider, capture.chain, failed)) {
      x.probes++;
      x.zeroCells++;
    }
    const pct = failed.find((s) => s.metric === M.tokenTradeCapturePct)?.v;
    setGauges(rt, labels, 0, pct ?? null, 0);
    Object.assign(cell.entry, {
      status: 'zero',
      count: 0,
      ...(pct !== undefined ? { capturePct: pct } : {}),
    });
  }

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
