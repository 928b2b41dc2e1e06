import type { HarnessRuntime } from '../../runtime.ts';
import type { CellLabels } from './cell-score.ts';

/** The live gauges of one provider's cell (harness /metrics): its count, capture rate and outcome. */
export function setGauges(
  rt: HarnessRuntime,
  labels: CellLabels,
  count: number,
  pct: number | null,
  probe: number,
): void {
  if (pct === null) rt.metrics.tokenTradeCapturePct.remove(labels);
  else rt.metrics.tokenTradeCapturePct.set(labels, pct);
  rt.metrics.tokenTradeCount.set(labels, count);
  rt.metrics.tokenTradeProbeOk.set(labels, probe);
}

/** Drops the gauges of a provider's cell that was not scored. */
export function removeGauges(rt: HarnessRuntime, labels: CellLabels): void {
  rt.metrics.tokenTradeCapturePct.remove(labels);
  rt.metrics.tokenTradeCount.remove(labels);
  rt.metrics.tokenTradeProbeOk.remove(labels);
}
