import { BusyError } from '../concurrency/work-limit.ts';
import {
  defaultPoolSize,
  PoolBusyError,
  PoolTaskError,
  PoolTimeoutError,
  WorkerPool,
} from '../concurrency/worker-pool.ts';
import { PromQueryError, type PromQueryErrorKind } from '../mcp/promql/errors.ts';
import { overDeadline, type RangeRequest } from '../mcp/promql/range-eval.ts';
import type { PromResult } from '../mcp/promql/result.ts';
import type { RangeEvaluator } from '../mcp/promql/store-engine.ts';
import type { DatasetFiles, DatasetWriter, HashedFile } from '../publication/dataset-files.ts';
import type { Offload, SeriesEvaluator } from '../publication/types.ts';
import { type OgRenderer, RenderBusyError } from '../render/image-service.ts';
import type { OgModel } from '../render/og-model.ts';
import type { OgRenderResult } from '../render/og-render.ts';
import { datasetTask } from './dataset-task.ts';
import { promqlTask } from './promql-task.ts';
import { type SeriesTaskResult, seriesTask } from './series-task.ts';

const PROMQL_KINDS: readonly string[] = ['parse', 'unsupported', 'refused'] satisfies PromQueryErrorKind[];

/** A render that takes longer has hung: its worker is killed and restarted. */
const OG_TIMEOUT_MS = 30_000;
/** A cold 90-day series evaluates in ~40 ms on the 2-core VM; far beyond that, the worker is stuck. */
const SERIES_TIMEOUT_MS = 30_000;
/** A day of 1,000 benchmarks (1.44M samples) took seconds; ten minutes is a stuck writer. */
const DATASET_TIMEOUT_MS = 600_000;

/**
 * The service's worker threads (cores − 1, at least 1) and what runs on them: OG renders, PromQL
 * range evaluation, series grids and dataset files. The event loop reads the store, packs what a task needs and
 * admits; the worker computes. Each kind waits in its own queue (worker-pool.ts); the queues are
 * bounded, and the HTTP lanes in front of them (src/http/lane-gate.ts) bound them first.
 */
export class ServiceWorkers implements OgRenderer, RangeEvaluator, Offload {
  readonly pool: WorkerPool;

  constructor(size = defaultPoolSize()) {
    // 8 waiting renders as before the pool (the former render worker's bound; PromQL's is its
    // WorkLimit's); the series queue also takes the prewarm's, a few per benchmark after each change.
    this.pool = new WorkerPool({
      size,
      from: import.meta.url,
      name: 'pool-entry',
      maxQueued: 64,
      maxQueuedByKind: { og: 8 },
    });
  }

  async render(model: OgModel): Promise<OgRenderResult> {
    try {
      return await this.pool.run<OgRenderResult>('og', model, { timeoutMs: OG_TIMEOUT_MS });
    } catch (e) {
      if (e instanceof PoolBusyError) throw new RenderBusyError(this.pool.waiting('og'));
      throw e;
    }
  }

  async evaluate(req: RangeRequest): Promise<PromResult> {
    try {
      // The worker checks the deadline between steps; one step that never ends is cut here.
      const { task, transfer } = promqlTask(req);
      return await this.pool.run<PromResult>('promql', task, {
        timeoutMs: Math.max(0, req.remainingMs) + 1_000,
        transfer,
      });
    } catch (e) {
      if (e instanceof PoolBusyError) throw new BusyError();
      if (e instanceof PoolTaskError && e.remoteKind !== null && PROMQL_KINDS.includes(e.remoteKind)) {
        throw new PromQueryError(e.remoteKind as PromQueryErrorKind, e.message);
      }
      if (e instanceof PoolTimeoutError) throw overDeadline(req.deadlineMs);
      throw e;
    }
  }

  readonly evaluateSeries: SeriesEvaluator = async (providers, input, timestamps, windowMs) => {
    const { task, transfer } = seriesTask(providers, input, timestamps, windowMs);
    const rows = await this.pool.run<SeriesTaskResult>('series', task, {
      timeoutMs: SERIES_TIMEOUT_MS,
      transfer,
    });
    return new Map(rows);
  };

  readonly datasetFiles: DatasetWriter = {
    write: async (batches, kvMetadata) => {
      // The event loop reads the day a batch at a time and packs each (the samples as JS objects
      // are dropped batch by batch); the worker appends them to its own DuckDB and writes the files.
      const { task, transfer } = await datasetTask(batches, kvMetadata);
      return this.pool.run<DatasetFiles>('dataset-files', task, { timeoutMs: DATASET_TIMEOUT_MS, transfer });
    },
    csvFromParquet: (parquet) => {
      // A copy is moved: the caller keeps its bytes (a frozen day's Parquet stays cached).
      const copy = parquet.slice();
      return this.pool.run<HashedFile>('dataset-csv', copy, {
        timeoutMs: DATASET_TIMEOUT_MS,
        transfer: [copy.buffer],
      });
    },
  };

  /** Rejects what waits and stops the threads. */
  close(): Promise<void> {
    return this.pool.close();
  }
}
