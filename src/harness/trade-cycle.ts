import { METRICS } from '../core/metric-names.ts';
import type { Sample } from '../core/samples.ts';
import type { BenchmarkSpec } from '../core/spec-schema.ts';
import { unresponsiveProviders } from '../core/unresponsive.ts';
import { type CellLabels, type CellOutcome, cycleFiveXxSample, scoreCell } from './cell-score.ts';
import type { HarnessProvider } from './config.ts';
import { type DigestSet, unionSize } from './digest-set.ts';
import type { CellProviderOutcome, CellReport, CycleReport, ProviderOutcome } from './report.ts';
import {
  adapterContext,
  checkConfigured,
  type HarnessRuntime,
  providerSemaphore,
  writeCycle,
} from './runtime.ts';
import { mapLimit } from './semaphore.ts';
import { TRADE_WINDOW_MS } from './tokens.ts';
import type { TradeAdapter, TradeFetch, TradeWindow } from './trades/contract.ts';
import { TRADE_ADAPTERS } from './trades/registry.ts';
import { blame, guard, is5xx, type Result } from './types.ts';

interface Measured {
  readonly slug: HarnessProvider;
  readonly adapter: TradeAdapter;
  readonly chains: ReadonlySet<string>;
  /** Cells scored this cycle (a sample was written), and how many of them ended in a 5xx. */
  probes: number;
  fiveXx: number;
  okCells: number;
  zeroCells: number;
  total: number;
}

/** Why the cycle's signal fired: our deadline, or the harness stopping. */
export function abortReason(signal: AbortSignal): 'deadline' | 'shutdown' {
  return signal.reason === 'shutdown' ? 'shutdown' : 'deadline';
}

/**
 * One token-trade-coverage cycle over [at − 60 min, at). Per cell, every provider measuring that
 * chain runs in parallel and the cell is scored by the harness contract (`blame` in types.ts):
 * failures the provider causes count as zero trades and a failed probe, failures on our side write
 * nothing for that provider, and a cell our deadline cut short writes nothing for anyone. Every
 * sample of the cycle is written in one append, so a cycle is stored whole or not at all.
 */
export async function runTradeCycle(
  rt: HarnessRuntime,
  spec: BenchmarkSpec,
  at: number,
  signal: AbortSignal,
): Promise<CycleReport> {
  const started = performance.now();
  const bench = spec.slug;
  const w: TradeWindow = { startMs: at - TRADE_WINDOW_MS, endMs: at };
  const samples: Sample[] = [];
  const outcomes: ProviderOutcome[] = [];
  const measured: Measured[] = [];
  for (const p of spec.providers) {
    if (rt.onlyProviders && !rt.onlyProviders.has(p.slug)) continue;
    const adapter = TRADE_ADAPTERS.get(p.slug);
    if (!adapter) {
      rt.log('warn', `no trade adapter for ${p.slug}`, { provider: p.slug });
      outcomes.push({ provider: p.slug, status: 'unsupported', durationMs: 0 });
      continue;
    }
    if (!checkConfigured(rt, adapter.provider)) {
      outcomes.push({ provider: p.slug, status: 'not_configured', durationMs: 0 });
      continue;
    }
    // Only chains in the spec count: a provider without Stellar is excluded there, never zero.
    const chains = new Set((p.chains ?? adapter.chains).filter((c) => adapter.chains.includes(c)));
    measured.push({
      slug: adapter.provider,
      adapter,
      chains,
      probes: 0,
      fiveXx: 0,
      okCells: 0,
      zeroCells: 0,
      total: 0,
    });
  }

  let done = 0;
  const total = rt.tokens.filter((t) => measured.some((m) => m.chains.has(t.chain))).length;
  const abandon = (chain: string, token: string): CellReport => {
    const reason = abortReason(signal);
    rt.metrics.cellsAbandoned.inc({ benchmark: bench, reason });
    rt.log('warn', `${bench} ${chain}/${token}: cell abandoned (${reason}), nothing stored for it`, {
      benchmark: bench,
      reason,
    });
    return { chain, token, providers: [], abandoned: reason };
  };
  const cells = await mapLimit(
    rt.tokens,
    rt.config.cellConcurrency,
    async (token): Promise<CellReport | null> => {
      const ps = measured.filter((m) => m.chains.has(token.chain));
      if (ps.length === 0) return null;
      if (signal.aborted) return abandon(token.chain, token.symbol);
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
      const providers: CellProviderOutcome[] = [];
      results.forEach(({ m, r, durationMs }, i) => {
        const s = score.providers[i];
        const labels = { provider: m.slug, chain: token.chain, token: token.symbol };
        if (!r.ok) {
          const f = r.failure;
          rt.metrics.fetchErrors.inc({ benchmark: bench, provider: m.slug, error_type: f.type });
          rt.log('warn', `${m.slug} ${token.chain}/${token.symbol}: ${f.type}: ${f.message}`, {
            benchmark: bench,
            provider: m.slug,
            error_type: f.type,
          });
          if (!s) {
            removeGauges(rt, labels);
            providers.push({ provider: m.slug, status: 'excluded', failure: f, durationMs });
            return;
          }
          m.probes++;
          m.zeroCells++;
          if (s.fiveXx) m.fiveXx++;
          setGauges(rt, labels, 0, s.pct, 0);
          providers.push({
            provider: m.slug,
            status: 'zero',
            count: 0,
            ...(s.pct !== null ? { capturePct: s.pct } : {}),
            failure: f,
            durationMs,
          });
          return;
        }
        if (!s) return; // scoreCell returns null only for a failure on our side
        const v = r.value;
        m.probes++;
        m.okCells++;
        m.total += s.count;
        setGauges(rt, labels, s.count, s.pct, 1);
        rt.metrics.tokenTradeCapped.set(labels, v.capped ? 1 : 0);
        providers.push({
          provider: m.slug,
          status: 'ok',
          count: s.count,
          ...(s.pct !== null ? { capturePct: s.pct } : {}),
          capped: v.capped,
          pages: v.pages,
          durationMs,
        });
      });
      const unionCount = score.unionCount;
      if (unionCount !== undefined) {
        rt.metrics.tokenTradeUnionCount.set({ chain: token.chain, token: token.symbol }, unionCount);
      }
      const report = {
        chain: token.chain,
        token: token.symbol,
        providers,
        ...(unionCount !== undefined ? { unionCount } : {}),
      };
      rt.onCell?.(bench, report, ++done, total);
      return report;
    },
  );

  // One provider_cycle_5xx sample per provider scored this cycle feeds the unresponsive marker.
  for (const m of measured) {
    const s = cycleFiveXxSample(bench, m.slug, at, m.fiveXx, m.probes);
    if (s) samples.push(s);
  }
  const written = await writeCycle(rt, spec.slug, at, samples);
  const unresponsive = await markUnresponsive(rt, bench, at, measured);
  for (const m of measured) {
    outcomes.push({
      provider: m.slug,
      status: m.okCells > 0 ? 'ok' : m.zeroCells > 0 ? 'zero' : 'failed',
      count: m.total,
      durationMs: 0,
    });
  }
  return {
    benchmark: bench,
    at,
    durationMs: performance.now() - started,
    samplesWritten: written,
    aborted: signal.aborted,
    providers: outcomes,
    cells: cells.filter((c): c is CellReport => c !== null),
    unresponsive,
  };
}

/** The scoring's view of a fetch: blame decides whether a failure is the provider's or ours. */
function outcomeOf(r: Result<TradeFetch>): CellOutcome {
  if (r.ok) return { kind: 'ok', count: r.value.hashes.size, capped: r.value.capped };
  if (blame(r.failure) === 'ours') return { kind: 'ours' };
  return { kind: 'provider_failure', fiveXx: is5xx(r.failure) };
}

/** Exports the marker as derived from the stored cycles (the same rule the publication applies). */
async function markUnresponsive(
  rt: HarnessRuntime,
  bench: string,
  at: number,
  measured: readonly Measured[],
): Promise<Record<string, boolean>> {
  const history = await rt.store.select({
    metric: METRICS.providerCycle5xx,
    matchers: [
      { name: 'benchmark', op: '=', value: bench },
      { name: 'region', op: '=', value: rt.extraLabels?.region ?? '' },
    ],
    after: at - 24 * 3_600_000,
    until: at,
  });
  const before = unresponsiveProviders(history.filter((s) => s.t < at));
  const now = unresponsiveProviders(history);
  const out: Record<string, boolean> = {};
  for (const m of measured) {
    const marked = now.has(m.slug);
    out[m.slug] = marked;
    rt.metrics.providerUnresponsive.set({ benchmark: bench, provider: m.slug }, marked ? 1 : 0);
    if (marked && !before.has(m.slug)) rt.log('warn', `${m.slug} marked unresponsive (3 cycles of 5xx)`);
    if (!marked && before.has(m.slug)) rt.log('info', `${m.slug} responsive again`);
  }
  return out;
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
