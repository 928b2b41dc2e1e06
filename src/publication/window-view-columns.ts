import { nextTurn } from '../concurrency/next-turn.ts';
import { flagPartialCoverage } from '../core/coverage.ts';
import { withLeaderTestsBy } from '../core/leader-tests.ts';
import type { ProbeColumns, ProbeCounts } from '../core/probe-columns.ts';
import { windowRankOrder } from '../core/rank-order.ts';
import { rankRows } from '../core/rank-rows.ts';
import { ProbeGrid } from '../core/reliability.ts';
import { type UnrankedRow, type WindowRowExtras, windowRowsOf } from '../core/rows.ts';
import { WINDOW_MS } from '../core/selection.ts';
import type { ProviderEntry } from '../core/spec-schema.ts';
import type { OwnIndices, WindowColumns } from '../core/window-columns.ts';
import { type ExtrasOf, leaderEntry, perChain, type ViewParts, type ViewScope } from './view-parts.ts';

/**
 * The window derivation over columns: the same steps as windowViewOfSamples, each a pass over
 * typed arrays. Comparability over everything read serves the sparkline (48 h) and the unfiltered
 * rows alike: a pair's samples share its cycle's time, so a pair is in the window whole or not at
 * all and its comparability is the same counted over either.
 */
export async function windowViewOfColumns(
  x: ViewScope,
  columns: WindowColumns,
  probes: ProbeColumns,
  extrasOf: ExtrasOf,
): Promise<ViewParts> {
  const { spec, windowStart } = x;
  const { providers } = x.sel;
  const d = spec.derivation;
  if (d.mode !== 'window') throw new Error(`${spec.slug}: not a window derivation`);
  // Interning 48 h of 1-minute RPC samples' cycles (WindowColumns.of), their pairs, each row: a
  // step of its own each, tens of milliseconds at most.
  await nextTurn();
  const everyPair = columns.comparable(null, Number.NEGATIVE_INFINITY);
  await nextTurn();
  const all = extrasOf(() => true);
  const unranked = (
    provs: readonly ProviderEntry[],
    own: OwnIndices,
    comparable: Uint8Array,
    counts: ProbeCounts,
    extras: WindowRowExtras,
    cells?: Map<UnrankedRow, Set<string>>,
  ) =>
    windowRowsOf(provs, columns.windowSamples(own, comparable, counts), {
      ...(d.minSamples !== undefined && { minSamples: d.minSamples }),
      ...(extras.unresponsive && { unresponsive: extras.unresponsive }),
      ...(cells && { cells }),
    });
  const own = columns.own(null, windowStart);
  const counts = probes.counts(null);
  // A provider's row at a time (each sorts its day of values, 62k for one RPC provider), one turn
  // of the loop each: a provider's row does not depend on the others'.
  const rows: UnrankedRow[] = [];
  const cells = new Map<UnrankedRow, Set<string>>();
  for (const p of providers) {
    rows.push(...unranked([p], own, everyPair, counts, all, cells));
    await nextTurn();
  }
  flagPartialCoverage(cells);
  const orderOf = (grid: ProbeGrid, pairOwn: OwnIndices) =>
    windowRankOrder({
      rankBy: d.rankBy,
      reliabilityMargin: d.reliabilityMargin,
      higherIsBetter: spec.higherIsBetter,
      probes: grid,
      pairWith: columns.pairWith(pairOwn),
    });
  await nextTurn();
  // One grid of the view's probes; a chain's rows read its cells of it.
  const grid = ProbeGrid.ofPacked(probes.packed, d.cellLabels);
  const ranked = rankRows(rows, spec.higherIsBetter, orderOf(grid, own));
  const rankings = withLeaderTestsBy(
    ranked,
    { margin: d.tieMargin, higherIsBetter: spec.higherIsBetter, rankBy: d.rankBy },
    columns.pairWith(own),
  );
  const newest = [columns.newest(windowStart), probes.newest()].filter((t) => t !== null);
  const asOf = newest.length === 0 ? null : Math.max(...newest);
  const bests = await perChain(spec, x.filters, (provs, keep) => {
    const kept = columns.seriesWhere(keep);
    const keptOwn = columns.own(kept, windowStart);
    return rankRows(
      unranked(
        provs,
        keptOwn,
        columns.comparableWithin(kept, windowStart, everyPair),
        probes.counts(keep),
        extrasOf((s) => keep(s.labels)),
      ),
      spec.higherIsBetter,
      orderOf(grid.narrowed(keep), keptOwn),
    );
  });
  const entry = leaderEntry(rankings, providers);
  let leaderSeries: readonly (number | null)[] = [];
  if (entry) {
    await nextTurn();
    // Every provider's values go in: comparability of a (cell, cycle) pair depends on them all.
    leaderSeries = columns.seriesFor(entry.slug, everyPair, x.grid, WINDOW_MS, d.rankBy);
  }
  return { rankings, leaderSeries, bests, asOf, familyFields: all.statFields };
}
