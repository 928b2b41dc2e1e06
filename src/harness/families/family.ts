import type { Audit, Filters } from '../../core/api-schemas.ts';
import type { FamilyShape } from '../../core/family.ts';
import type { WindowRowExtras } from '../../core/rows.ts';
import type { Matcher, Sample } from '../../core/samples.ts';
import type { BenchmarkSpec } from '../../core/spec-schema.ts';
import type { SampleStore } from '../../store/sample-store.ts';
import type { CycleReport } from '../report.ts';
import type { HarnessRuntime } from '../runtime.ts';
import type { Clock } from '../types.ts';

/**
 * One slot of a family's probe: it runs once over the union of the providers and cells of every
 * benchmark of the family, so a provider is asked each question once per slot whatever the number
 * of benchmarks, and its samples are stored once.
 */
export interface ProbeRun {
  readonly rt: HarnessRuntime;
  /** The family's benchmarks this harness runs, in spec order (never empty). */
  readonly benchmarks: readonly BenchmarkSpec[];
  /** The aligned slot time, every sample's `t`. */
  readonly at: number;
  readonly signal: AbortSignal;
  /** The harness's clock (a demo's runs faster than real time; `rate` says how much). */
  readonly clock: Clock;
  /**
   * Stores the cycle's samples in one append, with a harness_cycle marker per benchmark (a cycle is
   * stored whole or not at all). Called once.
   */
  write(samples: readonly Sample[]): Promise<number>;
}

/** One report per benchmark of the run (its own providers and cells), by slug. */
export type ProbeReports = ReadonlyMap<string, CycleReport>;

/** What an audit reads: one provider of one benchmark at `evalTime`. */
export interface AuditRequest {
  readonly store: SampleStore;
  readonly spec: BenchmarkSpec;
  readonly provider: string;
  readonly evalTime: number;
  /** Every cycle of the Stat's window (window families), narrowed by the Stat's filters. */
  readonly window?: { readonly filters: Filters | null };
}

/** The family's part of an audit: everything but the benchmark, provider and links. */
export type AuditBody = Omit<Audit, 'benchmark' | 'provider' | 'pageUrl' | 'license' | 'simulated'>;

/** The view a window derivation's extras read for (as the Stat narrows it). */
export interface ExtrasQuery {
  readonly store: SampleStore;
  readonly spec: BenchmarkSpec;
  readonly providerMatcher: Matcher;
  readonly labelMatchers: readonly Matcher[];
  readonly windowStart: number;
  readonly evalTime: number;
}

/**
 * Reads what the family adds to the shared window derivation, once per view; the result gives the
 * extras of any narrowing of that view (`keep`: the per-chain rankings of a Stat).
 */
export type WindowExtrasReader = (
  q: ExtrasQuery,
) => Promise<(keep: (s: Sample) => boolean) => WindowRowExtras>;

/**
 * A benchmark family: one folder under src/harness/families/, declaring its probe, its schedule,
 * the metrics and labels it writes (FamilyShape), the extras of its derivation and its audit. The
 * core, the publication and the doors see only this shape; a benchmark of the family is a YAML file.
 */
export interface Family extends FamilyShape {
  /** Slot offset from the cadence's epoch-aligned slots, ms (0: on the hour marks). */
  readonly slotOffsetMs: number;
  /** The cycle's deadline from its slot, ms, when the family needs its own (HARNESS_CYCLE_DEADLINE_MS wins). */
  readonly deadlineMs?: number;
  /** Providers the family has an adapter for (one small module each under ./<family>/adapters). */
  readonly adapterProviders: readonly string[];
  probe(run: ProbeRun): Promise<ProbeReports>;
  audit(req: AuditRequest): Promise<AuditBody>;
  /** Window families only: the extras their rows carry (union baseline, unresponsive marker…). */
  readonly windowExtras?: WindowExtrasReader;
}
