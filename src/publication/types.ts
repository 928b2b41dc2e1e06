import type { CitableIndex, Filters, Stat } from '../core/api-schemas.ts';
import type { BenchmarkSpec } from '../core/spec-schema.ts';

/** A computed view kept as serialized bytes; serving it does no JSON work. */
export interface Served<T> {
  readonly value: T;
  /** UTF-8 JSON of `value`. */
  readonly body: Uint8Array<ArrayBuffer>;
  /** Strong ETag, quoted, derived from the bytes. */
  readonly etag: string;
}

export type FilterResolution =
  | { ok: true; filters: Filters | null }
  | { ok: false; status: 400 | 404; error: string; message: string };

/** The façade both front doors (HTTP and MCP) use. */
export interface PublicationApi {
  readonly specs: readonly BenchmarkSpec[];
  spec(slug: string): BenchmarkSpec | undefined;
  /** Validates raw dimension query values against what the benchmark declares. */
  resolveFilters(slug: string, raw: Readonly<Record<string, string | undefined>>): FilterResolution;
  /** The full record of /api/stat/{slug}; throws UnknownBenchmarkError for unknown slugs. */
  stat(slug: string, filters: Filters | null): Promise<Served<Stat>>;
  /** The live index of /api/citable. */
  citable(): Promise<Served<CitableIndex>>;
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
