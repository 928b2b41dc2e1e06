import { nextTurn } from '../concurrency/next-turn.ts';
import type { ChainBests, Filters, Stat } from '../core/api-schemas.ts';
import { chainBests } from '../core/chain-bests.ts';
import { withLeaderTests } from '../core/leader-tests.ts';
import { latestRows, type RankedRow, rankRows, type WindowRowExtras, windowRows } from '../core/rows.ts';
import { eq, matchesAll, type Sample } from '../core/samples.ts';
import { selection, WINDOW_MS } from '../core/selection.ts';
import { carryForward, evaluateSeries, SERIES_GRIDS, seriesGrid } from '../core/series.ts';
import type { BenchmarkSpec, ProviderEntry } from '../core/spec-schema.ts';
import { buildStat } from '../core/stat.ts';
import type { Site } from '../core/urls.ts';
import { familyOf } from '../harness/families/index.ts';
import type { SampleStore } from '../store/sample-store.ts';

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
  const { providers, labelMatchers, providerMatcher } = selection(spec, filters);
  const bounds = await store.timeBounds(specMetrics(spec));
  const neverRun = bounds === null || bounds.min > evalTime;
  const d = spec.derivation;
  const windowStart = evalTime - WINDOW_MS;
  // The sparkline's first point is evaluated over its own 24 h window, so the series reads 48 h; a
  // frozen day reads that day only (no value carried in from the day before).
  const seriesFrom = strict ? windowStart : windowStart - WINDOW_MS;
  const grid = seriesGrid('24h', evalTime);
  let rankings: RankedRow[] = [];
  let leaderSeries: readonly (number | null)[] = [];
  let bests: { best: ChainBests; worst: ChainBests } | undefined;
  let asOf: number | null = null;
  let familyFields: Record<string, unknown> | undefined;

  if (providers.length > 0 && !neverRun) {
    if (d.mode === 'latest') {
      // A count stands until replaced, but no longer than the window: an older one is not published.
      const latest = await store.latest({
        metric: d.metric,
        matchers: [providerMatcher, ...labelMatchers],
        at: evalTime,
        notBefore: windowStart,
      });
      rankings = rankRows(latestRows(providers, latest), spec.higherIsBetter);
      asOf = maxT(latest);
      bests = await perChain(spec, filters, (provs, keep) =>
        rankRows(
          latestRows(
            provs,
            latest.filter((s) => keep(s)),
          ),
          spec.higherIsBetter,
        ),
      );
      const leader = rankings[0]?.rank === 1 ? rankings[0].slug : null;
      const entry = providers.find((p) => p.slug === leader);
      if (entry) {
        const samples = await store.select({
          metric: d.metric,
          matchers: [{ name: 'provider', op: '=', value: entry.slug }, ...labelMatchers],
          after: seriesFrom,
          until: evalTime,
        });
        leaderSeries =
          evaluateSeries([entry], { mode: 'latest', samples }, grid, WINDOW_MS).get(entry.slug) ?? [];
      }
    } else {
      const matchers = [providerMatcher, ...labelMatchers];
      const win = { matchers, after: windowStart, until: evalTime };
      const readExtras = familyOf(spec).windowExtras;
      const [values, probes, extrasOf] = await Promise.all([
        store.select({ metric: d.metric, matchers, after: seriesFrom, until: evalTime }),
        store.select({
          metric: d.probeMetric,
          ...win,
          matchers: [
            ...matchers,
            ...Object.entries(d.probeMatch ?? {}).map(([name, value]) => eq(name, value)),
          ],
        }),
        readExtras
          ? readExtras({ store, spec, providerMatcher, labelMatchers, windowStart, evalTime })
          : (): WindowRowExtras => ({}),
      ]);
      const inWindow = values.filter((s) => s.t > windowStart);
      const rowsOf = (provs: readonly ProviderEntry[], keep: (s: Sample) => boolean) =>
        rankRows(
          windowRows(
            provs,
            {
              cellLabels: d.cellLabels,
              values: inWindow.filter(keep),
              probes: probes.filter(keep),
              minSamples: d.minSamples,
            },
            extrasOf(keep),
          ),
          spec.higherIsBetter,
        );
      const all = extrasOf(() => true);
      familyFields = all.statFields;
      const ranked = rowsOf(providers, () => true);
      // Each step over a day of samples holds the loop for milliseconds (the whole Stat of the
      // demo's larger trade benchmark held it 20–80 ms in one go on the 2-core VM, in front of
      // every cached read): the loop serves what waits between them.
      await nextTurn();
      rankings = withLeaderTests(ranked, {
        values: inWindow,
        cellLabels: d.cellLabels,
        margin: d.tieMargin,
        higherIsBetter: spec.higherIsBetter,
      });
      asOf = maxT(inWindow, probes);
      bests = await perChain(spec, filters, rowsOf);
      const leader = rankings[0]?.rank === 1 ? rankings[0].slug : null;
      const entry = providers.find((p) => p.slug === leader);
      if (entry) {
        await nextTurn();
        // Every provider's values go in: comparability of a (cell, cycle) pair depends on them all.
        leaderSeries =
          evaluateSeries([entry], { mode: 'window', cellLabels: d.cellLabels, values }, grid, WINDOW_MS).get(
            entry.slug,
          ) ?? [];
      }
    }
  }
  const { points, gaps } = carryForward(leaderSeries);
  return buildStat({
    spec,
    filters,
    rankings,
    sparkline: points,
    sparklineGrid: { startMs: grid[0] ?? evalTime, stepMs: SERIES_GRIDS['24h'].stepMs, gaps },
    ...(bests && { chainBests: bests }),
    asOf,
    neverRun,
    evalTime,
    site,
    pinDay: opts.pinDay ?? null,
    ...(familyFields && { familyFields }),
  });
}

/**
 * Best and worst per chain for a benchmark with a chain dimension: each chain is ranked from the
 * samples already read, narrowed exactly as `?chain=<chain>` narrows them (its providers and label
 * matchers), so a chain's best is the leader of that filtered Stat. One chain per turn of the loop.
 */
async function perChain(
  spec: BenchmarkSpec,
  filters: Filters | null,
  rank: (providers: readonly ProviderEntry[], keep: (s: Sample) => boolean) => RankedRow[],
): Promise<{ best: ChainBests; worst: ChainBests } | undefined> {
  const dim = spec.dimensions.chain;
  if (!dim) return undefined;
  const chains = filters?.chain !== undefined ? [filters.chain] : dim.values.map((v) => v.value);
  const rows = new Map<string, RankedRow[]>();
  for (const chain of chains) {
    await nextTurn();
    const sel = selection(spec, { ...filters, chain });
    const slugs = new Set(sel.providers.map((p) => p.slug));
    rows.set(
      chain,
      rank(sel.providers, (s) => {
        const p = s.labels.provider;
        return (p === undefined || slugs.has(p)) && matchesAll(s.labels, sel.labelMatchers);
      }),
    );
  }
  return chainBests(chains, (chain) => rows.get(chain) ?? []);
}
