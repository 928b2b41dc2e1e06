import type { IncomingMessage, ServerResponse } from 'node:http';
import { DAY_MS } from '../core/dates.ts';

/**
 * Where a stored answer came from, so the hot path can ask before every replay whether the router
 * would still give the very same answer. `valid` is cheap (an identity check against the
 * publication's cache, which also enforces its views' maximum age); `group` names the benchmark
 * whose new samples drop the entry eagerly (`*`: any benchmark; null: never, e.g. a frozen day).
 */
export interface HotSource {
  readonly valid: () => boolean;
  readonly group: string | null;
}

/** An answer of stored bytes, with both header blocks precomputed (200 and 304). */
export interface HotAnswer {
  readonly etag: string;
  readonly body: Uint8Array | string;
  readonly headers200: Readonly<Record<string, string>>;
  readonly headers304: Readonly<Record<string, string>>;
  readonly source: HotSource;
}

/** Immutable answers (frozen days, constants): valid forever. */
export const FOREVER: HotSource = { valid: () => true, group: null };

/** The group of an answer built from several benchmarks (index, compare, llm-context, home page). */
export const ANY_BENCHMARK = '*';

const offered = new WeakMap<Response, HotAnswer>();

/** Marks a router response as replayable by the hot path (sendBytes does this for stored bytes). */
export function offerHot(res: Response, answer: HotAnswer): Response {
  offered.set(res, answer);
  return res;
}

/** True when an If-None-Match header names `etag` (or is `*`); weak comparison, as RFC 9110 asks. */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

interface Entry {
  readonly answer: HotAnswer;
  /** The body as a Buffer: a string body (SVG) is encoded once here, not on every replay. */
  readonly bytes: Buffer;
  /** UTC day of the fill: answers can depend on the day (a citation's "Retrieved", today's index). */
  readonly day: number;
}

/**
 * Stored answers replayed with `writeHead`/`end`, without a web Request or Response. Keyed by the
 * request target exactly as sent (path and query string): only a target the router has answered
 * with stored bytes gets an entry, so the key is canonical by construction, and every other
 * request (errors, MCP, anything not cached) goes through the router unchanged.
 */
export class HotPath {
  private readonly entries = new Map<string, Entry>();
  /** URLs per source group: an append drops its benchmarks' entries without scanning the rest. */
  private readonly byGroup = new Map<string, Set<string>>();
  /** Bumped on every invalidation; a router answer computed across one is not stored. */
  private epoch = 0;
  /** Answers replayed from stored bytes (for tests and /metrics-free introspection). */
  hits = 0;
  /** Off: every request goes through the router (the byte-identity test compares both). */
  enabled = true;

  constructor(
    private readonly clock: () => number = Date.now,
    private readonly maxEntries = 10_000,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The epoch to hand back to `fill` once the router's answer is ready. */
  begin(): number {
    return this.epoch;
  }

  /** Answers a GET or HEAD from stored bytes; false when the router must answer. */
  serve(req: IncomingMessage, res: ServerResponse): boolean {
    if (!this.enabled) return false;
    const method = req.method;
    if (method !== 'GET' && method !== 'HEAD') return false;
    const url = req.url;
    if (url === undefined) return false;
    const e = this.entries.get(url);
    if (e === undefined) return false;
    // The raw header list, not req.headers: that getter builds an object per request (measured:
    // about a tenth of a replay's cost). A GET with a body is the router's to refuse (413).
    const raw = req.rawHeaders;
    let inm: string | undefined;
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i] as string;
      const n = name.length;
      if (n === 13 && name.toLowerCase() === 'if-none-match') {
        // Repeated fields combine as Node's req.headers combines them.
        inm = inm === undefined ? raw[i + 1] : `${inm}, ${raw[i + 1]}`;
      } else if (
        (n === 14 && name.toLowerCase() === 'content-length') ||
        (n === 17 && name.toLowerCase() === 'transfer-encoding')
      ) {
        return false;
      }
    }
    const a = e.answer;
    if (!a.source.valid() || Math.floor(this.clock() / DAY_MS) !== e.day) {
      this.entries.delete(url);
      return false;
    }
    this.hits++;
    if (inm !== undefined && etagMatches(inm, a.etag)) {
      res.writeHead(304, a.headers304);
      res.end();
    } else {
      res.writeHead(200, a.headers200);
      if (method === 'HEAD') res.end();
      else res.end(e.bytes);
    }
    return true;
  }

  /**
   * Stores the router's answer to a GET when it was offered as stored bytes, no invalidation
   * happened since the request began, and its source is still current.
   */
  fill(url: string | undefined, res: Response, epoch: number): void {
    const a = offered.get(res);
    if (a === undefined || url === undefined || epoch !== this.epoch || !a.source.valid()) return;
    if (this.entries.size >= this.maxEntries && !this.entries.has(url)) {
      this.entries.clear();
      this.byGroup.clear();
    }
    // A Buffer (a view, no copy): Node's socket would wrap a plain Uint8Array on every write.
    const bytes =
      typeof a.body === 'string'
        ? Buffer.from(a.body)
        : Buffer.from(a.body.buffer, a.body.byteOffset, a.body.byteLength);
    this.entries.set(url, { answer: a, bytes, day: Math.floor(this.clock() / DAY_MS) });
    const g = a.source.group;
    if (g === null) return;
    const urls = this.byGroup.get(g) ?? new Set<string>();
    this.byGroup.set(g, urls);
    urls.add(url);
  }

  /** Drops the entries built from these benchmarks (and those built from every benchmark). */
  invalidate(slugs: ReadonlySet<string>): void {
    this.epoch++;
    for (const g of [ANY_BENCHMARK, ...slugs]) {
      const urls = this.byGroup.get(g);
      if (!urls) continue;
      for (const url of urls) if (this.entries.get(url)?.answer.source.group === g) this.entries.delete(url);
      this.byGroup.delete(g);
    }
  }

  clear(): void {
    this.epoch++;
    this.entries.clear();
    this.byGroup.clear();
  }
}
