import type { Registry } from 'prom-client';
import { METRICS, REGION_LABEL } from '../core/metric-names.ts';
import { ORIGIN_LABEL, SIMULATED_ORIGIN } from '../core/sample-origin.ts';
import { eq } from '../core/samples.ts';
import { type BenchmarkSpec, durationMs } from '../core/spec-schema.ts';
import type { Store } from '../store/sample-store.ts';
import type { HarnessProvider } from './config.ts';
import { HARNESS_PROVIDERS, type HarnessConfig } from './config.ts';
import { type HarnessMetrics, harnessMetrics } from './metrics.ts';
import { runNetworkCycle } from './network-cycle.ts';
import type { CellReport, CycleReport } from './report.ts';
import { checkConfigured, type HarnessRuntime } from './runtime.ts';
import { Scheduler } from './scheduler.ts';
import { REFERENCE_TOKENS, type ReferenceToken } from './tokens.ts';
import { runTradeCycle } from './trade-cycle.ts';
import { type Clock, type HarnessLog, silentLog, systemClock } from './types.ts';

export interface HarnessOptions {
  readonly store: Store;
  readonly specs: readonly BenchmarkSpec[];
  /** prom-client Registry the harness metrics are registered on. */
  readonly metrics: Registry;
  readonly harnessConfig: HarnessConfig;
  readonly clock?: Clock;
  readonly log?: HarnessLog;
  readonly tokens?: readonly ReferenceToken[];
  readonly onlyProviders?: readonly string[];
  /** Start the scheduler right away (default true). */
  readonly autoStart?: boolean;
  /** Back-off sleeper for 429 retries (tests make it instant). */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly onCycle?: (report: CycleReport) => void;
  /** Progress within a token-trade cycle: one call per finished cell. */
  readonly onCell?: (benchmark: string, cell: CellReport, done: number, total: number) => void;
  /** The providers are the simulator's: every sample is stored with origin="simulated". */
  readonly simulated?: boolean;
}

export interface Harness {
  /** Runs one cycle for the slot `at` now, after any running cycle of the same benchmark. */
  runCycle(benchmarkSlug: string, at: number): Promise<CycleReport>;
  /** Benchmarks this harness can run. */
  readonly benchmarks: readonly string[];
  readonly metrics: HarnessMetrics;
  start(): void;
  stop(): Promise<void>;
}

type CycleFn = (
  rt: HarnessRuntime,
  spec: BenchmarkSpec,
  at: number,
  signal: AbortSignal,
) => Promise<CycleReport>;

/** Which cycle measures a spec, by what its derivation reads. */
function cycleFor(spec: BenchmarkSpec): CycleFn | null {
  if (spec.derivation.metric === 'networks_supported') return runNetworkCycle;
  if (spec.derivation.metric === 'token_trade_capture_pct') return runTradeCycle;
  return null;
}

/** The slot of this harness's newest stored cycle of a benchmark (its region's, when it has one). */
export async function lastCycle(store: Store, slug: string, region?: string): Promise<number | null> {
  const [s] = await store.latest({
    metric: METRICS.harnessCycle,
    matchers: [eq('benchmark', slug), eq(REGION_LABEL, region ?? '')],
    at: Number.MAX_SAFE_INTEGER,
  });
  return s ? s.t : null;
}

/** Labels on every sample this harness writes: its region, and origin="simulated" for the simulator. */
function extraLabels(opts: HarnessOptions): { extraLabels?: Record<string, string> } {
  const labels: Record<string, string> = {
    ...(opts.harnessConfig.region ? { [REGION_LABEL]: opts.harnessConfig.region } : {}),
    ...(opts.simulated ? { [ORIGIN_LABEL]: SIMULATED_ORIGIN } : {}),
  };
  return Object.keys(labels).length > 0 ? { extraLabels: labels } : {};
}

export function startHarness(opts: HarnessOptions): Harness {
  const clock = opts.clock ?? systemClock;
  const log = opts.log ?? silentLog;
  const metrics = harnessMetrics(opts.metrics);
  const rt: HarnessRuntime = {
    store: opts.store,
    config: opts.harnessConfig,
    metrics,
    log,
    tokens: opts.tokens ?? REFERENCE_TOKENS,
    ...(opts.onlyProviders ? { onlyProviders: new Set(opts.onlyProviders) } : {}),
    ...(opts.sleep ? { sleep: opts.sleep } : {}),
    ...(opts.onCell ? { onCell: opts.onCell } : {}),
    ...extraLabels(opts),
    semaphores: new Map(),
    notConfiguredLogged: new Set(),
    listedLabels: new Map(),
  };
  const runnable = new Map<string, { spec: BenchmarkSpec; fn: CycleFn }>();
  for (const spec of opts.specs) {
    const fn = cycleFor(spec);
    if (fn) runnable.set(spec.slug, { spec, fn });
    else log('debug', `harness: no cycle measures ${spec.slug}`);
  }
  // Export provider_configured (and log missing keys once) for every provider we would measure.
  const seen = new Set<string>();
  for (const { spec } of runnable.values()) {
    for (const p of spec.providers) {
      if (seen.has(p.slug) || !(HARNESS_PROVIDERS as readonly string[]).includes(p.slug)) continue;
      if (rt.onlyProviders && !rt.onlyProviders.has(p.slug)) continue;
      seen.add(p.slug);
      checkConfigured(rt, p.slug as HarnessProvider);
    }
  }

  const tails = new Map<string, Promise<unknown>>();
  const active = new Set<AbortController>();

  async function execute(slug: string, at: number): Promise<CycleReport> {
    const r = runnable.get(slug);
    if (!r) throw new Error(`harness cannot run benchmark "${slug}"`);
    const cadence = durationMs(r.spec.cadence);
    const deadline = opts.harnessConfig.cycleDeadlineMs ?? Math.max(cadence / 2, cadence - 60_000);
    const ctl = new AbortController();
    active.add(ctl);
    const timer = clock.setTimeout(() => ctl.abort('deadline'), deadline);
    const end = metrics.cycleDuration.startTimer({ benchmark: slug });
    try {
      const report = await r.fn(rt, r.spec, at, ctl.signal);
      log('info', `${slug}: cycle ${new Date(at).toISOString()} wrote ${report.samplesWritten} samples`, {
        benchmark: slug,
        durationMs: Math.round(report.durationMs),
        aborted: report.aborted,
      });
      opts.onCycle?.(report);
      return report;
    } finally {
      end();
      clock.clearTimeout(timer);
      active.delete(ctl);
    }
  }

  function runCycle(slug: string, at: number): Promise<CycleReport> {
    // Cycles of one benchmark are serialized: a cycle never overlaps itself.
    const prev = tails.get(slug) ?? Promise.resolve();
    const next = prev.catch(() => {}).then(() => execute(slug, at));
    tails.set(slug, next);
    return next;
  }

  const scheduler = new Scheduler(
    [...runnable.values()].map(({ spec }) => ({
      slug: spec.slug,
      cadenceMs: durationMs(spec.cadence),
      run: (at: number) => runCycle(spec.slug, at),
    })),
    clock,
    log,
    (slug) => lastCycle(opts.store, slug, opts.harnessConfig.region),
  );
  if (opts.autoStart ?? true) scheduler.start();

  return {
    runCycle,
    benchmarks: [...runnable.keys()],
    metrics,
    start: () => scheduler.start(),
    async stop() {
      // A running cycle stops at once: cells in flight are abandoned (nothing stored for them), the
      // cells already measured are written in the cycle's one append.
      for (const ctl of active) ctl.abort('shutdown');
      await scheduler.stop();
      await Promise.all([...tails.values()].map((p) => p.catch(() => {})));
    },
  };
}
