import type { BuildInfo } from '../core/provenance.ts';
import type { BenchmarkSpec } from '../core/spec-schema.ts';
import type { Site } from '../core/urls.ts';
import type { Store } from '../store/sample-store.ts';
import type { EngineGate } from './engine-gate.ts';
import type { SiteConfig } from './site-of-config.ts';
import type { PublicationContext } from './types.ts';

export interface PublicationOptions extends Pick<PublicationContext, 'offload'> {
  readonly specs: readonly BenchmarkSpec[];
  readonly store: Store;
  /** Site name and base URL; taken from `config` when omitted. */
  readonly site?: Site;
  readonly config?: SiteConfig;
  readonly clock?: () => number;
  /** Clock ms per real ms: the demo clock runs DEMO_SPEED× faster (the freezer's timers wait real time). */
  readonly clockRate?: number;
  /** The demo: closed days wait for its plan (expectSlots); else the live rule (core/missing-slots.ts). */
  readonly awaitSlotPlan?: boolean;
  /** How long a view whose evaluation point moved may still be answered while it is recomputed. */
  readonly maxViewAgeMs?: number;
  /** The build named in every view's provenance: this process's (package.json, git) when omitted. */
  readonly build?: BuildInfo;
  /** On an engine: each read's deadline and the Retry-After of a 503 `engine_unavailable` (engine-gate.ts). */
  readonly engineReads?: Omit<EngineGate, 'down' | 'missed'>;
}
