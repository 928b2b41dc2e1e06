import { z } from 'zod';
import { STORED_METRIC_NAMES } from '../core/metric-names.ts';
import { escapeRegex, type Labels, labelsKey, type Matcher, type Sample } from '../core/samples.ts';
import { validateEngineUrl } from './prometheus-config.ts';
import { EngineError, PrometheusHttp } from './prometheus-http.ts';
import { REMOTE_WRITE_HEADERS, type RemoteSeries, remoteWriteBody } from './remote-write.ts';
import type { AppendListener, LatestQuery, SampleStore, SelectQuery, SeriesInfo } from './sample-store.ts';
import { WriteBuffer } from './write-buffer.ts';

export interface PrometheusStoreOptions {
  /** Query side: Prometheus, or the `…/prometheus` prefix of Mimir or a VictoriaMetrics cluster. */
  readonly url: string;
  /** Remote write receiver; default `${url}/api/v1/write`. */
  readonly writeUrl?: string;
  /**
   * Called (GET) after each successful write and before listeners fire, so a recompute reads what
   * was just written. VictoriaMetrics single-node needs `${url}/internal/force_flush`: measured on
   * 1.79, a new series becomes queryable ~10 s after the write, a new sample of a known one ~1 s.
   */
  readonly flushUrl?: string;
  readonly bearerToken?: string;
  readonly basicAuth?: { readonly username: string; readonly password: string };
  readonly tenant?: string;
  readonly timeoutMs?: number;
  /** Samples kept in memory while the engine is down; the oldest are dropped beyond it. */
  readonly bufferSamples?: number;
  readonly maxConcurrency?: number;
  readonly retries?: number;
  readonly retryBaseMs?: number;
  readonly retryMaxMs?: number;
  /** Longest range one raw query asks for; longer selects are split (engines cap samples per query). */
  readonly maxRangeMs?: number;
  /** `latest` first looks this far back in one raw query, and only searches further for series it missed. */
  readonly latestWindowMs?: number;
  /** No sample is older than this (epoch ms): bounds `series`, `timeBounds` and `latest`. */
  readonly historyStartMs?: number;
  /** The metrics `series()` and `timeBounds()` cover when called without names. */
  readonly metrics?: readonly string[];
  /** prom-client Counter (or anything with `inc`) counting samples dropped from a full buffer. */
  readonly droppedSamplesCounter?: { inc(n: number): void };
  /** Errors the caller cannot see: a failed flush, a buffered batch the engine rejected. */
  readonly onError?: (err: Error) => void;
  /** Skip the reachability check at open (tests of a down engine). */
  readonly skipStartupCheck?: boolean;
}

const DAY = 86_400_000;
// 2009-01-03, the first Bitcoin block: nothing this service measures is older.
const DEFAULT_HISTORY_START = Date.UTC(2009, 0, 3);
// Both engines cap a range query's points (Prometheus 11,000 per series, VictoriaMetrics 30,000).
const GRID_POINTS = 10_000;

const num = z.union([z.number(), z.string()]);
const point = z.tuple([z.number(), num]);
const labelsSchema = z.record(z.string(), z.string());
const matrixAnswer = z.object({
  status: z.literal('success'),
  data: z.object({
    resultType: z.literal('matrix'),
    result: z.array(z.object({ metric: labelsSchema, values: z.array(point) })),
  }),
});
const vectorAnswer = z.object({
  status: z.literal('success'),
  data: z.object({
    resultType: z.literal('vector'),
    result: z.array(z.object({ metric: labelsSchema, value: point })),
  }),
});
const seriesAnswer = z.object({ status: z.literal('success'), data: z.array(labelsSchema) });

function parseValue(v: number | string): number {
  if (typeof v === 'number') return v;
  if (v === '+Inf' || v === 'Inf') return Number.POSITIVE_INFINITY;
  if (v === '-Inf') return Number.NEGATIVE_INFINITY;
  return Number(v);
}

/** The API speaks seconds with millisecond decimals. */
const seconds = (ms: number): string => (ms / 1000).toFixed(3);
const toMs = (s: number): number => Math.round(s * 1000);

const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

/** JSON string escaping is a subset of PromQL's (Go-style) string literal escapes. */
const quote = (s: string): string => JSON.stringify(s);

function selector(metric: string, matchers: readonly Matcher[] = []): string {
  if (!METRIC_NAME.test(metric)) throw new TypeError(`bad metric name "${metric}"`);
  const parts = [`__name__=${quote(metric)}`];
  for (const m of matchers) {
    if (!LABEL_NAME.test(m.name) || m.name === '__name__') throw new TypeError(`bad label name "${m.name}"`);
    parts.push(`${m.name}${m.op}${quote(m.value)}`);
  }
  return `{${parts.join(',')}}`;
}

function metricsSelector(metrics: readonly string[]): string {
  for (const m of metrics) if (!METRIC_NAME.test(m)) throw new TypeError(`bad metric name "${m}"`);
  return `{__name__=~${quote(metrics.map(escapeRegex).join('|'))}}`;
}

function withoutName(metric: Record<string, string>): Labels {
  const { __name__: _, ...rest } = metric;
  return rest;
}

interface RawSeries {
  readonly labels: Labels;
  /** Timestamp to value; one value per timestamp even where the engine kept duplicates. */
  readonly points: Map<number, number>;
}

/**
 * `SampleStore` over the Prometheus HTTP API (Prometheus, VictoriaMetrics, Mimir): reads with
 * `/api/v1/query` range selectors (raw samples), writes with remote write, one sample per
 * measured cycle at the cycle's own timestamp. No labels or metrics of its own are added.
 *
 * Differences from the embedded store, measured on Prometheus 2.42 and VictoriaMetrics 1.79:
 * - `append` returns the number of distinct samples sent: neither engine says which were new.
 *   Re-sending an identical sample is harmless on both. A different value at an existing
 *   timestamp is rejected by Prometheus for the whole request (400 "duplicate sample for
 *   timestamp") when it is the series' newest sample, and silently ignored (the first value kept)
 *   when older; VictoriaMetrics stores both and reads deduplicate them here (first answer kept).
 * - Series come out in label order, not first-append order.
 * - VictoriaMetrics keeps about 12 significant decimal digits of a value.
 *
 * Backfill writes samples days old, which each engine must accept:
 * - Prometheus (≥ 2.39): `storage: tsdb: out_of_order_time_window: 30d` (or longer) in the config
 *   file, `--web.enable-remote-write-receiver`, and `--storage.tsdb.retention.time` beyond 15 d.
 * - Mimir: `-ingester.out-of-order-time-window=30d` (or the per-tenant `out_of_order_time_window`).
 * - VictoriaMetrics: any timestamp inside `-retentionPeriod` (default 1 month) is accepted; set
 *   `-search.latencyOffset=0s` or reads near "now" miss the last 30 s, and `-dedup.minScrapeInterval=1ms`
 *   to drop re-sent duplicates from disk. Queries send `nocache=1` so backfill is never hidden by
 *   its response cache.
 * Measured (bench/prometheus-store.ts): timeBounds costs ~130 ms on Prometheus, ~80 ms on
 * VictoriaMetrics with the default 17-year history; a later `historyStartMs` makes it cheaper.
 */
export class PrometheusStore implements SampleStore {
  readonly http: PrometheusHttp;
  private readonly listeners = new Set<AppendListener>();
  private readonly buffer: WriteBuffer;
  private readonly url: string;
  private readonly writeUrl: string;

  /** The query side (PROMETHEUS_URL), for callers that send PromQL to the engine directly. */
  get queryUrl(): string {
    return this.url;
  }
  private readonly maxRangeMs: number;
  private readonly latestWindowMs: number;
  private readonly historyStart: number;
  private readonly metrics: readonly string[];
  private writeQueue: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(private readonly opts: PrometheusStoreOptions) {
    this.url = validateEngineUrl('PROMETHEUS_URL', opts.url);
    this.writeUrl = validateEngineUrl('PROMETHEUS_WRITE_URL', opts.writeUrl ?? `${this.url}/api/v1/write`);
    if (opts.flushUrl !== undefined) validateEngineUrl('PROMETHEUS_FLUSH_URL', opts.flushUrl);
    this.http = new PrometheusHttp({
      timeoutMs: opts.timeoutMs ?? 10_000,
      maxConcurrency: opts.maxConcurrency ?? 4,
      retries: opts.retries ?? 3,
      retryBaseMs: opts.retryBaseMs ?? 250,
      retryMaxMs: opts.retryMaxMs ?? 10_000,
      ...(opts.bearerToken === undefined ? {} : { bearerToken: opts.bearerToken }),
      ...(opts.basicAuth === undefined ? {} : { basicAuth: opts.basicAuth }),
      ...(opts.tenant === undefined ? {} : { tenant: opts.tenant }),
    });
    this.maxRangeMs = opts.maxRangeMs ?? 31 * DAY;
    this.latestWindowMs = Math.min(opts.latestWindowMs ?? 7 * DAY, this.maxRangeMs);
    this.historyStart = opts.historyStartMs ?? DEFAULT_HISTORY_START;
    this.metrics = opts.metrics ?? STORED_METRIC_NAMES;
    this.buffer = new WriteBuffer({
      maxSamples: opts.bufferSamples ?? 1_000_000,
      retryBaseMs: opts.retryBaseMs ?? 250,
      retryMaxMs: Math.max(opts.retryMaxMs ?? 10_000, 1000),
      send: (batch) => this.exclusiveWrite(() => this.write(batch, 0)),
      onDropped: (n) => opts.droppedSamplesCounter?.inc(n),
      onError: (e) => opts.onError?.(e),
    });
  }

  /** Samples waiting for the engine, and samples dropped because the buffer was full. */
  get bufferedSamples(): number {
    return this.buffer.size;
  }
  get droppedSamples(): number {
    return this.buffer.dropped;
  }

  /** Checks the URL answers like a Prometheus API; a down engine only warns (writes buffer). */
  async check(): Promise<void> {
    try {
      vectorAnswer.parse(await this.http.api('/api/v1/query', this.url, { query: 'vector(1)' }));
    } catch (e) {
      if (e instanceof EngineError && e.down) {
        this.opts.onError?.(new Error(`Prometheus store: engine not reachable yet (${e.message})`));
        return;
      }
      throw new Error(
        `PROMETHEUS_URL ${this.url} does not answer as a Prometheus API: ${e instanceof Error ? e.message : e}`,
      );
    }
  }

  private exclusiveWrite<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.writeQueue.then(fn, fn);
    this.writeQueue = run.catch(() => undefined);
    return run;
  }

  /** One remote-write request, then the optional flush, then the listeners. */
  private async write(batch: readonly Sample[], retries?: number): Promise<void> {
    const bySeries = new Map<
      string,
      { labels: Record<string, string>; samples: { t: number; v: number }[] }
    >();
    const metrics = new Set<string>();
    let minT = Number.POSITIVE_INFINITY;
    let maxT = Number.NEGATIVE_INFINITY;
    for (const s of batch) {
      const key = `${s.metric}\u0000${labelsKey(s.labels)}`;
      let entry = bySeries.get(key);
      if (!entry) {
        entry = { labels: { ...s.labels, __name__: s.metric }, samples: [] };
        bySeries.set(key, entry);
      }
      entry.samples.push({ t: s.t, v: s.v });
      metrics.add(s.metric);
      minT = Math.min(minT, s.t);
      maxT = Math.max(maxT, s.t);
    }
    const series: RemoteSeries[] = [...bySeries.values()];
    await this.http.send(
      'writes',
      this.writeUrl,
      { method: 'POST', headers: { ...REMOTE_WRITE_HEADERS }, body: remoteWriteBody(series) },
      retries,
    );
    if (this.opts.flushUrl !== undefined) {
      await this.http.send('writes', this.opts.flushUrl, { method: 'GET' }).catch((e: unknown) => {
        this.opts.onError?.(e instanceof Error ? e : new Error(String(e)));
      });
    }
    for (const l of this.listeners) l(metrics, minT, maxT);
  }

  append(samples: readonly Sample[]): Promise<number> {
    if (this.closed) return Promise.reject(new Error('store is closed'));
    if (samples.length === 0) return Promise.resolve(0);
    const unique = new Map<string, Sample>();
    for (const s of samples) {
      if (!METRIC_NAME.test(s.metric)) throw new TypeError(`bad metric name "${s.metric}"`);
      if (!Number.isFinite(s.t) || !Number.isFinite(s.v)) {
        throw new TypeError(`sample of ${s.metric} has a non-finite timestamp or value`);
      }
      for (const name of Object.keys(s.labels)) {
        if (!LABEL_NAME.test(name) || name === '__name__') throw new TypeError(`bad label name "${name}"`);
      }
      const t = Math.trunc(s.t);
      // Like the embedded store: within one batch the last sample for a (series, t) wins.
      unique.set(`${s.metric}\u0000${labelsKey(s.labels)}\u0000${t}`, { ...s, t });
    }
    const batch = [...unique.values()];
    return this.exclusiveWrite(async () => {
      // Earlier samples still wait: keep the order, queue behind them.
      if (this.buffer.size > 0) {
        this.buffer.add(batch);
        return 0;
      }
      try {
        await this.write(batch);
      } catch (e) {
        if (e instanceof EngineError && e.down) {
          this.buffer.add(batch);
          this.opts.onError?.(
            new Error(`Prometheus store: engine down, ${batch.length} samples buffered (${e.message})`),
          );
          return 0;
        }
        throw e;
      }
      return batch.length;
    });
  }

  /** Sends what the buffer holds now; resolves true when it is empty (tests, shutdown). */
  flush(): Promise<boolean> {
    return this.buffer.drain();
  }

  /** Raw samples in (lo, hi], one query per maxRangeMs, keyed by label set. */
  private async raw(sel: string, lo: number, hi: number): Promise<Map<string, RawSeries>> {
    const chunks: [number, number][] = [];
    for (let end = hi; end > lo; end -= this.maxRangeMs)
      chunks.push([Math.max(lo, end - this.maxRangeMs), end]);
    const answers = await Promise.all(
      chunks.map(async ([from, to]) => {
        // Prometheus 2 ranges are closed at the start, VictoriaMetrics' and Prometheus 3's open: ask
        // for the whole span and drop t == from here.
        const json = await this.http.api('/api/v1/query', this.url, {
          query: `${sel}[${to - from}ms]`,
          time: seconds(to),
          nocache: '1',
        });
        return { from, to, result: matrixAnswer.parse(json).data.result };
      }),
    );
    const out = new Map<string, RawSeries>();
    for (const { from, to, result } of answers) {
      for (const r of result) {
        const labels = withoutName(r.metric);
        const key = labelsKey(labels);
        let s = out.get(key);
        if (!s) {
          s = { labels, points: new Map() };
          out.set(key, s);
        }
        for (const [ts, v] of r.values) {
          const t = toMs(ts);
          if (t > from && t <= to && !s.points.has(t)) s.points.set(t, parseValue(v));
        }
      }
    }
    return out;
  }

  async select(q: SelectQuery): Promise<Sample[]> {
    this.assertOpen();
    if (q.until <= q.after) return [];
    const raw = await this.raw(selector(q.metric, q.matchers), Math.trunc(q.after), Math.trunc(q.until));
    const out: Sample[] = [];
    for (const key of [...raw.keys()].sort()) {
      const s = raw.get(key) as RawSeries;
      for (const t of [...s.points.keys()].sort((a, b) => a - b)) {
        out.push({ metric: q.metric, labels: s.labels, t, v: s.points.get(t) as number });
      }
    }
    return out;
  }

  /**
   * One raw query over the last `latestWindowMs` (or down to `notBefore`). PromQL has no portable
   * way to get the timestamp of the newest sample beyond the 5-minute lookback (`last_over_time`
   * stamps its answer with the evaluation time), so series silent for longer are found with one
   * `count_over_time` over the whole history, sent alongside, and only when some are missing
   * searched in raw slices growing ×8 back in time: the query count grows with how long a series
   * has been silent, never with the number of series.
   */
  async latest(q: LatestQuery): Promise<Sample[]> {
    this.assertOpen();
    const sel = selector(q.metric, q.matchers);
    const at = Math.trunc(q.at);
    const floor = q.notBefore === undefined ? this.historyStart : Math.trunc(q.notBefore);
    if (at <= floor) return [];
    const first = Math.max(floor, at - this.latestWindowMs);
    const [recent, existing] = await Promise.all([
      this.raw(sel, first, at),
      first > floor
        ? this.http
            .api('/api/v1/query', this.url, {
              query: `count_over_time(${sel}[${at - floor}ms])`,
              time: seconds(at),
              nocache: '1',
            })
            .then((j) => vectorAnswer.parse(j).data.result.map((r) => labelsKey(withoutName(r.metric))))
        : Promise.resolve([] as string[]),
    ]);
    const found = new Map<string, Sample>();
    const take = (raw: Map<string, RawSeries>) => {
      for (const [key, s] of raw) {
        if (found.has(key) || s.points.size === 0) continue;
        let t = Number.NEGATIVE_INFINITY;
        for (const x of s.points.keys()) if (x > t) t = x;
        found.set(key, { metric: q.metric, labels: s.labels, t, v: s.points.get(t) as number });
      }
    };
    take(recent);
    let missing = existing.filter((k) => !found.has(k));
    let hi = first;
    let span = this.latestWindowMs;
    while (missing.length > 0 && hi > floor) {
      span *= 8;
      const lo = Math.max(floor, hi - span);
      take(await this.raw(sel, lo, hi));
      missing = missing.filter((k) => !found.has(k));
      hi = lo;
    }
    return [...found.keys()].sort().map((k) => found.get(k) as Sample);
  }

  async series(metric?: string): Promise<SeriesInfo[]> {
    this.assertOpen();
    const names = metric === undefined ? this.metrics : [metric];
    if (names.length === 0) return [];
    const json = await this.http.api('/api/v1/series', this.url, {
      'match[]': metric === undefined ? metricsSelector(names) : selector(metric),
      // VictoriaMetrics answers for the last day only unless told otherwise.
      start: seconds(this.historyStart),
      end: seconds(Date.now() + 2 * DAY),
    });
    const out = seriesAnswer
      .parse(json)
      .data.map((m) => ({ metric: m.__name__ ?? '', labels: withoutName(m) }))
      .filter((s) => names.includes(s.metric));
    const seen = new Set<string>();
    return out.filter((s) => {
      const k = `${s.metric}\u0000${labelsKey(s.labels)}`;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
  }

  /**
   * Three queries whatever the number of series: a grid of `sum(count_over_time(...))` over the
   * whole history (≤ 10,000 points) finds the first and last cells holding samples, then one raw
   * query per cell gives the exact oldest and newest timestamps.
   */
  async timeBounds(metrics?: readonly string[]): Promise<{ min: number; max: number } | null> {
    this.assertOpen();
    const names = metrics ?? this.metrics;
    if (names.length === 0) return null;
    const sel = metricsSelector(names);
    const end = Date.now() + 2 * DAY;
    const stepS = Math.max(1, Math.ceil((end - this.historyStart) / GRID_POINTS / 1000));
    const step = stepS * 1000;
    const json = await this.http.api('/api/v1/query_range', this.url, {
      // One count_over_time per metric joined by `or`: over several metrics at once, series that
      // differ only by name collide once the name is dropped (Prometheus 2 answers 422). Only
      // presence matters here, and `or` keeps at least one series wherever any has samples.
      query: `sum(${names.map((n) => `count_over_time(${selector(n)}[${stepS}s])`).join(' or ')})`,
      start: seconds(this.historyStart + step),
      end: seconds(end),
      step: String(stepS),
      nocache: '1',
    });
    const grid = matrixAnswer.parse(json).data.result[0]?.values ?? [];
    const firstCell = grid[0];
    const lastCell = grid[grid.length - 1];
    if (!firstCell || !lastCell) return null;
    const cells = [firstCell[0], ...(firstCell === lastCell ? [] : [lastCell[0]])];
    const raws = await Promise.all(cells.map((c) => this.raw(sel, toMs(c) - step - 1, toMs(c))));
    let min = Number.POSITIVE_INFINITY;
    let max = Number.NEGATIVE_INFINITY;
    for (const raw of raws) {
      for (const s of raw.values()) {
        for (const t of s.points.keys()) {
          if (t < min) min = t;
          if (t > max) max = t;
        }
      }
    }
    return min <= max ? { min, max } : null;
  }

  onAppend(listener: AppendListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('store is closed');
  }

  /** Tries once more to send buffered samples; what is still waiting is counted as dropped. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.writeQueue;
    await this.buffer.close();
  }
}

/** Validates the URLs, checks the engine answers (a down engine only warns), and opens the store. */
export async function openPrometheusStore(opts: PrometheusStoreOptions): Promise<PrometheusStore> {
  const store = new PrometheusStore(opts);
  if (!opts.skipStartupCheck) await store.check();
  return store;
}
