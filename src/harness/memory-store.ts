import { labelsKey, matchesAll, type Sample } from '../core/samples.ts';
import type { AppendListener, LatestQuery, SelectQuery, SeriesInfo, Store } from '../store/sample-store.ts';

/**
 * An in-memory Store for tests, the CLI without a database, and benches. Not for production: it
 * keeps every sample in memory.
 */
export function createMemoryStore(): Store & { readonly appendCalls: number } {
  // metric → series key → { labels, samples by t }
  const data = new Map<string, Map<string, { labels: Sample['labels']; points: Map<number, number> }>>();
  const state = new Map<string, string>();
  const snapshots = new Map<string, { body: Uint8Array; etag: string; createdAt: number }>();
  const listeners = new Set<AppendListener>();
  let appendCalls = 0;

  function* matching(metric: string, q: { matchers?: SelectQuery['matchers'] }) {
    for (const s of data.get(metric)?.values() ?? []) if (matchesAll(s.labels, q.matchers ?? [])) yield s;
  }

  return {
    get appendCalls() {
      return appendCalls;
    },
    async append(samples) {
      appendCalls++;
      let added = 0;
      let minT = Number.POSITIVE_INFINITY;
      let maxT = Number.NEGATIVE_INFINITY;
      const metrics = new Set<string>();
      for (const s of samples) {
        let bySeries = data.get(s.metric);
        if (!bySeries) {
          bySeries = new Map();
          data.set(s.metric, bySeries);
        }
        const key = labelsKey(s.labels);
        let series = bySeries.get(key);
        if (!series) {
          series = { labels: { ...s.labels }, points: new Map() };
          bySeries.set(key, series);
        }
        if (series.points.has(s.t)) continue;
        series.points.set(s.t, s.v);
        added++;
        metrics.add(s.metric);
        minT = Math.min(minT, s.t);
        maxT = Math.max(maxT, s.t);
      }
      if (added > 0) for (const l of listeners) l(metrics, minT, maxT);
      return added;
    },
    async select(q) {
      const out: Sample[] = [];
      for (const s of matching(q.metric, q)) {
        const ts = [...s.points.keys()].filter((t) => t > q.after && t <= q.until).sort((a, b) => a - b);
        for (const t of ts) out.push({ metric: q.metric, labels: s.labels, t, v: s.points.get(t) as number });
      }
      return out;
    },
    async latest(q: LatestQuery) {
      const out: Sample[] = [];
      for (const s of matching(q.metric, q)) {
        let best: number | null = null;
        for (const t of s.points.keys()) {
          if (t > q.at || (q.notBefore !== undefined && t <= q.notBefore)) continue;
          if (best === null || t > best) best = t;
        }
        if (best !== null)
          out.push({ metric: q.metric, labels: s.labels, t: best, v: s.points.get(best) as number });
      }
      return out;
    },
    async series(metric?: string) {
      const out: SeriesInfo[] = [];
      for (const [m, bySeries] of data) {
        if (metric !== undefined && m !== metric) continue;
        for (const s of bySeries.values()) out.push({ metric: m, labels: s.labels });
      }
      return out;
    },
    async timeBounds(metrics?: readonly string[]) {
      let min = Number.POSITIVE_INFINITY;
      let max = Number.NEGATIVE_INFINITY;
      for (const [m, bySeries] of data) {
        if (metrics && !metrics.includes(m)) continue;
        for (const s of bySeries.values()) {
          for (const t of s.points.keys()) {
            if (t < min) min = t;
            if (t > max) max = t;
          }
        }
      }
      return Number.isFinite(min) ? { min, max } : null;
    },
    onAppend(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {},
    async getSnapshot(key) {
      return snapshots.get(key) ?? null;
    },
    async putSnapshot(key, body, etag) {
      const existing = snapshots.get(key);
      if (existing) return existing;
      const snap = { body, etag, createdAt: Date.now() };
      snapshots.set(key, snap);
      return snap;
    },
    async getState(key) {
      return state.get(key) ?? null;
    },
    async setState(key, value) {
      state.set(key, value);
    },
  };
}
