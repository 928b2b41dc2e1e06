import { type Labels, labelsKey, type Sample } from '../core/samples.ts';
import type { PrometheusHttp } from './prometheus-http.ts';
import {
  matrixAnswer,
  metricsSelector,
  parseValue,
  seconds,
  selector,
  seriesAnswer,
  toMs,
  vectorAnswer,
  withoutName,
} from './prometheus-promql.ts';
import type { LatestQuery, SelectQuery, SeriesInfo } from './sample-store.ts';

const DAY = 86_400_000;
// Both engines cap a range query's points (Prometheus 11,000 per series, VictoriaMetrics 30,000).
const GRID_POINTS = 10_000;

export interface PrometheusReaderOptions {
  readonly url: string;
  readonly maxRangeMs: number;
  readonly latestWindowMs: number;
  readonly historyStart: number;
  /** The metrics `series()` and `timeBounds()` cover when called without names. */
  readonly metrics: readonly string[];
  /** The service's clock: `series` and `timeBounds` look two days past it (samples may be stamped ahead). */
  readonly now: () => number;
}

interface RawSeries {
  readonly labels: Labels;
  /** Timestamp to value; one value per timestamp even where the engine kept duplicates. */
  readonly points: Map<number, number>;
}

/** The read side of PrometheusStore: raw samples through `/api/v1/query` range selectors. */
export class PrometheusReader {
  constructor(
    private readonly http: PrometheusHttp,
    private readonly o: PrometheusReaderOptions,
  ) {}

  /** Raw samples in (lo, hi], one query per maxRangeMs, keyed by label set. */
  private async raw(sel: string, lo: number, hi: number): Promise<Map<string, RawSeries>> {
    const chunks: [number, number][] = [];
    for (let end = hi; end > lo; end -= this.o.maxRangeMs)
      chunks.push([Math.max(lo, end - this.o.maxRangeMs), end]);
    const answers = await Promise.all(
      chunks.map(async ([from, to]) => {
        // Prometheus 2 ranges are closed at the start, VictoriaMetrics' and Prometheus 3's open: ask
        // for the whole span and drop t == from here.
        const json = await this.http.api('/api/v1/query', this.o.url, {
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
    const sel = selector(q.metric, q.matchers);
    const at = Math.trunc(q.at);
    const floor = q.notBefore === undefined ? this.o.historyStart : Math.trunc(q.notBefore);
    if (at <= floor) return [];
    const first = Math.max(floor, at - this.o.latestWindowMs);
    const [recent, existing] = await Promise.all([
      this.raw(sel, first, at),
      first > floor
        ? this.http
            .api('/api/v1/query', this.o.url, {
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
    let span = this.o.latestWindowMs;
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
    const names = metric === undefined ? this.o.metrics : [metric];
    if (names.length === 0) return [];
    const json = await this.http.api('/api/v1/series', this.o.url, {
      'match[]': metric === undefined ? metricsSelector(names) : selector(metric),
      // VictoriaMetrics answers for the last day only unless told otherwise.
      start: seconds(this.o.historyStart),
      end: seconds(this.o.now() + 2 * DAY),
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
    const names = metrics ?? this.o.metrics;
    if (names.length === 0) return null;
    const sel = metricsSelector(names);
    const end = this.o.now() + 2 * DAY;
    const stepS = Math.max(1, Math.ceil((end - this.o.historyStart) / GRID_POINTS / 1000));
    const step = stepS * 1000;
    const json = await this.http.api('/api/v1/query_range', this.o.url, {
      // One count_over_time per metric joined by `or`: over several metrics at once, series that
      // differ only by name collide once the name is dropped (Prometheus 2 answers 422). Only
      // presence matters here, and `or` keeps at least one series wherever any has samples.
      query: `sum(${names.map((n) => `count_over_time(${selector(n)}[${stepS}s])`).join(' or ')})`,
      start: seconds(this.o.historyStart + step),
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
}
