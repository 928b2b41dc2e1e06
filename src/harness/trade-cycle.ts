import { METRICS } from '../core/metric-names.ts';
import type { Sample } from '../core/samples.ts';
import type { BenchmarkSpec } from '../core/spec-schema.ts';
import { capturePct, unionSize } from './capture.ts';
import type { HarnessProvider } from './config.ts';
import type { CellProviderOutcome, CellReport, CycleReport, ProviderOutcome } from './report.ts';
import { adapterContext, checkConfigured, type HarnessRuntime, providerSemaphore } from './runtime.ts';
import { mapLimit } from './semaphore.ts';
import { TRADE_WINDOW_MS } from './tokens.ts';
import type { TradeAdapter, TradeFetch, TradeWindow } from './trades/contract.ts';
import { TRADE_ADAPTERS } from './trades/registry.ts';
import { guard, is5xx, isTimeoutOr5xx } from './types.ts';
import {
  loadUnresponsive,
  nextUnresponsive,
  type ProviderCycleOutcome,
  unresponsiveKey,
} from './unresponsive.ts';

interface Measured {
  readonly slug: HarnessProvider;
  readonly adapter: TradeAdapter;
  readonly chains: ReadonlySet<string>;
  okCells: number;
  zeroCells: number;
  fiveXxCells: number;
  cellsRun: number;
  total: number;
}

/**
 * One token-trade-coverage cycle over [at − 60 min, at). Per cell: every provider measuring that chain
 * in parallel; timeout/5xx count as zero; other failures leave the provider out of the cell's baseline.
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
      okCells: 0,
      zeroCells: 0,
      fiveXxCells: 0,
      cellsRun: 0,
      total: 0,
    });
  }

  let done = 0;
  const total = rt.tokens.filter((t) => measured.some((m) => m.chains.has(t.chain))).length;
  const cells = await mapLimit(
    rt.tokens,
    rt.config.cellConcurrency,
    async (token): Promise<CellReport | null> => {
      const ps = measured.filter((m) => m.chains.has(token.chain));
      if (ps.length === 0 || signal.aborted) return null;
      const labelsOf = (provider: string) => ({ provider, chain: token.chain, token: token.symbol });
      const results = await Promise.all(
        ps.map(async (m) => {
          const t0 = performance.now();
          const r = await providerSemaphore(rt, m.slug).run(() =>
            guard(() => m.adapter.fetch(token, w, adapterContext(rt, m.slug, signal))),
          );
          return { m, r, durationMs: performance.now() - t0 };
        }),
      );
      // The baseline: providers that answered (timeouts and 5xx answered zero); other failures are left out.
      let max = 0;
      const okSets: Set<string>[] = [];
      for (const { r } of results) {
        if (r.ok) {
          max = Math.max(max, r.value.hashes.size);
          okSets.push(r.value.hashes);
        }
      }
      const providers: CellProviderOutcome[] = [];
      let included = 0;
      for (const { m, r, durationMs } of results) {
        m.cellsRun++;
        const labels = labelsOf(m.slug);
        if (!r.ok) {
          const f = r.failure;
          if (is5xx(f)) m.fiveXxCells++;
          rt.metrics.fetchErrors.inc({ benchmark: bench, provider: m.slug, error_type: f.type });
          rt.log('warn', `${m.slug} ${token.chain}/${token.symbol}: ${f.type}: ${f.message}`, {
            benchmark: bench,
            provider: m.slug,
            error_type: f.type,
          });
          if (isTimeoutOr5xx(f)) {
            included++;
            m.zeroCells++;
            pushCell(samples, labels, at, 0, 0, 0);
            setGauges(rt, labels, 0, 0, 0);
            providers.push({
              provider: m.slug,
              status: 'zero',
              count: 0,
              capturePct: 0,
              failure: f,
              durationMs,
            });
          } else {
            removeGauges(rt, labels);
            providers.push({ provider: m.slug, status: 'failed', failure: f, durationMs });
          }
          continue;
        }
        const v: TradeFetch = r.value;
        const count = v.hashes.size;
        const pct = capturePct(count, max);
        included++;
        m.okCells++;
        m.total += count;
        pushCell(samples, labels, at, count, pct, 1);
        setGauges(rt, labels, count, pct, 1);
        if (m.adapter.hardRowLimit !== undefined) {
          samples.push({ metric: METRICS.tokenTradeCapped, labels, t: at, v: v.capped ? 1 : 0 });
          rt.metrics.tokenTradeCapped.set(labels, v.capped ? 1 : 0);
        }
        providers.push({
          provider: m.slug,
          status: 'ok',
          count,
          capturePct: pct,
          capped: v.capped,
          pages: v.pages,
          durationMs,
        });
      }
      let unionCount: number | undefined;
      if (included > 0) {
        unionCount = unionSize(okSets);
        const labels = { chain: token.chain, token: token.symbol };
        samples.push({ metric: METRICS.tokenTradeUnionCount, labels, t: at, v: unionCount });
        rt.metrics.tokenTradeUnionCount.set(labels, unionCount);
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

  const unresponsive: Record<string, boolean> = {};
  for (const m of measured) {
    const outcome: ProviderCycleOutcome =
      m.cellsRun === 0 ? 'none' : m.okCells > 0 ? 'ok' : m.fiveXxCells > 0 ? '5xx' : 'other';
    const key = unresponsiveKey(bench, m.slug);
    const prev = await loadUnresponsive(rt.store, key);
    const next = nextUnresponsive(prev, outcome);
    if (next.streak !== prev.streak || next.marked !== prev.marked)
      await rt.store.setState(key, JSON.stringify(next));
    if (next.marked && !prev.marked)
      rt.log('warn', `${m.slug} marked unresponsive (3 consecutive 5xx cycles)`);
    if (!next.marked && prev.marked) rt.log('info', `${m.slug} responsive again`);
    unresponsive[m.slug] = next.marked;
    samples.push({
      metric: METRICS.providerUnresponsive,
      labels: { benchmark: bench, provider: m.slug },
      t: at,
      v: next.marked ? 1 : 0,
    });
    rt.metrics.providerUnresponsive.set({ benchmark: bench, provider: m.slug }, next.marked ? 1 : 0);
    outcomes.push({
      provider: m.slug,
      status: m.okCells > 0 ? 'ok' : m.zeroCells > 0 ? 'zero' : 'failed',
      count: m.total,
      durationMs: 0,
    });
  }

  const written = samples.length > 0 ? await rt.store.append(samples) : 0;
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

type CellLabels = { provider: string; chain: string; token: string };

function pushCell(
  samples: Sample[],
  labels: CellLabels,
  t: number,
  count: number,
  pct: number,
  probe: number,
): void {
  samples.push(
    { metric: METRICS.tokenTradeCapturePct, labels, t, v: pct },
    { metric: METRICS.tokenTradeCount, labels, t, v: count },
    { metric: METRICS.tokenTradeProbeOk, labels, t, v: probe },
  );
}

function setGauges(rt: HarnessRuntime, labels: CellLabels, count: number, pct: number, probe: number): void {
  rt.metrics.tokenTradeCapturePct.set(labels, pct);
  rt.metrics.tokenTradeCount.set(labels, count);
  rt.metrics.tokenTradeProbeOk.set(labels, probe);
}

function removeGauges(rt: HarnessRuntime, labels: CellLabels): void {
  rt.metrics.tokenTradeCapturePct.remove(labels);
  rt.metrics.tokenTradeCount.remove(labels);
  rt.metrics.tokenTradeProbeOk.remove(labels);
}
