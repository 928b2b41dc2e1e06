import { nextTurn } from '../concurrency/next-turn.ts';
import { withLeaderTestsBy } from '../core/leader-tests.ts';
import { rankRows, type UnrankedRow, type WindowRowExtras, windowRowsOf } from '../core/rows.ts';
import { WINDOW_MS } from '../core/selection.ts';
import type { ProviderEntry } from '../core/spec-schema.ts';
import type { OwnIndices, ProbeColumns, ProbeCounts, WindowColumns } from '../core/window-columns.ts';
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
  ) =>
    windowRowsOf(provs, columns.windowSamples(own, comparable, counts), {
      ...(d.minSamples !== undefined && { minSamples: d.minSamples }),
      ...(extras.unresponsive && { unresponsive: extras.unresponsive }),
    });
  const own = columns.own(null, windowStart);
  const counts = probes.counts(null);
  // A provider's row at a time (each sorts its day of values, 62k for one RPC provider), one turn
  // of the loop each: a provider's row does not depend on the others'.
  const rows: UnrankedRow[] = [];
  for (const p of providers) {
    rows.push(...unranked([p], own, everyPair, counts, all));
    await nextTurn();
  }
  const ranked = rankRows(rows, spec.higherIsBetter);
  const rankings = withLeaderTestsBy(
    ranked,
    { margin: d.tieMargin, higherIsBetter: spec.higherIsBetter },
    columns.pairWith(own),
  );
  const newest = [columns.newest(windowStart), probes.newest()].filter((t) => t !== null);
  const asOf = newest.length === 0 ? null : Math.max(...newest);
  const bests = await perChain(spec, x.filters, (provs, keep) => {
    const kept = columns.seriesWhere(keep);
    return rankRows(
      unranked(
        provs,
        columns.own(kept, windowStart),
        columns.comparableWithin(kept, windowStart, everyPair),
        probes.counts(keep),
        extrasOf((s) => keep(s.labels)),
      ),
      spec.higherIsBetter,
    );
  });
  const entry = leaderEntry(rankings, providers);
  let leaderSeries: readonly (number | null)[] = [];
  if (entry) {
    await nextTurn();
    // Every provider's values go in: comparability of a (cell, cycle) pair depends on them all.
    leaderSeries = columns.seriesFor(entry.slug, everyPair, x.grid, WINDOW_MS);
  }
  return { rankings, leaderSeries, bests, asOf, familyFields: all.statFields };
}
