import type { CitableIndex, DatasetIndex, MissingSlots } from '../core/api-schemas.ts';
import { canonicalJson } from '../core/canonical-json.ts';
import { DAY_MS, dayEnd, dayStart, parseDay } from '../core/dates.ts';
import { etagOf, etagOfSha256 } from '../core/hash.ts';
import { STORED_METRIC_NAMES } from '../core/metric-names.ts';
import type { Provenance } from '../core/provenance.ts';
import type { Sample } from '../core/samples.ts';
import type { BenchmarkSpec } from '../core/spec-schema.ts';
import type { Site } from '../core/urls.ts';
import type { Store } from '../store/sample-store.ts';
import { specMetrics } from './compute.ts';
import {
  type DatasetExtension,
  type DatasetFiles,
  type DatasetWriter,
  inlineDatasetWriter,
} from './dataset-files.ts';
import { datasetManifest, parquetMetadata } from './dataset-manifest.ts';
import { type DatasetFile, FrozenDayFiles, fileKey } from './frozen-day-files.ts';

export type { DatasetFile } from './frozen-day-files.ts';

const HOUR_MS = 3_600_000;

/** What a day's files are, frozen with them (the index reads this, never the files). */
interface DayMeta {
  readonly rows: number;
  readonly sha256: string;
  readonly csvSha256: string;
  /** The day's missing slots, as its index froze them (absent when none). */
  readonly missingSlots?: MissingSlots;
}

export type DatasetDayResult =
  | { kind: 'ok'; file: DatasetFile }
  | { kind: 'bad_date' | 'not_frozen' | 'no_data'; message: string };

/** The day checks the publication already makes for snapshots (same rules, same messages). */
export interface DatasetDeps {
  readonly store: Store;
  readonly specs: readonly BenchmarkSpec[];
  readonly site: () => Site;
  readonly clock: () => number;
  checkDay(
    day: string,
  ): Promise<
    | { kind: 'ok' | 'today'; day: string; start: number }
    | { kind: 'bad_date' | 'not_frozen'; message: string }
  >;
  /** First UTC day with any sample, or null (read once by the publication). */
  firstDay(): Promise<number | null>;
  /**
   * A frozen day's index `site` (its provenance and missingSlots), or null while the day is not
   * frozen: a day's files are frozen after its index, never before (a day waiting for planned
   * slots is not frozen yet).
   */
  frozenIndexSite(day: string): Promise<CitableIndex['site'] | null>;
  /** Where the files are written (the service's worker threads); on this thread when absent. */
  readonly files?: DatasetWriter | undefined;
}

export type DatasetManifestResult =
  | { kind: 'ok'; body: Uint8Array<ArrayBuffer>; etag: string }
  | { kind: 'bad_date' | 'not_frozen' | 'no_data'; message: string };

/** A closed day whose index is not frozen yet (its freeze failed, runs, or waits for planned slots). */
export class DayNotFrozenError extends Error {
  constructor(readonly day: string) {
    super(`${day} is not frozen yet`);
  }
}

const notFrozenYet = (day: string) => ({
  kind: 'not_frozen' as const,
  message: `${day} is closed but not frozen yet (its files are frozen after its snapshot); retry shortly.`,
});

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const metaKey = (day: string) => `dataset:${day}.json`;
/** The public manifest, stored apart from the internal meta (which keeps its key and bytes). */
const manifestKey = (day: string) => `dataset-manifest:${day}.json`;
const isoDay = (start: number) => new Date(start).toISOString().slice(0, 10);

/**
 * The daily open dataset: every published sample of a UTC day as Parquet and CSV. A closed day's
 * files are written once, after the day's snapshot, and stored as snapshots (Parquet as base64,
 * since snapshot bodies are text), so they are byte-identical forever whatever arrives later;
 * today's are rebuilt from the store and kept until the next append.
 */
export class DatasetPublisher {
  private readonly freezing = new Map<string, Promise<DayMeta>>();
  private readonly metas = new Map<string, DayMeta>();
  private readonly frozenFiles: FrozenDayFiles;
  /** Today's newest build, its version and when it settles; kept across changes (todayFiles). */
  private today:
    | { day: string; version: number; files: Promise<DatasetFiles>; settled: Promise<void> }
    | undefined;
  private readonly metrics: readonly string[];
  private frozenList: { readonly at: string; readonly days: readonly string[] } | undefined;
  private readonly files: DatasetWriter;
  private readonly unsubscribe: () => void;
  /** Set by close(): a background freeze stops at the next day instead of failing on a closed store. */
  closed = false;
  /** Bumped on every change (append, replica poll): today's files may differ. */
  version = 0;

  constructor(private readonly deps: DatasetDeps) {
    this.metrics = [...new Set([...STORED_METRIC_NAMES, ...deps.specs.flatMap(specMetrics)])].sort();
    this.files = deps.files ?? inlineDatasetWriter;
    this.frozenFiles = new FrozenDayFiles(deps.store, this.files);
    this.unsubscribe = deps.store.onAppend(() => this.changed());
  }

  /** Samples were appended, or (in a replica) its poll found samples or a day another froze. */
  changed(): void {
    this.version++;
  }

  /** Every closed day with a frozen snapshot, newest first (the day archive), read once per day closed. */
  async frozenDays(): Promise<readonly string[]> {
    const first = await this.deps.firstDay();
    const yesterday = dayStart(this.deps.clock()) - DAY_MS;
    const at = `${first}:${yesterday}:${this.version}`;
    if (this.frozenList?.at === at) return this.frozenList.days;
    const days: string[] = [];
    for (let d = yesterday; first !== null && d >= first; d -= DAY_MS) {
      if ((await this.deps.checkDay(isoDay(d))).kind === 'ok') days.push(isoDay(d));
    }
    this.frozenList = { at, days };
    return days;
  }

  close(): void {
    this.closed = true;
    this.unsubscribe();
  }

  /**
   * Every published sample with dayStart ≤ t ≤ dayEnd, read through the SampleStore interface one
   * metric at a time: a day of 1,000 benchmarks is 1.44M samples, ~140 MB of JS objects as one array
   * held through the whole build; a metric's is at most the harness_cycle markers (one per benchmark
   * and cycle: 72,000 at 1,000 benchmarks).
   */
  async *samplesOf(start: number): AsyncGenerator<Sample[]> {
    // An hour at a time: a day of one metric written every minute in three regions (the RPC latency:
    // 500k samples) read in one sorted query asked the store's DuckDB (memory_limit 256 MB) for a
    // 128 MB block and failed the freeze. The files sort their rows themselves, so batches may come
    // in any order.
    const end = dayEnd(start);
    for (const metric of this.metrics) {
      for (let from = start - 1; from < end; from += HOUR_MS) {
        const batch = await this.deps.store.select({
          metric,
          after: from,
          until: Math.min(end, from + HOUR_MS),
        });
        if (batch.length > 0) yield batch;
      }
    }
  }

  /** How many published samples of the day the store holds now (the dataset's `rows` if none came late). */
  async countStored(start: number): Promise<number> {
    let n = 0;
    for await (const batch of this.samplesOf(start)) n += batch.length;
    return n;
  }

  /**
   * Frozen days whose store now holds more samples than their files: written while the service was
   * stopped, or by a separate harness. `found(start, extra)` for each; days are read one at a time.
   */
  async findLateWrites(until: number, found: (start: number, extra: number) => void): Promise<void> {
    const first = await this.deps.firstDay();
    if (first === null) return;
    for (let d = first; d < until && !this.closed; d += DAY_MS) {
      const meta = await this.readMeta(isoDay(d));
      if (!meta) continue;
      const extra = (await this.countStored(d)) - meta.rows;
      if (extra > 0) found(d, extra);
    }
  }

  /**
   * The files of any day, built now from the store (the CLI export of days not frozen, today's);
   * the Parquet carries the licences and `provenance` (null until the day is frozen).
   */
  build(start: number, provenance: Provenance | null = null): Promise<DatasetFiles> {
    return this.files.write(this.samplesOf(start), parquetMetadata(provenance));
  }

  /**
   * Today's files, built after the newest change and shared until the next. One build at a time: a
   * change during a build starts the next when it ends (a 600× demo's appends started a build per
   * request, all at once: 35 s for the first /api/dataset). Never files built before the call.
   */
  private todayFiles(day: string, start: number): Promise<DatasetFiles> {
    const last = this.today;
    if (last?.day === day && last.version === this.version) return last.files;
    const files = (last?.settled ?? Promise.resolve()).then(() => this.build(start));
    const settled = files.then(
      () => undefined,
      () => undefined,
    );
    const entry = { day, version: this.version, files, settled };
    this.today = entry;
    // A failed build is not kept: the next request builds again.
    files.catch(() => {
      if (this.today === entry) this.today = { ...entry, version: -1 };
    });
    return files;
  }

  private async readMeta(day: string): Promise<DayMeta | null> {
    const hit = this.metas.get(day);
    if (hit) return hit;
    const stored = await this.deps.store.getSnapshot(metaKey(day));
    if (!stored) return null;
    const meta = JSON.parse(decoder.decode(stored.body)) as DayMeta;
    this.metas.set(day, meta);
    return meta;
  }

  /**
   * Freezes a closed day's files once: the files first, the meta last (it marks a complete freeze);
   * an existing freeze is never rewritten. A day without samples stores only its meta (rows 0).
   */
  freeze(day: string): Promise<DayMeta> {
    const running = this.freezing.get(day);
    if (running) return running;
    const p = (async () => {
      const existing = await this.readMeta(day);
      if (existing) return existing;
      const parsed = parseDay(day);
      if (!parsed.ok) throw new Error(parsed.message);
      // The day's provenance and missing slots as its index froze them (the index freezes first).
      const site = await this.deps.frozenIndexSite(day);
      if (site === null) throw new DayNotFrozenError(day);
      const provenance = site.provenance ?? null;
      const missing = site.missingSlots ? { missingSlots: site.missingSlots } : {};
      const files = await this.build(parsed.start, provenance);
      if (files.rows > 0) {
        const b64 = encoder.encode(Buffer.from(files.parquet).toString('base64'));
        await this.deps.store.putSnapshot(fileKey(day, 'parquet'), b64, etagOfSha256(files.sha256.parquet));
        // The CSV is not stored: it is derived from the Parquet when asked for (csvFromParquet).
        if ((await this.files.csvFromParquet(files.parquet)).sha256 !== files.sha256.csv) {
          throw new Error(`${day}: the CSV derived from the Parquet differs from the CSV written`);
        }
        await this.putManifest(
          day,
          { rows: files.rows, sha256: files.sha256.parquet, csvSha256: files.sha256.csv, ...missing },
          provenance,
        );
      }
      const meta: DayMeta = {
        rows: files.rows,
        sha256: files.sha256.parquet,
        csvSha256: files.sha256.csv,
        ...missing,
      };
      const body = encoder.encode(canonicalJson(meta));
      const stored = await this.deps.store.putSnapshot(metaKey(day), body, etagOf(body));
      const kept = JSON.parse(decoder.decode(stored.body)) as DayMeta;
      this.metas.set(day, kept);
      return kept;
    })().finally(() => this.freezing.delete(day));
    this.freezing.set(day, p);
    return p;
  }

  /** The day's frozen meta, freezing it now if needed; null while its index is not frozen. */
  private frozenMeta(day: string): Promise<DayMeta | null> {
    return this.freeze(day).catch((e: unknown) => {
      if (e instanceof DayNotFrozenError) return null;
      throw e;
    });
  }

  /** Stores a day's manifest once (an existing one is never rewritten); returns the stored bytes. */
  private async putManifest(
    day: string,
    meta: DayMeta,
    provenance: Provenance | null,
  ): Promise<{ body: Uint8Array; etag: string }> {
    const sha = { parquet: meta.sha256, csv: meta.csvSha256 };
    const manifest = datasetManifest(
      day,
      meta.rows,
      this.deps.site().baseUrl,
      sha,
      provenance,
      meta.missingSlots,
      this.deps.site().simulated === true,
    );
    const body = encoder.encode(canonicalJson(manifest));
    return this.deps.store.putSnapshot(manifestKey(day), body, etagOf(body));
  }

  /**
   * GET /api/dataset/{day}.json: a closed day's manifest, frozen with its files. A day whose files
   * were frozen before manifests existed gets one now, once, from its recorded rows and hashes and
   * with provenance null (its index had none); its bytes never change after.
   */
  async manifest(day: string): Promise<DatasetManifestResult> {
    const d = await this.deps.checkDay(day);
    if (d.kind === 'bad_date' || d.kind === 'not_frozen') return d;
    if (d.kind === 'today') {
      return {
        kind: 'not_frozen',
        message: `${day} is today: its manifest is frozen with its files once the day closes (00:00 UTC plus grace).`,
      };
    }
    const meta = await this.frozenMeta(day);
    if (meta === null) return notFrozenYet(day);
    if (meta.rows === 0) return { kind: 'no_data', message: `${day} has no samples.` };
    const stored =
      (await this.deps.store.getSnapshot(manifestKey(day))) ?? (await this.putManifest(day, meta, null));
    return { kind: 'ok', body: stored.body as Uint8Array<ArrayBuffer>, etag: stored.etag };
  }

  /** Freezes every closed day from the first with data (the freezer runs this after the snapshots). */
  async freezeClosedDays(until: number): Promise<number> {
    const first = await this.deps.firstDay();
    let n = 0;
    if (first === null) return 0;
    for (let d = first; d < until && !this.closed; d += DAY_MS) {
      const day = isoDay(d);
      if (await this.readMeta(day)) continue;
      // A day whose index is not frozen yet (waiting for planned slots) is frozen on a later pass.
      if (await this.frozenMeta(day)) n++;
    }
    return n;
  }

  /** GET /api/dataset/{day}.{ext}. */
  async file(day: string, ext: DatasetExtension): Promise<DatasetDayResult> {
    const d = await this.deps.checkDay(day);
    if (d.kind === 'bad_date' || d.kind === 'not_frozen') return d;
    const noData = { kind: 'no_data' as const, message: `${day} has no samples.` };
    if (d.kind === 'today') {
      const files = await this.todayFiles(day, d.start);
      if (files.rows === 0) return noData;
      // The files were hashed where they were written (a worker thread), not here per request.
      return { kind: 'ok', file: { body: files[ext], etag: etagOfSha256(files.sha256[ext]), frozen: false } };
    }
    const meta = await this.frozenMeta(day);
    if (meta === null) return notFrozenYet(day);
    if (meta.rows === 0) return noData;
    const file = await this.frozenFiles.get(day, ext, meta.csvSha256);
    if (!file) return { kind: 'not_frozen', message: `${day}'s files are not stored yet; retry shortly.` };
    return { kind: 'ok', file };
  }

  /** GET /api/dataset: the days that have samples, oldest first, today last (not frozen). */
  async index(): Promise<DatasetIndex> {
    const first = await this.deps.firstDay();
    const days: DatasetIndex['days'] = [];
    if (first === null) return { days, ...(this.deps.site().simulated ? { simulated: true as const } : {}) };
    const base = this.deps.site().baseUrl;
    const entry = (day: string, meta: DayMeta, frozen: boolean) => ({
      date: day,
      rows: meta.rows,
      frozen,
      parquet: `${base}/api/dataset/${day}.parquet`,
      csv: `${base}/api/dataset/${day}.csv`,
      sha256: meta.sha256,
      csvSha256: meta.csvSha256,
      ...(frozen ? { manifest: `${base}/api/dataset/${day}.json` } : {}),
      ...(meta.missingSlots ? { missingSlots: meta.missingSlots } : {}),
    });
    const today = dayStart(this.deps.clock());
    for (let d = first; d <= today; d += DAY_MS) {
      const day = isoDay(d);
      const c = await this.deps.checkDay(day);
      if (c.kind === 'ok') {
        const meta = await this.frozenMeta(day);
        if (meta !== null && meta.rows > 0) days.push(entry(day, meta, true));
      } else if (c.kind === 'today') {
        const f = await this.todayFiles(day, d);
        if (f.rows > 0) {
          days.push(entry(day, { rows: f.rows, sha256: f.sha256.parquet, csvSha256: f.sha256.csv }, false));
        }
      }
    }
    return { days, ...(this.deps.site().simulated ? { simulated: true as const } : {}) };
  }
}
