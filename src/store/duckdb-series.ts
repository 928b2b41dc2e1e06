import { type Labels, labelsKey, type Matcher, matchesAll } from '../core/samples.ts';

export interface SeriesRow {
  readonly id: number;
  readonly metric: string;
  readonly labels: Labels;
}

/**
 * The `series` table mirrored in memory: label matching happens in JS over this small set, sample
 * scans happen in SQL by series id. Ids are handed out here, so a new series needs no round trip.
 */
export class SeriesIndex {
  private readonly byMetric = new Map<string, Map<string, SeriesRow>>();
  private nextId = 1;

  /** Rows read from the table at open. */
  load(rows: Iterable<SeriesRow>): void {
    for (const row of rows) {
      this.remember(row);
      this.nextId = Math.max(this.nextId, row.id + 1);
    }
  }

  /** The series of a metric and canonical label key (`labelsKey`), if known. */
  get(metric: string, key: string): SeriesRow | undefined {
    return this.byMetric.get(metric)?.get(key);
  }

  /** A new series with the next id, remembered at once (forget it if its transaction fails). */
  create(metric: string, key: string): SeriesRow {
    const row = { id: this.nextId++, metric, labels: JSON.parse(key) as Labels };
    this.remember(row);
    return row;
  }

  /** The mirror must not keep rows the database rolled back. */
  forget(row: SeriesRow): void {
    this.byMetric.get(row.metric)?.delete(labelsKey(row.labels));
  }

  matching(metric: string, matchers: readonly Matcher[] = []): SeriesRow[] {
    const m = this.byMetric.get(metric);
    if (!m) return [];
    const out: SeriesRow[] = [];
    for (const row of m.values()) if (matchesAll(row.labels, matchers)) out.push(row);
    return out;
  }

  /** Every metric with at least one series, in first-seen order. */
  metrics(): string[] {
    return [...this.byMetric.keys()];
  }

  /** The series of one metric, in first-seen order. */
  rows(metric: string): Iterable<SeriesRow> {
    return this.byMetric.get(metric)?.values() ?? [];
  }

  private remember(row: SeriesRow): void {
    let m = this.byMetric.get(row.metric);
    if (!m) {
      m = new Map();
      this.byMetric.set(row.metric, m);
    }
    m.set(labelsKey(row.labels), row);
  }
}
