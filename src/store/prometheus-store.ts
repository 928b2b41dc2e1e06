import { STORED_METRIC_NAMES } from '../core/metric-names.ts';
import type { Sample } from '../core/samples.ts';
import {
  EngineError,
  EngineUnreachable,
  PrometheusHttp,
  type PrometheusHttpOptions,
} from './prometheus-http.ts';
import { type PrometheusStoreOptions, validateEngineUrl } from './prometheus-options.ts';
import { vectorAnswer } from './prometheus-promql.ts';
import { PrometheusReader } from './prometheus-reads.ts';
import { PrometheusWriter } from './prometheus-writes.ts';
import type { AppendListener, LatestQuery, SampleStore, SelectQuery, SeriesInfo } from './sample-store.ts';

export type { PrometheusStoreOptions } from './prometheus-options.ts';

const DAY = 86_400_000;
// 2009-01-03, the first Bitcoin block: nothing this service measures is older.
const DEFAULT_HISTORY_START = Date.UTC(2009, 0, 3);

/**
 * `SampleStore` over the Prometheus HTTP API (Prometheus, VictoriaMetrics, Mimir): reads with
 * `/api/v1/query` range selectors (raw samples, prometheus-reads.ts), writes with remote write
 * (prometheus-writes.ts), one sample per measured cycle at the cycle's own timestamp; the HTTP
 * side (auth, concurrency, retries) is prometheus-http.ts. No labels or metrics of its own are added.
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
  private readonly url: string;
  private readonly reader: PrometheusReader;
  private readonly writer: PrometheusWriter;
  private closed = false;

  /** The query side (PROMETHEUS_URL), for callers that send PromQL to the engine directly. */
  get queryUrl(): string {
    return this.url;
  }

  constructor(private readonly opts: PrometheusStoreOptions) {
    this.url = validateEngineUrl('PROMETHEUS_URL', opts.url);
    const writeUrl = validateEngineUrl('PROMETHEUS_WRITE_URL', opts.writeUrl ?? `${this.url}/api/v1/write`);
    if (opts.flushUrl !== undefined) validateEngineUrl('PROMETHEUS_FLUSH_URL', opts.flushUrl);
    this.http = new PrometheusHttp({
      timeoutMs: opts.timeoutMs ?? 10_000,
      maxConcurrency: opts.maxConcurrency ?? 4,
      retries: opts.retries ?? 3,
      retryBaseMs: opts.retryBaseMs ?? 250,
      retryMaxMs: opts.retryMaxMs ?? 10_000,
      ...this.credentials(),
    });
    const maxRangeMs = opts.maxRangeMs ?? 31 * DAY;
    this.reader = new PrometheusReader(this.http, {
      url: this.url,
      maxRangeMs,
      latestWindowMs: Math.min(opts.latestWindowMs ?? 7 * DAY, maxRangeMs),
      historyStart: opts.historyStartMs ?? DEFAULT_HISTORY_START,
      metrics: opts.metrics ?? STORED_METRIC_NAMES,
      now: opts.clock ?? Date.now,
    });
    this.writer = new PrometheusWriter(this.http, {
      writeUrl,
      ...(opts.flushUrl === undefined ? {} : { flushUrl: opts.flushUrl }),
      bufferSamples: opts.bufferSamples ?? 1_000_000,
      retryBaseMs: opts.retryBaseMs ?? 250,
      retryMaxMs: Math.max(opts.retryMaxMs ?? 10_000, 1000),
      ...(opts.droppedSamplesCounter === undefined
        ? {}
        : { droppedSamplesCounter: opts.droppedSamplesCounter }),
      ...(opts.onError === undefined ? {} : { onError: opts.onError }),
    });
  }

  private credentials(): Pick<PrometheusHttpOptions, 'bearerToken' | 'basicAuth' | 'tenant'> {
    const { bearerToken, basicAuth, tenant } = this.opts;
    return {
      ...(bearerToken === undefined ? {} : { bearerToken }),
      ...(basicAuth === undefined ? {} : { basicAuth }),
      ...(tenant === undefined ? {} : { tenant }),
    };
  }

  /**
   * A client of its own for query_prom (issue 27 rule 4): one attempt, cut client-side at
   * `deadlineMs`, on its own `concurrency` connections. A user's query neither waits behind the
   * views' reads nor retries past its deadline, and a hung engine holds it `deadlineMs` at most.
   */
  queryClient(deadlineMs: number, concurrency: number): PrometheusHttp {
    return new PrometheusHttp({
      timeoutMs: deadlineMs,
      maxConcurrency: concurrency,
      retries: 0,
      retryBaseMs: 0,
      retryMaxMs: 0,
      ...this.credentials(),
    });
  }

  /** Samples waiting for the engine, and samples dropped because the buffer was full. */
  get bufferedSamples(): number {
    return this.writer.bufferedSamples;
  }
  get droppedSamples(): number {
    return this.writer.droppedSamples;
  }

  /** Checks the URL answers like a Prometheus API; a down engine only warns (writes buffer). */
  async check(): Promise<void> {
    try {
      vectorAnswer.parse(await this.http.api('/api/v1/query', this.url, { query: 'vector(1)' }));
    } catch (e) {
      if (e instanceof EngineError && e.down) {
        this.opts.onError?.(
          new EngineUnreachable(`Prometheus store: engine not reachable yet (${e.message})`),
        );
        return;
      }
      throw new Error(
        `PROMETHEUS_URL ${this.url} does not answer as a Prometheus API: ${e instanceof Error ? e.message : e}`,
      );
    }
  }

  /** One query, no retry: whether the engine answers now (the writer's store_engine_up). */
  async up(): Promise<boolean> {
    if (this.closed) return false;
    try {
      vectorAnswer.parse(
        JSON.parse(
          await this.http.send(
            'reads',
            `${this.url}/api/v1/query`,
            { method: 'POST', body: new URLSearchParams({ query: 'vector(1)' }) },
            0,
          ),
        ),
      );
      return true;
    } catch {
      return false;
    }
  }

  append(samples: readonly Sample[]): Promise<number> {
    if (this.closed) return Promise.reject(new Error('store is closed'));
    return this.writer.append(samples);
  }

  /** Sends what the buffer holds now; resolves true when it is empty (tests, shutdown). */
  flush(): Promise<boolean> {
    return this.writer.flush();
  }

  async select(q: SelectQuery): Promise<Sample[]> {
    this.assertOpen();
    return this.reader.select(q);
  }

  async latest(q: LatestQuery): Promise<Sample[]> {
    this.assertOpen();
    return this.reader.latest(q);
  }

  async series(metric?: string): Promise<SeriesInfo[]> {
    this.assertOpen();
    return this.reader.series(metric);
  }

  async timeBounds(metrics?: readonly string[]): Promise<{ min: number; max: number } | null> {
    this.assertOpen();
    return this.reader.timeBounds(metrics);
  }

  onAppend(listener: AppendListener): () => void {
    this.writer.listeners.add(listener);
    return () => this.writer.listeners.delete(listener);
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('store is closed');
  }

  /** Tries once more to send buffered samples; what is still waiting is counted as dropped. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.writer.close();
  }
}

/** Validates the URLs, checks the engine answers (a down engine only warns), and opens the store. */
export async function openPrometheusStore(opts: PrometheusStoreOptions): Promise<PrometheusStore> {
  const store = new PrometheusStore(opts);
  if (!opts.skipStartupCheck) await store.check();
  return store;
}
