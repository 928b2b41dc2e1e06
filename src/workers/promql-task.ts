import type { Labels } from '../core/samples.ts';
import type { SeriesData } from '../mcp/promql/evaluate.ts';
import type { RangeRequest } from '../mcp/promql/range-eval.ts';

/**
 * One selector's series as a worker gets them: every series' times and values end to end in two
 * typed arrays, series k at [offsets[k], offsets[k + 1]). Three buffers per selector, moved.
 */
export interface PackedSeriesSet {
  readonly labels: readonly Labels[];
  readonly offsets: Uint32Array;
  readonly ts: Float64Array;
  readonly vs: Float64Array;
}

/** A range request as a worker gets it: each selector's series packed (packSeriesSet). */
export interface PromqlTask extends Omit<RangeRequest, 'data'> {
  readonly data: readonly PackedSeriesSet[];
}

function packSeriesSet(set: readonly SeriesData[]): PackedSeriesSet {
  const offsets = new Uint32Array(set.length + 1);
  let n = 0;
  set.forEach((s, k) => {
    offsets[k] = n;
    n += s.ts.length;
  });
  offsets[set.length] = n;
  const ts = new Float64Array(n);
  const vs = new Float64Array(n);
  set.forEach((s, k) => {
    const at = offsets[k] as number;
    ts.set(s.ts, at);
    vs.set(s.vs, at);
  });
  return { labels: set.map((s) => s.labels), offsets, ts, vs };
}

/**
 * On the event loop: the prefetched series copied into typed arrays whose buffers are moved to the
 * worker. Structured-cloning the plain arrays of a week-long query cost the loop ~1.5 ms
 * (bench:loop-holds' profile); moving two buffers per series, ~1 ms in postMessage; a typed copy is
 * a tight loop, and three buffers per selector move for nothing.
 */
export function promqlTask(req: RangeRequest): { task: PromqlTask; transfer: ArrayBuffer[] } {
  const data = req.data.map(packSeriesSet);
  const transfer = data.flatMap((d) => [d.offsets.buffer, d.ts.buffer, d.vs.buffer] as ArrayBuffer[]);
  return { task: { ...req, data }, transfer };
}

/** In the worker: the request the evaluation takes (plain arrays, as the loop built them). */
export function rangeRequestOf(t: PromqlTask): RangeRequest {
  return {
    ...t,
    data: t.data.map((set) =>
      set.labels.map((labels, k): SeriesData => {
        const from = set.offsets[k] as number;
        const to = set.offsets[k + 1] as number;
        return {
          labels,
          ts: Array.from(set.ts.subarray(from, to)),
          vs: Array.from(set.vs.subarray(from, to)),
        };
      }),
    ),
  };
}
