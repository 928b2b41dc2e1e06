import { Semaphore } from '../concurrency/semaphore.ts';
import { HARNESS_BUILD_INFO_METRIC, HARNESS_CYCLE_METRIC } from '../core/family.ts';
import type { BuildInfo } from '../core/provenance.ts';
import type { Labels, Sample } from '../core/samples.ts';
import type { Store } from '../store/sample-store.ts';
import type { HarnessConfig, HarnessProvider } from './config.ts';
import type { AdapterContext } from './context.ts';
import type { TruthReader } from './families/trade-capture/truth.ts';
import type { HarnessMetrics } from './metrics.ts';
import type { CellReport } from './report.ts';
import type { ReferenceToken } from './tokens.ts';
import type { HarnessLog } from './types.ts';

/**
 * Writes one cycle's samples in one append (a cycle is stored whole or not at all), with the
 * harness's own labels (its `region`) and the cycle marker the scheduler resumes from: one per
 * benchmark the cycle served (a family's probe serves all its benchmarks at once), each with its
 * harness_build_info beside it (so a view's provenance counts cycles the way the markers do).
 */
export function writeCycle(
  rt: HarnessRuntime,
  benchmarks: string | readonly string[],
  at: number,
  samples: readonly Sample[],
): Promise<number> {
  const served = typeof benchmarks === 'string' ? [benchmarks] : benchmarks;
  const all = [
    ...samples,
    ...served.map((benchmark) => ({ metric: HARNESS_CYCLE_METRIC, labels: { benchmark }, t: at, v: 1 })),
    ...served.map((benchmark) => ({
      metric: HARNESS_BUILD_INFO_METRIC,
      labels: buildLabels(benchmark, rt.build),
      t: at,
      v: 1,
    })),
  ];
  const extra = rt.extraLabels;
  return rt.store.append(extra ? all.map((s) => ({ ...s, labels: { ...s.labels, ...extra } })) : all);
}

/**
 * The label a failed cycle's marker carries: harness_cycle{benchmark, failure="error"} = 0 at its
 * slot. A cycle whose probe threw stored nothing else; the marker records that its slot was tried
 * (a plan resumes after it, a frozen day does not list it as missing) and that it failed.
 */
export const CYCLE_FAILURE_LABEL = 'failure';

/** Stores the failure marker of a cycle that wrote nothing (one append, like a cycle). */
export function writeFailedCycle(
  rt: HarnessRuntime,
  benchmarks: readonly string[],
  at: number,
): Promise<number> {
  const extra = rt.extraLabels ?? {};
  return rt.store.append(
    benchmarks.map((benchmark) => ({
      metric: HARNESS_CYCLE_METRIC,
      labels: { benchmark, [CYCLE_FAILURE_LABEL]: 'error', ...extra },
      t: at,
      v: 0,
    })),
  );
}

/** Labels in sorted order (the stores key series by them); `region` comes with the harness's own labels. */
function buildLabels(benchmark: string, build: BuildInfo): Labels {
  return build.revision
    ? { benchmark, revision: build.revision, version: build.version }
    : { benchmark, version: build.version };
}

/** What every cycle shares within one harness instance. */
export interface HarnessRuntime {
  readonly store: Store;
  readonly config: HarnessConfig;
  /** This harness's build, written as harness_build_info with every cycle. */
  readonly build: BuildInfo;
  /** Labels added to every sample this harness writes (`region` when HARNESS_REGION is set). */
  readonly extraLabels?: Labels;
  readonly metrics: HarnessMetrics;
  readonly log: HarnessLog;
  readonly tokens: readonly ReferenceToken[];
  /** Restrict cycles to these providers (CLI --provider). */
  readonly onlyProviders?: ReadonlySet<string>;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The simulator's backfill: time answers by the delay they declare (src/harness/families/json-rpc/client.ts). */
  readonly virtualLatency?: boolean;
  /** Ground truth of trade cells, read from the chains' reference nodes (absent: no cell has any). */
  readonly truth?: TruthReader;
  /** Progress hook: one call per finished cell of a cell-based probe, per benchmark. */
  readonly onCell?: (benchmark: string, cell: CellReport, done: number, total: number) => void;
  readonly semaphores: Map<string, Semaphore>;
  /** Providers already logged as not configured (logged once). */
  readonly notConfiguredLogged: Set<string>;
  /** Listed-network gauge label sets exported per provider, so stale ones can be removed. */
  readonly listedLabels: Map<
    string,
    Array<{ provider: string; chain_id: string; name: string; raw_id: string }>
  >;
}

export function providerSemaphore(rt: HarnessRuntime, slug: HarnessProvider): Semaphore {
  let s = rt.semaphores.get(slug);
  if (!s) {
    s = new Semaphore(rt.config.providers[slug].concurrency);
    rt.semaphores.set(slug, s);
  }
  return s;
}

export function adapterContext(
  rt: HarnessRuntime,
  slug: HarnessProvider,
  signal: AbortSignal,
): AdapterContext {
  const provider = rt.config.providers[slug];
  return {
    provider,
    maxPages: rt.config.maxPages,
    maxHashes: rt.config.maxHashesPerCell,
    http: {
      timeoutMs: provider.timeoutMs,
      maxBodyBytes: rt.config.maxBodyBytes,
      maxRetries: rt.config.maxRetries,
      retryMaxWaitMs: rt.config.retryMaxWaitMs,
      signal,
      ...(rt.sleep ? { sleep: rt.sleep } : {}),
    },
  };
}

/** True when configured; otherwise logs once, exports provider_configured 0 and the caller skips it. */
export function checkConfigured(rt: HarnessRuntime, slug: HarnessProvider): boolean {
  const configured = rt.config.providers[slug].configured;
  rt.metrics.providerConfigured.set({ provider: slug }, configured ? 1 : 0);
  if (!configured && !rt.notConfiguredLogged.has(slug)) {
    rt.notConfiguredLogged.add(slug);
    rt.log('warn', `provider ${slug} not configured (API key missing): skipped, nothing recorded`, {
      provider: slug,
    });
  }
  return configured;
}
