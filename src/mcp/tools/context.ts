import type { PublicationApi } from '../../publication/types.ts';
import type { PromQueryEngine } from '../promql/result.ts';

export interface ToolContext {
  readonly publication: PublicationApi;
  readonly engine: PromQueryEngine;
  /** Epoch ms: "now" for query_prom. */
  readonly clock: () => number;
  /** Simulated data: results not built from a served record (query_prom) carry simulated: true. */
  readonly simulated?: boolean;
}
