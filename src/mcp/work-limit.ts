import type { WorkLimit } from '../concurrency/work-limit.ts';
import type { PromQueryEngine } from './promql/result.ts';

/**
 * Two evaluations at a time on a 2-core host leave a core for HTTP; eight more may wait (about a
 * second of queueing at the guard's per-query budget) before agents are told to retry.
 */
export const PROMQL_LIMIT = { running: 2, queued: 8 } as const;

/** The engine with every evaluation passing through `limit`. */
export function limitedEngine(engine: PromQueryEngine, limit: WorkLimit): PromQueryEngine {
  return {
    instant: (q, at) => limit.run(() => engine.instant(q, at)),
    range: (q, s, e, step) => limit.run(() => engine.range(q, s, e, step)),
  };
}
