import { setMaxListeners } from 'node:events';
import type { Registry } from 'prom-client';
import { processBuildInfo } from '../build-info.ts';
import { HARNESS_CYCLE_METRIC, MARKER_AHEAD_MS, MARKER_LOOKBACK_MS } from '../core/family.ts';
import { REGION_LABEL } from '../core/metric-names.ts';
import type { BuildInfo } from '../core/provenance.ts';
import { ORIGIN_LABEL, SIMULATED_ORIGIN } from '../core/sample-origin.ts';
import { eq } from '../core/samples.ts';
import { type BenchmarkSpec, durationMs } from '../core/spec-schema.ts';
import type { SampleStore, Store } from '../store/sample-store.ts';
import type { HarnessProvider } from './config.ts';
import { HARNESS_PROVIDERS, type HarnessConfig } from './config.ts';
import type { Family, ProbeReports } from './families/family.ts';
import { familyNamed } from './families/index.ts';
import { type DexDeployment, dexesOf } from './families/trade-capture/dexes.ts';
import { storedPoolCache } from './families/trade-capture/pool-store.ts';
import type { PoolCache } from './families/trade-capture/pools.ts';
import { createTruthReader, type TruthReader } from './families/trade-capture/truth.ts';
import { type HarnessMetrics, harnessMetrics } from './metrics.ts';
import type { CellReport, CycleReport } from './report.ts';
import { checkConfigured, type HarnessRuntime, writeCycle, writeFailedCycle } from './runtime.ts';
import { Scheduler } from './scheduler.ts';
import { REFERENCE_TOKENS, type ReferenceToken } from './tokens.ts';
import { type Clock, type HarnessLog, silentLog, systemClock } from './types.ts';

export interface HarnessOptions {
  readonly store: Store;
  readonly specs: readonly BenchmarkSpec[];
  /** prom-client Registry the harness metrics are registered on. */
  readonly metrics: Registry;
  readonly harnessConfig: HarnessConfig;
  /** The build written as harness_build_info with every cycle: this process's when omitted. */
  readonly build?: BuildInfo;
  readonly clock?: Clock;
  readonly log?: HarnessLog;
  readonly tokens?: readonly ReferenceToken[];
  readonly onlyProviders?: readonly string[];
  /** Start the scheduler right away (default true). */
  readonly autoStart?: boolean;
  /** Back-off sleeper for 429 retries (tests make it instant). */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly onCycle?: (report: CycleReport) => void;
  /** Progress within a cell-based cycle: one call per finished cell, per benchmark. */
  readonly onCell?: (benchmark: string, cell: CellReport, done: number, total: number) => void;
  /** The providers are the simulator's: every sample is stored with origin="simulated". */
  readonly simulated?: boolean;
  /**
   * The simulator's backfill: answers come at once and say how long they would have taken (only the
   * clock is simulated). Never set against real providers.
   */
  readonly virtualLatency?: boolean;
  /**
   * The DEXes whose Swap logs are a trade cell's ground truth, per chain: the real deployments
   * (trade-capture/dexes.ts) unless given; the demo passes its chains' own. Read from the chains'
   * reference nodes (REFERENCE_RPC_<CHAIN>): without one a cell has no truth.
   */
  readonly dexes?: (chain: string) => readonly DexDeployment[];
  /** Pools already known per (chain, DEX, token), e.g. the demo's own; discovery extends it. */
  readonly poolCache?: PoolCache;
  /** A truth reader in place of the one built from REFERENCE_RPC_<CHAIN> (the demo's, which knows its chains' origin). */
  readonly truth?: TruthReader;
}

export interface Harness {
  /**
   * Runs the cycle of the benchmark's family for the slot `at` now, after any running cycle of the
   * same family, and returns this benchmark's report. A benchmark whose family already ran slot
   * `at` gets that run's report: one probe per family per slot, never a second call to a provider.
   */
  runCycle(benchmarkSlug: string, at: number): Promise<CycleReport>;
  /**
   * One cycle now rather than at the next slot (an empty store at start-up). A family whose value
   * is a snapshot (derivation `latest`: a listing) is stamped with the time it ran, since its
   * sample says what the provider listed then: the aligned slot dated a listing read at 17:55
   * "as of 12:00". A window family keeps its latest slot, whose window has closed. The benchmarks
   * of one family share its one start-up cycle (one probe, one time).
   */
  measureNow(benchmarkSlug: string): Promise<CycleReport>;
  /** Benchmarks this harness can run. */
  readonly benchmarks: readonly string[];
  readonly metrics: HarnessMetrics;
  start(): void;
  stop(): Promise<void>;
}

/**
 * The slot of this harness's newest stored cycle of a benchmark (its region's, when it has one): a
 * failed cycle's marker (`failure` label, its own series) counts, since its slot was tried. Reads
 * (now − lookback, now + 5 min]: an engine refuses unbounded reads (Prometheus answers 400
 * "duration out of range" to one at Number.MAX_SAFE_INTEGER), and a failed read throws.
 */
export async function lastCycle(
  store: SampleStore,
  slug: string,
  window: { readonly now: number; readonly region?: string | undefined; readonly lookbackMs?: number },
): Promise<number | null> {
  const found = await store.latest({
    metric: HARNESS_CYCLE_METRIC,
    matchers: [eq('benchmark', slug), eq(REGION_LABEL, window.region ?? '')],
    at: window.now + MARKER_AHEAD_MS,
    // Only a marker at or after now's slot moves the next slot; an older one only names the last
    // slot in the start-up log, and one older than the window reads as none.
    notBefore: window.now - (window.lookbackMs ?? MARKER_LOOKBACK_MS),
  });
  return found.length > 0 ? Math.max(...found.map((s) => s.t)) : null;
}

/**
 * A cycle whose probe threw. `stored`: its slot has a marker, so it counts as tried: the failure
 * marker (writeFailedCycle), or the cycle's own when it had written its samples before it failed;
 * false when nothing could be written (the store is down).
 */
export class CycleFailedError extends Error {
  constructor(
    message: string,
    readonly stored: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Labels on every sample this harness writes: its region, and origin="simulated" for the simulator. */
function extraLabels(opts: HarnessOptions): { extraLabels?: Record<string, string> } {
  const labels: Record<string, string> = {
    ...(opts.harnessConfig.region ? { [REGION_LABEL]: opts.harnessConfig.region } : {}),
    ...(opts.simulated ? { [ORIGIN_LABEL]: SIMULATED_ORIGIN } : {}),
  };
  return Object.keys(labels).length > 0 ? { extraLabels: labels } : {};
}

/** A family's benchmarks this harness runs, and the newest slot it probed (with its reports). */
interface FamilyRun {
  readonly family: Family;
  readonly specs: BenchmarkSpec[];
  last?: { readonly at: number; readonly reports: Promise<ProbeReports> };
  /** The time of its measureNow cycle, chosen by the first benchmark that asks. */
  nowAt?: number;
}

export function startHarness(opts: HarnessOptions): Harness {
  const clock = opts.clock ?? systemClock;
  const log = opts.log ?? silentLog;
  const metrics = harnessMetrics(opts.metrics);
  const rt: HarnessRuntime = {
    store: opts.store,
    config: opts.harnessConfig,
    build: opts.build ?? processBuildInfo(),
    metrics,
    log,
    tokens: opts.tokens ?? REFERENCE_TOKENS,
    ...(opts.onlyProviders ? { onlyProviders: new Set(opts.onlyProviders) } : {}),
    ...(opts.sleep ? { sleep: opts.sleep } : {}),
    ...(opts.onCell ? { onCell: opts.onCell } : {}),
    ...(opts.virtualLatency ? { virtualLatency: true } : {}),
    truth: opts.truth ?? truthReaderFor(opts, log),
    ...extraLabels(opts),
    semaphores: new Map(),
    notConfiguredLogged: new Set(),
    listedLabels: new Map(),
  };
  // Benchmarks grouped by the family that measures them: one probe per family serves them all.
  const families = new Map<string, FamilyRun>();
  const familyOfSlug = new Map<string, FamilyRun>();
  for (const spec of opts.specs) {
    const family = familyNamed(spec.family);
    if (!family) {
      log('debug', `harness: no family measures ${spec.slug}`);
      continue;
    }
    let run = families.get(family.name);
    if (!run) {
      run = { family, specs: [] };
      families.set(family.name, run);
    }
    run.specs.push(spec);
    familyOfSlug.set(spec.slug, run);
  }
  // Export provider_configured (and log missing keys once) for every provider we would measure.
  const seen = new Set<string>();
  for (const run of families.values()) {
    for (const spec of run.specs) {
      for (const p of spec.providers) {
        if (seen.has(p.slug) || !(HARNESS_PROVIDERS as readonly string[]).includes(p.slug)) continue;
        if (rt.onlyProviders && !rt.onlyProviders.has(p.slug)) continue;
        seen.add(p.slug);
        checkConfigured(rt, p.slug as HarnessProvider);
      }
    }
  }

  const tails = new Map<string, Promise<unknown>>();
  const active = new Set<AbortController>();

  async function probe(run: FamilyRun, at: number): Promise<ProbeReports> {
    const cadence = durationMs(run.family.cadence);
    const deadline =
      opts.harnessConfig.cycleDeadlineMs ?? run.family.deadlineMs ?? Math.max(cadence / 2, cadence - 60_000);
    const ctl = new AbortController();
    // A family's probe may wait on the signal once per request in flight (json-rpc: one per series).
    setMaxListeners(0, ctl.signal);
    active.add(ctl);
    const timer = clock.setTimeout(() => ctl.abort('deadline'), deadline);
    const ends = run.specs.map((s) => metrics.cycleDuration.startTimer({ benchmark: s.slug }));
    const slugs = run.specs.map((s) => s.slug);
    let wrote = false;
    try {
      const reports = await run.family
        .probe({
          rt,
          benchmarks: run.specs,
          at,
          signal: ctl.signal,
          clock,
          write: async (samples) => {
            // One append: stored whole or not at all, so a failed write stores nothing of the cycle.
            const n = await writeCycle(rt, slugs, at, samples);
            wrote = true;
            return n;
          },
        })
        .catch(async (e: unknown) => {
          // A cycle that stored nothing stores its failure, so its slot counts as tried (one that
          // wrote its samples and failed after has its markers already).
          const stored =
            wrote ||
            (await writeFailedCycle(rt, slugs, at).then(
              () => true,
              () => false,
            ));
          const message = (e as Error)?.message ?? String(e);
          throw new CycleFailedError(message, stored, { cause: e });
        });
      for (const report of reports.values()) {
        log(
          'info',
          `${report.benchmark}: cycle ${new Date(at).toISOString()} wrote ${report.samplesWritten} samples`,
          {
            benchmark: report.benchmark,
            durationMs: Math.round(report.durationMs),
            aborted: report.aborted,
          },
        );
        opts.onCycle?.(report);
      }
      return reports;
    } finally {
      for (const end of ends) end();
      clock.clearTimeout(timer);
      active.delete(ctl);
    }
  }

  /** The family's cycle for slot `at`: run now, or the one already run for that slot. */
  function runFamily(run: FamilyRun, at: number): Promise<ProbeReports> {
    // Cycles of one family are serialized: a cycle never overlaps itself.
    const prev = tails.get(run.family.name) ?? Promise.resolve();
    const next = prev
      .catch(() => {})
      .then(() => {
        if (run.last?.at === at) return run.last.reports;
        const reports = probe(run, at);
        run.last = { at, reports };
        return reports;
      });
    tails.set(run.family.name, next);
    return next;
  }

  async function runCycle(slug: string, at: number): Promise<CycleReport> {
    const run = familyOfSlug.get(slug);
    if (!run) throw new Error(`harness cannot run benchmark "${slug}"`);
    const report = (await runFamily(run, at)).get(slug);
    if (!report) throw new Error(`family ${run.family.name} reported nothing for "${slug}"`);
    return report;
  }

  function measureNow(slug: string): Promise<CycleReport> {
    const run = familyOfSlug.get(slug);
    if (!run) return Promise.reject(new Error(`harness cannot run benchmark "${slug}"`));
    if (run.nowAt === undefined) {
      const now = clock.now();
      const cadence = durationMs(run.family.cadence);
      const offset = run.family.slotOffsetMs;
      run.nowAt =
        run.family.derivation === 'latest' ? now : Math.floor((now - offset) / cadence) * cadence + offset;
    }
    return runCycle(slug, run.nowAt);
  }

  /**
   * Each benchmark's newest stored cycle: the family resumes after the newest (one cycle writes
   * all), and the scheduler logs each.
   */
  async function lastFamilyCycles(run: FamilyRun): Promise<ReadonlyMap<string, number | null>> {
    const now = clock.now();
    const region = opts.harnessConfig.region;
    const lasts = await Promise.all(run.specs.map((s) => lastCycle(opts.store, s.slug, { now, region })));
    return new Map(run.specs.map((s, i) => [s.slug, lasts[i] ?? null]));
  }

  const scheduler = new Scheduler(
    [...families.values()].map((run) => ({
      slug: run.family.name,
      cadenceMs: durationMs(run.family.cadence),
      offsetMs: run.family.slotOffsetMs,
      run: (at: number) => runFamily(run, at),
    })),
    clock,
    log,
    (name) => {
      const run = families.get(name);
      return run ? lastFamilyCycles(run) : Promise.resolve(null);
    },
  );
  if (opts.autoStart ?? true) scheduler.start();

  return {
    runCycle,
    measureNow,
    benchmarks: [...familyOfSlug.keys()],
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

/**
 * The truth reader built from REFERENCE_RPC_<CHAIN>: the DEXes given (the real list by default),
 * and its pool cache kept in the store unless one is given, so a restart resumes each token's
 * creation-log scan where it stopped; reads wait once for the stored pools to load.
 */
function truthReaderFor(opts: HarnessOptions, log: HarnessLog): TruthReader {
  const dexes = opts.dexes ?? dexesOf;
  // No reference node, no truth to read: nothing to load or store either.
  const stored =
    opts.poolCache || opts.harnessConfig.rpc.references.size === 0
      ? null
      : storedPoolCache(opts.store, dexes, (e) => log('warn', `pool cache: ${e.message}`, {}));
  const reader = createTruthReader({
    references: opts.harnessConfig.rpc.references,
    dexes,
    ...(opts.poolCache ? { cache: opts.poolCache } : stored ? { cache: stored } : {}),
    timeoutMs: opts.harnessConfig.rpcTimeoutMs,
  });
  if (!stored) return reader;
  return {
    async read(chain, token, w, signal) {
      await stored.ready;
      return reader.read(chain, token, w, signal);
    },
    phantoms: (chain, token, hashes, signal) => reader.phantoms(chain, token, hashes, signal),
  };
}
