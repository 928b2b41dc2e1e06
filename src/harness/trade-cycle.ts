import { METRICS } from '../core/metric-names.ts';
import type { Sample } from '../core/samples.ts';
import type { BenchmarkSpec } from '../core/spec-schema.ts';
import { isFiveXxCycle, unresponsiveProviders } from '../core/unresponsive.ts';
import { capturePct } from './capture.ts';
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
import type { TradeAdapter, TradeWindow } from './trades/contract.ts';
import { TRADE_ADAPTERS } from './trades/registry.ts';
import { blame, guard, is5xx } from './types.ts';

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
      // The baseline: the largest count among providers scored on the cell (provider failures are 0).
      let max = 0;
      const okSets: DigestSet[] = [];
      let scored = 0;
      for (const { r } of results) {
        if (r.ok) {
          max = Math.max(max, r.value.hashes.size);
          okSets.push(r.value.hashes);
          scored++;
        } else if (blame(r.failure) === 'provider') scored++;
      }
      const providers: CellProviderOutcome[] = [];
      for (const { m, r, durationMs } of results) {
        const labels = { provider: m.slug, chain: token.chain, token: token.symbol };
        if (!r.ok) {
          const f = r.failure;
          rt.metrics.fetchErrors.inc({ benchmark: bench, provider: m.slug, error_type: f.type });
          rt.log('warn', `${m.slug} ${token.chain}/${token.symbol}: ${f.type}: ${f.message}`, {
            benchmark: bench,
            provider: m.slug,
            error_type: f.type,
          });
          if (blame(f) === 'ours') {
            removeGauges(rt, labels);
            providers.push({ provider: m.slug, status: 'excluded', failure: f, durationMs });
            continue;
          }
          m.probes++;
          m.zeroCells++;
          if (is5xx(f)) m.fiveXx++;
          const pct = capturePct(0, max);
          pushCell(samples, labels, at, { count: 0, pct, probe: 0, capped: false });
          setGauges(rt, labels, 0, pct, 0);
          providers.push({
            provider: m.slug,
            status: 'zero',
            count: 0,
            ...(pct !== null ? { capturePct: pct } : {}),
            failure: f,
            durationMs,
          });
          continue;
        }
        const v = r.value;
        const count = v.hashes.size;
        const pct = capturePct(count, max);
        m.probes++;
        m.okCells++;
        m.total += count;
        pushCell(samples, labels, at, { count, pct, probe: 1, capped: v.capped });
        setGauges(rt, labels, count, pct, 1);
        rt.metrics.tokenTradeCapped.set(labels, v.capped ? 1 : 0);
        providers.push({
          provider: m.slug,
          status: 'ok',
          count,
          ...(pct !== null ? { capturePct: pct } : {}),
          capped: v.capped,
          pages: v.pages,
          durationMs,
        });
      }
      let unionCount: number | undefined;
      if (scored > 0) {
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

  // One sample per provider and cycle says whether it was a cycle of 5xx; the unresponsive marker
  // is derived from these samples alone (core/unresponsive.ts).
  for (const m of measured) {
    if (m.probes === 0) continue;
    samples.push({
      metric: METRICS.providerCycle5xx,
      labels: { benchmark: bench, provider: m.slug },
      t: at,
      v: isFiveXxCycle(m.fiveXx, m.probes) ? 1 : 0,
    });
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

type CellLabels = { provider: string; chain: string; token: string };

function pushCell(
  samples: Sample[],
  labels: CellLabels,
  t: number,
  c: { count: number; pct: number | null; probe: number; capped: boolean },
): void {
  samples.push(
    { metric: METRICS.tokenTradeCount, labels, t, v: c.count },
    { metric: METRICS.tokenTradeProbeOk, labels, t, v: c.probe },
    { metric: METRICS.tokenTradeCapped, labels, t, v: c.capped ? 1 : 0 },
  );
  // No capture sample without a baseline (every provider returned zero): 0/0 is not a score.
  if (c.pct !== null) samples.push({ metric: METRICS.tokenTradeCapturePct, labels, t, v: c.pct });
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
