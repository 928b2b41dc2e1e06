import type { CitableIndex, Compare, Filters, Series, Stat } from '../core/api-schemas.ts';
import type { PackedSeriesInput } from '../core/packed-samples.ts';
import type { BuildInfo } from '../core/provenance.ts';
import type { SeriesRange } from '../core/series.ts';
import type { BenchmarkSpec, ProviderEntry } from '../core/spec-schema.ts';
import type { Site } from '../core/urls.ts';
import type { Store } from '../store/sample-store.ts';
import type { DatasetWriter } from './dataset-files.ts';
import type { ProfileResult } from './provider-profiles.ts';

/** A computed view kept as serialized bytes; serving it does no JSON work. */
export interface Served<T> {
  readonly value: T;
  /** UTF-8 JSON of `value`. */
  readonly body: Uint8Array<ArrayBuffer>;
  /** Strong ETag, quoted, derived from the bytes. */
  readonly etag: string;
}

/** What the parts of the publication façade are built with; each takes only the fields it uses. */
export interface PublicationContext {
  readonly specs: readonly BenchmarkSpec[];
  readonly bySlug: ReadonlyMap<string, BenchmarkSpec>;
  readonly store: Store;
  readonly clock: () => number;
  /** Site name, base URL and whether the data is simulated, as of now (it can turn simulated). */
  readonly site: () => Site;
  /** The build of this service: its views' provenance names it. */
  readonly build: BuildInfo;
  /** `{slug: sha256}` of `specs` (src/core/spec-hash.ts), computed once. */
  readonly specHashes: Readonly<Record<string, string>>;
  /** Pure work a worker thread does instead of the event loop (src/workers/); inline when absent. */
  readonly offload?: Offload | undefined;
  /** A data-valued dimension's values measured for a benchmark (what its filter accepts). */
  readonly dataValues?: (slug: string, dimension: string) => readonly string[];
  /** Resolves once those values are read as of the store's last append (FilterResolver.current). */
  readonly dataValuesRead?: () => Promise<void>;
}

/** What the service's worker threads (src/workers/service-workers.ts) compute for the publication. */
export interface Offload {
  /** A series' grid (core/series.ts evaluateSeries). */
  readonly evaluateSeries: SeriesEvaluator;
  /** A day's dataset files, and a frozen day's CSV from its Parquet (dataset-files.ts). */
  readonly datasetFiles: DatasetWriter;
}

/** core/series.ts evaluateSeries, maybe off the event loop. */
export type SeriesEvaluator = (
  providers: readonly ProviderEntry[],
  input: PackedSeriesInput,
  timestamps: readonly number[],
  windowMs: number,
) => Promise<Map<string, (number | null)[]>>;

export type FilterResolution =
  | { ok: true; filters: Filters | null }
  | { ok: false; status: 400 | 404; error: string; message: string };

/**
 * `retryAfter` (seconds): a closed day past its grace whose freeze has not succeeded yet (it is
 * retried); front doors answer 503 with Retry-After, not 404.
 */
export type FrozenStatResult =
  | { kind: 'ok'; served: { readonly body: Uint8Array<ArrayBuffer>; readonly etag: string } }
  | { kind: 'today' | 'bad_date' | 'not_frozen'; message?: string; retryAfter?: number };

export type CompareResult =
  | { ok: true; served: Served<Compare> }
  | { ok: false; status: 400 | 404 | 503; error: string; message: string; retryAfter?: number };

/** What a compare is asked for besides the pair: the dimension filters as given, or a closed day. */
export interface CompareQuery {
  readonly filters?: Readonly<Record<string, string | undefined>>;
  readonly date?: string;
}

/** The façade both front doors (HTTP and MCP) use. */
export interface PublicationApi {
  readonly specs: readonly BenchmarkSpec[];
  spec(slug: string): BenchmarkSpec | undefined;
  /**
   * Validates raw dimension query values against what the benchmark declares; throws
   * UnavailableError when region values the store could not read are needed (filter-resolver.ts).
   */
  resolveFilters(slug: string, raw: Readonly<Record<string, string | undefined>>): FilterResolution;
  /**
   * The values of a benchmark's data-valued dimension (the regions its own samples carry), as
   * resolveFilters accepts them; declared values for the others.
   */
  dimensionValues?(slug: string, dimension: string): readonly string[];
  /** The full record of /api/stat/{slug}; throws UnknownBenchmarkError for unknown slugs. */
  stat(slug: string, filters: Filters | null): Promise<Served<Stat>>;
  /** The Stat when it is computed and current, synchronously; else undefined (optional fast path). */
  peekStat?(slug: string, filters: Filters | null): Served<Stat> | undefined;
  /** The live index of /api/citable. */
  citable(): Promise<Served<CitableIndex>>;
  /** GET /api/compare/{a}/{b}. */
  compare(a: string, b: string, q?: CompareQuery): Promise<CompareResult>;
  /** The Stat frozen with a closed day's snapshot (images and pages pinned to that day). */
  frozenStat?(slug: string, day: string): Promise<FrozenStatResult>;
  /** GET /api/providers/{slug} (optional: the sample publication of the image scripts has none). */
  providerProfile?(slug: string, date: string | null): Promise<ProfileResult>;
  /** GET /api/series/{slug} (optional: the sample publication of the image scripts has none). */
  series?(
    slug: string,
    filters: Filters | null,
    range: SeriesRange,
    providers: readonly string[] | null,
  ): Promise<Served<Series>>;
  /** Called with the benchmark slugs whose views were invalidated by new samples. */
  onChange(listener: (slugs: ReadonlySet<string>) => void): () => void;
}

export class UnknownBenchmarkError extends Error {
  constructor(readonly slug: string) {
    super(`unknown benchmark "${slug}"`);
  }
}

/** Thrown when the store cannot be read; front doors answer 503 with Retry-After. */
export class UnavailableError extends Error {}

/**
 * The engine a replica reads did not answer (its last poll failed, or a read ran past its
 * deadline): 503 `engine_unavailable`, retried after about one poll, when no last good view exists.
 */
export class EngineUnavailableError extends UnavailableError {
  constructor(
    message: string,
    readonly retryAfterS: number,
  ) {
    super(message);
  }
}

/**
 * Filtered Stats computed or waiting to be computed at once in this process, for requests: past it
 * a request for another uncached one is refused at once (ColdViewsBusyError: 503 `busy` with
 * Retry-After), so a crawler's distinct filter combinations queue at most this much work in front
 * of everyone's cold views (computeStat runs STAT_CONCURRENCY at a time) instead of a backlog whose
 * wait grows without bound. 16 at 20–90 ms each (a filtered RPC latency Stat cold, 2-core VM) is
 * under a second and a half of waiting; more clients than that at once is not one page's views.
 * Only filtered views count: an unfiltered one exists once per benchmark, is prewarmed after every
 * change and is what the index, the home page and a provider's page ask for all together.
 * A cached view, one being computed (a request joins it), and one answered stale while its
 * successor is computed never ask.
 */
export const COLD_FILTERED_VIEWS = 16;

/** Seconds a refused client is asked to wait: the cold views ahead of it take well under that. */
export const COLD_VIEW_RETRY_AFTER_S = 1;

/** Too many filtered views are being computed: 503 `busy` with Retry-After (src/http/respond.ts). */
export class ColdViewsBusyError extends UnavailableError {
  readonly retryAfterS = COLD_VIEW_RETRY_AFTER_S;
  constructor() {
    super(
      `${COLD_FILTERED_VIEWS} filtered views are being computed; retry in ${COLD_VIEW_RETRY_AFTER_S} second`,
    );
  }
}
