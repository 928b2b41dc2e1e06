import type { Compare, Filters, Stat } from '../core/api-schemas.ts';
import { buildCompare } from '../core/compare.ts';
import { dayEnd, parseDay } from '../core/dates.ts';
import { providerName } from '../core/providers.ts';
import type { BenchmarkSpec } from '../core/spec-schema.ts';
import type { Site } from '../core/urls.ts';
import type { SampleStore } from '../store/sample-store.ts';
import { compareRowFor } from './compare-rows.ts';
import { serve } from './served.ts';
import { guarded } from './store-guard.ts';
import type { CompareResult, FilterResolution, FrozenStatResult, Served } from './types.ts';

type CompareError = Extract<CompareResult, { ok: false }>;

/** A side of a compare: the provider's slug and catalogue name. */
export const sideOf = (slug: string) => ({ slug, name: providerName(slug) });

/** One row to compute: its benchmark under the filters it declares. */
export interface ScopedRow {
  readonly spec: BenchmarkSpec;
  readonly filters: Filters | null;
}

/**
 * The rows of a filtered compare: the shared benchmarks that declare every filtered dimension and
 * have the values, each resolved by its own rules. None declaring them is a 404 naming the
 * dimensions the shared benchmarks do have, none with the values the first one's 404 (as
 * /api/stat answers it), never the unfiltered rows.
 */
export function scopeCompare(
  shared: readonly BenchmarkSpec[],
  raw: Readonly<Record<string, string | undefined>>,
  resolve: (slug: string, raw: Readonly<Record<string, string | undefined>>) => FilterResolution,
): { ok: true; rows: ScopedRow[]; filters: Filters } | CompareError {
  const asked = Object.entries(raw).filter(([, v]) => v !== undefined) as [string, string][];
  const declaring = shared.filter((s) => asked.every(([d]) => (s.dimensions as Record<string, unknown>)[d]));
  if (declaring.length === 0) {
    const have = [...new Set(shared.flatMap((s) => Object.keys(s.dimensions)))].sort();
    return {
      ok: false,
      status: 404,
      error: 'unknown_dimension',
      message: `No benchmark both providers appear in declares ${asked.map(([d]) => `"${d}"`).join(' and ')}; theirs: ${have.join(', ') || 'none'}.`,
    };
  }
  // A benchmark declaring the dimension without the value (recall has no Solana) is left out; only
  // when none has it is the value unknown.
  const rows: ScopedRow[] = [];
  let unknown: CompareError | undefined;
  for (const spec of declaring) {
    const f = resolve(spec.slug, raw);
    if (f.ok) rows.push({ spec, filters: f.filters });
    else if (f.status === 400) return { ok: false, status: 400, error: f.error, message: f.message };
    else unknown ??= { ok: false, status: 404, error: f.error, message: f.message };
  }
  if (rows.length === 0 && unknown) return unknown;
  return { ok: true, rows, filters: Object.fromEntries(asked) as Filters };
}

/**
 * The frozen Stats of a closed day for the shared benchmarks, and the instant they were evaluated
 * at (the day's last millisecond). A benchmark with no snapshot that day (added later) is left
 * out; a bad date, today, or a day with no snapshot at all answers as /api/stat?date= does.
 */
export async function frozenRows(
  shared: readonly BenchmarkSpec[],
  day: string,
  frozenStat: (slug: string, day: string) => Promise<FrozenStatResult>,
): Promise<{ ok: true; rows: { spec: BenchmarkSpec; stat: Stat }[]; evalTime: number } | CompareError> {
  const parsed = parseDay(day);
  if (!parsed.ok) return { ok: false, status: 400, error: 'bad_date', message: parsed.message };
  const decoder = new TextDecoder();
  const rows: { spec: BenchmarkSpec; stat: Stat }[] = [];
  let first: Exclude<FrozenStatResult, { kind: 'ok' }> | undefined;
  for (const spec of shared) {
    const r = await frozenStat(spec.slug, day);
    if (r.kind === 'ok') rows.push({ spec, stat: JSON.parse(decoder.decode(r.served.body)) as Stat });
    else if (r.kind === 'bad_date')
      return { ok: false, status: 400, error: 'bad_date', message: r.message ?? day };
    else first ??= r;
  }
  if (rows.length === 0) {
    if (first?.kind === 'today') {
      return {
        ok: false,
        status: 404,
        error: 'not_frozen',
        message: `${day} is today: it is frozen after it closes.`,
      };
    }
    const retry = first?.retryAfter;
    return {
      ok: false,
      status: retry === undefined ? 404 : 503,
      error: 'not_frozen',
      message: first?.message ?? `${day} has no frozen snapshot.`,
      ...(retry !== undefined && { retryAfter: retry }),
    };
  }
  return { ok: true, rows, evalTime: dayEnd(parsed.start) };
}

/** A closed day's compare: each shared benchmark's frozen Stat and its row from that day's samples. */
export async function compareOfDay(
  store: SampleStore,
  site: Site,
  shared: readonly BenchmarkSpec[],
  [a, b]: readonly [string, string],
  day: string,
  frozenStat: (slug: string, day: string) => Promise<FrozenStatResult>,
): Promise<{ ok: true; served: Served<Compare> } | CompareError> {
  const frozen = await frozenRows(shared, day, frozenStat);
  if (!frozen.ok) return frozen;
  const rows = await guarded(() =>
    Promise.all(frozen.rows.map(({ spec, stat }) => compareRowFor(store, spec, stat, a, b, frozen.evalTime))),
  );
  return { ok: true, served: serve(buildCompare(sideOf(a), sideOf(b), rows, site, { date: day })) };
}
