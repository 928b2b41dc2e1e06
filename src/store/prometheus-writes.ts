import { labelsKey, type Sample } from '../core/samples.ts';
import { EngineError, EngineUnreachable, type PrometheusHttp } from './prometheus-http.ts';
import { LABEL_NAME, METRIC_NAME } from './prometheus-promql.ts';
import { REMOTE_WRITE_HEADERS, type RemoteSeries, remoteWriteBody } from './remote-write.ts';
import type { AppendListener } from './sample-store.ts';
import { WriteBuffer } from './write-buffer.ts';

export interface PrometheusWriterOptions {
  readonly writeUrl: string;
  readonly flushUrl?: string;
  readonly bufferSamples: number;
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
  readonly droppedSamplesCounter?: { inc(n: number): void };
  readonly onError?: (err: Error) => void;
}

/**
 * The write side of PrometheusStore: remote write, one request at a time in append order, then
 * the optional flush, then the listeners; while the engine is down, batches wait in a WriteBuffer.
 */
export class PrometheusWriter {
  readonly listeners = new Set<AppendListener>();
  private readonly buffer: WriteBuffer;
  private writeQueue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly http: PrometheusHttp,
    private readonly o: PrometheusWriterOptions,
  ) {
    this.buffer = new WriteBuffer({
      maxSamples: o.bufferSamples,
      retryBaseMs: o.retryBaseMs,
      retryMaxMs: o.retryMaxMs,
      send: (batch) => this.exclusiveWrite(() => this.write(batch, 0)),
      onDropped: (n) => o.droppedSamplesCounter?.inc(n),
      onError: (e) => o.onError?.(e),
    });
  }

  /** Samples waiting for the engine, and samples dropped because the buffer was full. */
  get bufferedSamples(): number {
    return this.buffer.size;
  }
  get droppedSamples(): number {
    return this.buffer.dropped;
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
      this.o.writeUrl,
      { method: 'POST', headers: { ...REMOTE_WRITE_HEADERS }, body: remoteWriteBody(series) },
      retries,
    );
    if (this.o.flushUrl !== undefined) {
      await this.http.send('writes', this.o.flushUrl, { method: 'GET' }).catch((e: unknown) => {
        this.o.onError?.(e instanceof Error ? e : new Error(String(e)));
      });
    }
    for (const l of this.listeners) l(metrics, minT, maxT);
  }

  /** Throws (synchronously) on a bad name or number; resolves with the samples sent, 0 if buffered. */
  append(samples: readonly Sample[]): Promise<number> {
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
          this.o.onError?.(
            new EngineUnreachable(
              `Prometheus store: engine down, ${batch.length} samples buffered (${e.message})`,
            ),
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

  /** After the write in progress, tries once more to send buffered samples (see WriteBuffer.close). */
  async close(): Promise<void> {
    await this.writeQueue;
    await this.buffer.close();
  }
}
