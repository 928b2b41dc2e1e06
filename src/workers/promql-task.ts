import type { Labels } from '../core/samples.ts';
import type { SeriesData } from '../mcp/promql/evaluate.ts';
import type { RangeRequest } from '../mcp/promql/range-eval.ts';

/** A range request as a worker gets it: each series' times and values in typed arrays, moved. */
export interface PromqlTask extends Omit<RangeRequest, 'data'> {
  readonly data: readonly (readonly { labels: Labels; ts: Float64Array; vs: Float64Array }[])[];
}

/**
 * On the event loop: the prefetched series' arrays copied into typed arrays whose buffers are moved
 * to the worker. Structured-cloning the plain arrays of a week-long query cost the loop ~1.5 ms
 * (bench:loop-holds' profile); a typed copy is a tight loop and the move is free.
 */
export function promqlTask(req: RangeRequest): { task: PromqlTask; transfer: ArrayBuffer[] } {
  const transfer: ArrayBuffer[] = [];
  const data = req.data.map((set) =>
    set.map((s) => {
      const ts = Float64Array.from(s.ts);
      const vs = Float64Array.from(s.vs);
      transfer.push(ts.buffer, vs.buffer);
      return { labels: s.labels, ts, vs };
    }),
  );
  return { task: { ...req, data }, transfer };
}

/** In the worker: the request the evaluation takes (plain arrays, as the loop built them). */
export function rangeRequestOf(t: PromqlTask): RangeRequest {
  return {
    ...t,
    data: t.data.map((set) =>
      set.map((s): SeriesData => ({ labels: s.labels, ts: Array.from(s.ts), vs: Array.from(s.vs) })),
    ),
  };
}
