import { nextTurn } from '../concurrency/next-turn.ts';
import type { Filters, Stat } from '../core/api-schemas.ts';
import { samplePairing, withLeaderTests } from '../core/leader-tests.ts';
import { unpackSamples } from '../core/packed-samples.ts';
import { ProbeColumns } from '../core/probe-columns.ts';
import { windowRankOrder } from '../core/rank-order.ts';
import { rankRows } from '../core/rank-rows.ts';
import { ProbeGrid } from '../core/reliability.ts';
import { latestRows, type WindowRowExtras, windowRows } from '../core/rows.ts';
import { eq, type Sample } from '../core/samples.ts';
import { selection, WINDOW_MS } from '../core/selection.ts';
import { carryForward, evaluateSeries, SERIES_GRIDS, seriesGrid } from '../core/series.ts';
import type { BenchmarkSpec, ProviderEntry } from '../core/spec-schema.ts';
import { buildStat } from '../core/stat.ts';
import type { Site } from '../core/urls.ts';
import { WindowColumns } from '../core/window-columns.ts';
import { familyOf } from '../harness/families/index.ts';
import { type SampleStore, selectPacked } from '../store/sample-store.ts';
import { type ExtrasOf, leaderEntry, perChain, type ViewParts, type ViewScope } from './view-parts.ts';
import { windowViewOfColumns } from './window-view-columns.ts';

// Where views narrow a family's samples to one benchmark; kept importable from here.
export { selection, WINDOW_MS };

/**
 * Metric names whose new samples change this benchmark's views: what its derivation reads, and
 * what its family's extras read beside it (core/family.ts `derivationMetrics`).
 */
export function specMetrics(spec: BenchmarkSpec): string[] {
  const d = spec.derivation;
  return d.mode === 'latest' ? [d.metric] : [d.metric, d.probeMetric, ...familyOf(spec).derivationMetrics];
}

function maxT(...lists: (readonly Sample[])[]): number | null {
  let m: number | null = null;
  for (const l of lists) for (const s of l) if (m === null || s.t > m) m = s.t;
  return m;
}

export interface ComputeOptions {
  /**
   * A frozen day: evaluated at the day's last millisecond from that day's samples only (no value
   * carried in from the day before), every link pinned to the day.
   */
  readonly pinDay?: string;
  /**
   * The window derivation over Sample objects even where it runs in columns: the reference the
   * columnar path is tested against (test/unit/window-columns.test.ts).
   */
  readonly sampleObjects?: boolean;
  /** A data-valued dimension's measured values (the filter resolver's), for the Stat's `dimensions`. */
  readonly dataValues?: (dimension: string) => readonly string[];
}

/**
 * Stats computed at once in this process. A full recompute (the index, the day freeze) asks for
 * every Stat together; their reads are answered from memory (src/store/recent-samples.ts), so
 * without a bound 1,000 Stats ran as one chain of microtasks and held the event loop for the whole
 * recompute (cached /api/stat p99 rose to its length). Each Stat past the bound starts on a later
 * turn of the event loop (setImmediate), so requests are served between any two Stats, and only a
 * few Stats' intermediate samples are held at a time. Two keep a store's SQL queue busy while the
 * other Stat runs its JS.
 */
export const STAT_CONCURRENCY = 2;
let statsRunning = 0;
const statQueue: (() => void)[] = [];
let statQueueHead = 0;

function acquireStatSlot(): Promise<void> | undefined {
  if (statsRunning < STAT_CONCURRENCY && statQueueHead === statQueue.length) {
    statsRunning++;
    return undefined;
  }
  return new Promise<void>((resolve) => statQueue.push(resolve));
}

function releaseStatSlot(): void {
  const next = statQueue[statQueueHead];
  if (next === undefined) {
    statsRunning--;
    return;
  }
  statQueue[statQueueHead++] = () => undefined;
  if (statQueueHead === statQueue.length) {
    statQueue.length = 0;
    statQueueHead = 0;
  }
  // The slot passes on, on the next turn of the event loop.
  setImmediate(next);
}

/** Builds the Stat of one benchmark (optionally filtered) evaluated at `evalTime`. */
export async function computeStat(
  store: SampleStore,
  spec: BenchmarkSpec,
  filters: Filters | null,
  evalTime: number,
  site: Site,
  opts: ComputeOptions = {},
): Promise<Stat> {
  await acquireStatSlot();
  try {
    return await computeStatNow(store, spec, filters, evalTime, site, opts);
  } finally {
    releaseStatSlot();
  }
}

async function computeStatNow(
  store: SampleStore,
  spec: BenchmarkSpec,
  filters: Filters | null,
  evalTime: number,
  site: Site,
  opts: ComputeOptions,
): Promise<Stat> {
  const strict = opts.pinDay !== undefined;
  const sel = selection(spec, filters);
  const bounds = await store.timeBounds(specMetrics(spec));
  const neverRun = bounds === null || bounds.min > evalTime;
  const windowStart = evalTime - WINDOW_MS;
  const scope: ViewScope = {
    spec,
    filters,
    sel,
    evalTime,
    windowStart,
    // The sparkline's first point is evaluated over its own 24 h window, so the series reads 48 h;
    // a frozen day reads that day only (no value carried in from the day before).
    seriesFrom: strict ? windowStart : windowStart - WINDOW_MS,
    grid: seriesGrid('24h', evalTime),
  };
  let view: ViewParts = { rankings: [], leaderSeries: [], asOf: null };
  if (sel.providers.length > 0 && !neverRun) {
    view =
      spec.derivation.mode === 'latest'
        ? await latestView(store, scope)
        : await windowView(store, scope, opts.sampleObjects === true);
  }
  const { points, gaps } = carryForward(view.leaderSeries);
  return buildStat({
    spec,
    filters,
    rankings: view.rankings,
    sparkline: points,
    sparklineGrid: { startMs: scope.grid[0] ?? evalTime, stepMs: SERIES_GRIDS['24h'].stepMs, gaps },
    ...(view.bests && { chainBests: view.bests }),
    asOf: view.asOf,
    neverRun,
    evalTime,
    site,
    pinDay: opts.pinDay ?? null,
    ...(view.familyFields && { familyFields: view.familyFields }),
    ...(opts.dataValues && { dataValues: opts.dataValues }),
  });
}

/** `latest` derivation: each provider's newest count in the window, and the leader's series. */
async function latestView(store: SampleStore, x: ViewScope): Promise<ViewParts> {
  const { spec, filters, evalTime, windowStart } = x;
  const { providers, labelMatchers, providerMatcher } = x.sel;
  const d = spec.derivation;
  // A count stands until replaced, but no longer than the window: an older one is not published.
  const latest = await store.latest({
    metric: d.metric,
    matchers: [providerMatcher, ...labelMatchers],
    at: evalTime,
    notBefore: windowStart,
  });
  const rankings = rankRows(latestRows(providers, latest), spec.higherIsBetter);
  const bests = await perChain(spec, filters, (provs, keep) =>
    rankRows(
      latestRows(
        provs,
        latest.filter((s) => keep(s.labels)),
      ),
      spec.higherIsBetter,
    ),
  );
  const leader = rankings[0]?.rank === 1 ? rankings[0].slug : null;
  const entry = providers.find((p) => p.slug === leader);
  let leaderSeries: readonly (number | null)[] = [];
  if (entry) {
    const samples = await store.select({
      metric: d.metric,
      matchers: [{ name: 'provider', op: '=', value: entry.slug }, ...labelMatchers],
      after: x.seriesFrom,
      until: evalTime,
    });
    leaderSeries =
      evaluateSeries([entry], { mode: 'latest', samples }, x.grid, WINDOW_MS).get(entry.slug) ?? [];
  }
  return { rankings, leaderSeries, bests, asOf: maxT(latest) };
}

/**
 * `window` derivation: rows, leader tests, per-chain bests and the leader's sparkline, from one
 * read of the values (48 h, the sparkline's) and one of the probes (the window). A family that adds
 * no row fields is derived in columns (core/window-columns.ts), the read packed with no Sample
 * object per row; one that adds fields (their callbacks take Sample objects) over Sample objects.
 * Both apply the same rules (rows.ts windowRowsOf, paired.ts, series.ts windowP50s).
 */
async function windowView(store: SampleStore, x: ViewScope, sampleObjects: boolean): Promise<ViewParts> {
  const { spec, evalTime, windowStart } = x;
  const { labelMatchers, providerMatcher } = x.sel;
  const d = spec.derivation;
  if (d.mode !== 'window') throw new Error(`${spec.slug}: not a window derivation`);
  const matchers = [providerMatcher, ...labelMatchers];
  const valuesRead = { metric: d.metric, matchers, after: x.seriesFrom, until: evalTime };
  const probesRead = {
    metric: d.probeMetric,
    matchers: [...matchers, ...Object.entries(d.probeMatch ?? {}).map(([name, value]) => eq(name, value))],
    after: windowStart,
    until: evalTime,
  };
  const family = familyOf(spec);
  const readExtras = family.windowExtras;
  const extras = () =>
    readExtras
      ? readExtras({ store, spec, providerMatcher, labelMatchers, windowStart, evalTime })
      : Promise.resolve((): WindowRowExtras => ({}));
  if (family.rowFields.length > 0 || sampleObjects) {
    const [values, probes, extrasOf] = await Promise.all([
      store.select(valuesRead),
      store.select(probesRead),
      extras(),
    ]);
    return windowViewOfSamples(x, values, probes, extrasOf);
  }
  const [values, probes, extrasOf] = await Promise.all([
    selectPacked(store, valuesRead),
    selectPacked(store, probesRead),
    extras(),
  ]);
  const columns = WindowColumns.of(values, d.cellLabels);
  // Fields take Sample objects; so does a read whose columns would not pay (WindowColumns.of).
  if (columns === null || extrasOf(() => true).fields !== undefined) {
    return windowViewOfSamples(x, unpackSamples(values), unpackSamples(probes), extrasOf);
  }
  return windowViewOfColumns(x, columns, new ProbeColumns(probes), extrasOf);
}

/** The window derivation over Sample objects. */
async function windowViewOfSamples(
  x: ViewScope,
  values: readonly Sample[],
  probes: readonly Sample[],
  extrasOf: ExtrasOf,
): Promise<ViewParts> {
  const { spec, windowStart } = x;
  const { providers } = x.sel;
  const d = spec.derivation;
  if (d.mode !== 'window') throw new Error(`${spec.slug}: not a window derivation`);
  const inWindow = values.filter((s) => s.t > windowStart);
  const rowsOf = (provs: readonly ProviderEntry[], keep: (s: Sample) => boolean) => {
    const kept = { values: inWindow.filter(keep), probes: probes.filter(keep) };
    return rankRows(
      windowRows(provs, { cellLabels: d.cellLabels, ...kept, minSamples: d.minSamples }, extrasOf(keep)),
      spec.higherIsBetter,
      windowRankOrder({
        rankBy: d.rankBy,
        reliabilityMargin: d.reliabilityMargin,
        higherIsBetter: spec.higherIsBetter,
        probes: ProbeGrid.ofSamples(kept.probes, d.cellLabels),
        pairWith: samplePairing(kept.values, d.cellLabels),
      }),
    );
  };
  const familyFields = extrasOf(() => true).statFields;
  const ranked = rowsOf(providers, () => true);
  // Each step over a day of samples holds the loop for milliseconds (the whole Stat of the
  // demo's larger trade benchmark held it 20–80 ms in one go on the 2-core VM, in front of
  // every cached read): the loop serves what waits between them.
  await nextTurn();
  const rankings = withLeaderTests(ranked, {
    values: inWindow,
    cellLabels: d.cellLabels,
    margin: d.tieMargin,
    higherIsBetter: spec.higherIsBetter,
    rankBy: d.rankBy,
  });
  const asOf = maxT(inWindow, probes);
  const bests = await perChain(spec, x.filters, (provs, keep) => rowsOf(provs, (s) => keep(s.labels)));
  const entry = leaderEntry(rankings, providers);
  let leaderSeries: readonly (number | null)[] = [];
  if (entry) {
    await nextTurn();
    // Every provider's values go in: comparability of a (cell, cycle) pair depends on them all.
    leaderSeries =
      evaluateSeries(
        [entry],
        { mode: 'window', cellLabels: d.cellLabels, values, statistic: d.rankBy },
        x.grid,
        WINDOW_MS,
      ).get(entry.slug) ?? [];
  }
  return { rankings, leaderSeries, bests, asOf, familyFields };
}
