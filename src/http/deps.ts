import type { Registry } from 'prom-client';
import type { Config } from '../config.ts';
import type { PublicationApi } from '../publication/types.ts';
import type { Store } from '../store/sample-store.ts';
import type { ServiceWorkers } from '../workers/service-workers.ts';

/** Everything the front doors need; buildApp(deps) opens no port. */
export interface AppDeps {
  readonly config: Config;
  readonly publication: PublicationApi;
  readonly store: Store;
  /** prom-client registry behind /metrics; harness and HTTP register their metrics here. */
  readonly metrics: Registry;
  /** Epoch ms; injectable for tests. */
  readonly clock: () => number;
  /**
   * The service's worker threads (renders, PromQL, series). Absent (route tests), OG renders get a
   * worker of their own and PromQL is evaluated on the event loop.
   */
  readonly workers?: ServiceWorkers;
}
