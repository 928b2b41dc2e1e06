import { packedBuffers } from '../core/packed-samples.ts';
import type { RangeRequest } from '../mcp/promql/range-eval.ts';

/**
 * A range request and the buffers postMessage moves with it: each selector's samples come packed
 * from the store (SampleStore.selectPacked), three buffers per selector. Structured-cloning the
 * series' plain arrays cost a week-long query ~1.5 ms of the loop (bench:loop-holds' profile),
 * moving two buffers per series ~1 ms of postMessage.
 */
export function promqlTask(req: RangeRequest): { task: RangeRequest; transfer: ArrayBuffer[] } {
  return { task: req, transfer: req.data.flatMap(packedBuffers) };
}
