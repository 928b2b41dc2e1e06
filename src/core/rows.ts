import type { RankingRow } from './api-schemas.ts';
import { cellNameOf, flagPartialCoverage } from './coverage.ts';
import { isoTime } from './format.ts';
import { publishedPct } from './percent.ts';
import { providerName } from './providers.ts';
import { byProvider, type Sample } from './samples.ts';
import type { ProviderEntry } from './spec-schema.ts';
import { mean, quantileSorted, round6, sortFloat64 } from './stats.ts';
import { ci95Of, DEFAULT_MIN_SAMPLES } from './uncertainty.ts';

/** A ranking row before ranks and links are assigned. */
export type UnrankedRow = Omit<RankingRow, 'rank' | 'audit'>;
export type RankedRow = Omit<RankingRow, 'audit'>;

/**
 * A row's first fields. Rows extend it with Object.assign, not `{ ...base(p), … }`: V8 (Node 20)
 * builds an object literal that starts with a spread through a slow path, 2.3 µs a row against
 * 0.07 µs, the top self-time of a full recompute of 1,000 Stats (1.5 s of 3.9 s profiled).
 */
function base(p: ProviderEntry): Pick<UnrankedRow, 'name' | 'slug'> & { kind?: string } {
  return p.kind === undefined
    ? { name: providerName(p.slug), slug: p.slug }
    : { name: providerName(p.slug), slug: p.slug, kind: p.kind };
}

/**
 * `latest` derivation: a provider's value is its latest successful sample; a
 * failed refresh writes none, so the row falls back to the last good one. p50 = p90 = p99 = mean =
 * the value, successRate 100, sampleSize = the value (spec 2.6).
 */
export function latestRows(providers: readonly ProviderEntry[], latest: readonly Sample[]): UnrankedRow[] {
  const byProvider = new Map<string, Sample>();
  for (const s of latest) {
    const p = s.labels.provider;
    if (p === undefined) continue;
    const prev = byProvider.get(p);
    if (!prev || s.t > prev.t) byProvider.set(p, s);
  }
  const rows: UnrankedRow[] = [];
  for (const p of providers) {
    const s = byProvider.get(p.slug);
    if (!s) continue;
    const v = round6(s.v);
    rows.push(
      Object.assign(base(p), {
        ms: { p50: v, p90: v, p99: v, mean: v },
        // A count read from a listing has no sampling error.
        ci95: null,
        successRate: 100,
        sampleSize: Math.max(0, Math.round(s.v)),
        unresponsive: false,
        noComparison: false,
        lastSampleAt: isoTime(s.t),
      }),
    );
  }
  return rows;
}

export interface WindowInput {
  /** Labels that identify one cell, e.g. [chain, token]. */
  readonly cellLabels: readonly string[];
  /** Value samples in the window (already narrowed to the selected cells). */
  readonly values: readonly Sample[];
  /** Probe outcomes in the window (1 ok, 0 a failure the provider caused). */
  readonly probes: readonly Sample[];
  /** The spec's minSamples: a row with fewer samples is listed, never ranked. */
  readonly minSamples?: number;
}

/**
 * What a family adds to the shared `window` derivation, known here by shape only: trade capture's
 * unresponsive marker and union baseline; later RPC's per-region and per-method cells. The family
 * builds it from samples it reads itself (src/harness/families/<family>/derivation.ts).
 */
export interface WindowRowExtras {
  /** Providers kept as rows but never ranked (e.g. three cycles of 5xx). */
  readonly unresponsive?: ReadonlySet<string>;
  /**
   * Fields the family adds to a provider's row (they must exist in the row schema), from the
   * samples its statistics used; `pairKey` names their (cell, cycle) pairs. Placed after the
   * shared fields and before lastSampleAt.
   */
  fields?(provider: string, used: readonly Sample[], pairKey: (s: Sample) => string): Record<string, unknown>;
  /** Fields the family adds to the view's Stat (they must exist in the Stat schema), after sampleSize. */
  readonly statFields?: Record<string, unknown>;
}

/**
 * A (cell, cycle) pair: the cell's label values, the region it was measured from (harnesses in
 * several regions measure the same cell separately; regions aggregate by the same rules as cells)
 * and the cycle's timestamp.
 */
export function pairKeyOf(cellLabels: readonly string[]): (s: Sample) => string {
  const signature = cellLabels.join('\u0001');
  let cache = cellKeyCaches.get(signature);
  if (!cache) {
    cache = new WeakMap();
    cellKeyCaches.set(signature, cache);
  }
  const cells = cache;
  return (s) => {
    let cell = cells.get(s.labels);
    if (cell === undefined) {
      cell = '';
      for (const l of cellLabels) cell += `${s.labels[l] ?? ''}\u0000`;
      cell += `${s.labels.region ?? ''}\u0000`;
      cells.set(s.labels, cell);
    }
    return cell + s.t;
  };
}

/**
 * A sample's cell part of its pair key, by labels object, per cell-label signature: a store hands
 * every sample of a series the same labels object, so a day of 1-minute RPC samples (a million)
 * builds a few hundred cell strings instead of a million; joining the labels per sample was the
 * largest cost of a cold Stat over such a day. Weak, so an entry lives as long as its labels.
 */
const cellKeyCaches = new Map<string, WeakMap<Sample['labels'], string>>();

/**
 * The fair-aggregation rule: a (cell, cycle) pair enters an aggregate only when at least two
 * providers were measured on it. A provider alone on a cell scores 100% there by construction (its
 * own count over its own count), which says nothing about its coverage.
 */
export function comparablePairs(values: readonly Sample[], cellLabels: readonly string[]): PairSet {
  const cellOf = cellIdOf(cellLabels);
  // cell → cycle time → the first provider seen there; numbers, not joined strings: a day of
  // 1-minute RPC samples is half a million pairs, read four times per Stat.
  const seen = new Map<number, Map<number, string>>();
  const out = new Map<number, Set<number>>();
  for (const s of values) {
    const c = cellOf(s);
    const p = s.labels.provider ?? '';
    let byT = seen.get(c);
    if (!byT) {
      byT = new Map();
      seen.set(c, byT);
    }
    const first = byT.get(s.t);
    if (first === undefined) byT.set(s.t, p);
    else if (first !== p) {
      let ts = out.get(c);
      if (!ts) {
        ts = new Set();
        out.set(c, ts);
      }
      ts.add(s.t);
    }
  }
  return { has: (s) => out.get(cellOf(s))?.has(s.t) ?? false };
}

/** The comparable (cell, cycle) pairs of a view: asks about any sample of the same cells. */
export interface PairSet {
  has(s: Sample): boolean;
}

/**
 * A sample's cell (its cell labels and region) as a small integer, the same for any metric's
 * samples of that cell: interned by the cell's label values, cached by labels object (a store hands
 * every sample of a series the same one).
 */
export function cellIdOf(cellLabels: readonly string[]): (s: Sample) => number {
  const signature = cellLabels.join('\u0001');
  let c = cellIds.get(signature);
  if (!c) {
    c = { byLabels: new WeakMap(), byKey: new Map() };
    cellIds.set(signature, c);
  }
  const { byLabels, byKey } = c;
  return (s) => {
    let id = byLabels.get(s.labels);
    if (id === undefined) {
      let k = '';
      for (const l of cellLabels) k += `${s.labels[l] ?? ''}\u0000`;
      k += s.labels.region ?? '';
      id = byKey.get(k);
      if (id === undefined) {
        id = byKey.size;
        byKey.set(k, id);
      }
      byLabels.set(s.labels, id);
    }
    return id;
  };
}

const cellIds = new Map<
  string,
  { byLabels: WeakMap<Sample['labels'], number>; byKey: Map<string, number> }
>();

/**
 * The samples a provider's window row counts, one rule for the row and its window audit (which
 * marks the same (cell, cycle) pairs `comparable`, from the same comparablePairs): those on
 * comparable pairs, and no others. A provider with none (alone on every cell and cycle of the view)
 * is noComparison: nothing it was measured on was compared, so it has no sample to count.
 */
export function usedSamples<T>(
  own: readonly T[],
  isComparable: (s: T) => boolean,
): { used: readonly T[]; noComparison: boolean } {
  const used = own.filter(isComparable);
  return { used, noComparison: used.length === 0 };
}

/**
 * successRate, written once: the share of successful probes among every probe the provider was
 * sent on the view's cells and cycles, failed ones included. It counts a probe whether or not a
 * capture value exists for its cycle (a failure on a cell where everyone else returned zero stores
 * no capture: no baseline, no 0/0) and whether or not the provider was alone on the cell; the fair-
 * aggregation rule narrows the capture statistics, never the failures. 100 without any probe.
 */
export function successRate(probes: readonly Sample[]): number {
  let ok = 0;
  for (const s of probes) if (probeSucceeded(s.v)) ok++;
  return successRateOf(ok, probes.length);
}

/** A probe outcome's value: 1 ok, 0 a failure the provider caused. */
export const probeSucceeded = (v: number): boolean => v >= 1;

/** successRate from counts: `ok` successful probes (probeSucceeded) of `total`. */
export function successRateOf(ok: number, total: number): number {
  return publishedPct(ok, total) ?? 100;
}

/**
 * `window` derivation: per provider, quantiles and mean of its value samples on comparable (cell,
 * cycle) pairs in the window, with their 95% intervals (ci95Of); sampleSize = those samples, and
 * fewer than minSamples flags insufficientData; successRate over every probe of the view
 * (see successRate); whatever the family adds (`extras`) over exactly those pairs. A provider
 * measured only on pairs nobody else measured keeps a row, flagged `noComparison` and never ranked,
 * with sampleSize 0, no intervals and the family's fields over no pair. Its `ms` are over its own
 * samples only because the row schema (spec 2.5) requires four numbers: they compare it with no
 * one (a lone capture is 100% by construction), and no page, Markdown or MCP summary shows them.
 */
export function windowRows(
  providers: readonly ProviderEntry[],
  input: WindowInput,
  extras: WindowRowExtras = {},
): UnrankedRow[] {
  const key = pairKeyOf(input.cellLabels);
  const comparable = comparablePairs(input.values, input.cellLabels);
  const ownSamples = byProvider(input.values);
  const ownProbes = byProvider(input.probes);
  const fields = extras.fields;
  const cellName = cellNameOf(input.cellLabels);
  return windowRowsOf<Sample>(
    providers,
    {
      own: (provider) => ownSamples.get(provider),
      comparable: (s) => comparable.has(s),
      t: (s) => s.t,
      v: (s) => s.v,
      successRate: (provider) => successRate(ownProbes.get(provider) ?? []),
      cellsOf: (list) => {
        // A store hands a series' samples one labels object: its name once per run of them.
        const out = new Set<string>();
        let last: Sample['labels'] | undefined;
        for (const s of list)
          if (s.labels !== last) {
            last = s.labels;
            out.add(cellName(s.labels));
          }
        return out;
      },
    },
    {
      ...(input.minSamples !== undefined && { minSamples: input.minSamples }),
      ...(extras.unresponsive && { unresponsive: extras.unresponsive }),
      ...(fields && { fields: (provider, used) => fields(provider, used, key) }),
    },
  );
}

/**
 * A view's samples as windowRowsOf reads them, whatever holds them: Sample objects (windowRows),
 * or indices into columns (core/window-columns.ts, a day of 1-minute RPC samples without an object
 * per sample), so both apply one rule.
 */
export interface WindowSamples<S> {
  /** A provider's value samples in the view, in store order; undefined when it has none. */
  own(provider: string): readonly S[] | undefined;
  /** Whether the sample's (cell, cycle) pair is comparable (comparablePairs' rule). */
  comparable(s: S): boolean;
  t(s: S): number;
  v(s: S): number;
  /** successRate over the provider's probes in the view. */
  successRate(provider: string): number;
  /**
   * The cells of samples by name (cellNameOf); without it no row is checked for partial
   * coverage. Given the list, so a holder of columns can read it by series, not by sample.
   */
  cellsOf?(list: readonly S[]): Set<string>;
}

/** windowRows over any holder of the view's samples (WindowSamples): the rows' one rule. */
export function windowRowsOf<S>(
  providers: readonly ProviderEntry[],
  samples: WindowSamples<S>,
  extras: {
    readonly minSamples?: number;
    readonly unresponsive?: ReadonlySet<string>;
    fields?(provider: string, used: readonly S[]): Record<string, unknown>;
    /**
     * Where rows built a few at a time record their cells, to be flagged together once all are
     * built (flagPartialCoverage); without it the rows of this call are flagged among themselves.
     */
    readonly cells?: Map<UnrankedRow, Set<string>>;
  } = {},
): UnrankedRow[] {
  const minSamples = extras.minSamples ?? DEFAULT_MIN_SAMPLES;
  const rows: UnrankedRow[] = [];
  const cellsOf = extras.cells ?? new Map<UnrankedRow, Set<string>>();
  for (const p of providers) {
    const own = samples.own(p.slug);
    if (!own || own.length === 0) continue;
    const { used, noComparison } = usedSamples(own, samples.comparable);
    // The last time the provider was measured in the view, compared or not.
    let newest = 0;
    for (const s of noComparison ? own : used) newest = Math.max(newest, samples.t(s));
    const sorted = sortedValues(used, samples.v);
    const ms = msOf(noComparison ? sortedValues(own, samples.v) : sorted);
    const row = Object.assign(base(p), {
      ms,
      ci95: ci95Of(sorted),
      successRate: samples.successRate(p.slug),
      sampleSize: sorted.length,
      unresponsive: extras.unresponsive?.has(p.slug) ?? false,
      noComparison,
      insufficientData: sorted.length < minSamples,
    });
    if (extras.fields) Object.assign(row, extras.fields(p.slug, used));
    const done = Object.assign(row, { lastSampleAt: isoTime(newest) });
    rows.push(done);
    if (samples.cellsOf && !noComparison) cellsOf.set(done, samples.cellsOf(used));
  }
  if (!extras.cells) flagPartialCoverage(cellsOf);
  return rows;
}

/**
 * The samples' values in a typed array, sorted (sortFloat64: the native sort's order, 1.5× as fast;
 * a comparator over a million was several times slower than either). Filled by a loop:
 * Float64Array.from(list, fn) calls fn through a slow path, ~50× the loop's time (200 ns a value,
 * measured over 500k on the 2-core VM).
 */
function sortedValues<S>(list: readonly S[], v: (s: S) => number): Float64Array {
  const out = new Float64Array(list.length);
  for (let i = 0; i < list.length; i++) out[i] = v(list[i] as S);
  return sortFloat64(out);
}

/** p50, p90, p99 and mean of sorted values, as a row publishes them. */
function msOf(sorted: Float64Array): RankedRow['ms'] {
  return {
    p50: round6(quantileSorted(sorted, 0.5)),
    p90: round6(quantileSorted(sorted, 0.9)),
    p99: round6(quantileSorted(sorted, 0.99)),
    mean: round6(mean(sorted)),
  };
}
