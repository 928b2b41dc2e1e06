import type { BenchmarkSpec } from '../core/spec-schema.ts';
import { specMetrics } from './compute.ts';

export type ChangeListener = (slugs: ReadonlySet<string>) => void;

/** Who is told which benchmarks' views changed (the HTTP hot path, MCP subscriptions). */
export class ChangeListeners {
  private readonly listeners = new Set<ChangeListener>();

  add(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  notify(slugs: ReadonlySet<string>): void {
    for (const l of this.listeners) l(slugs);
  }
}

/** The benchmarks an append touches, from the metrics it wrote (a metric may feed several). */
export function benchmarksOfMetrics(
  specs: readonly BenchmarkSpec[],
): (metrics: ReadonlySet<string>) => Set<string> {
  const byMetric = new Map<string, string[]>();
  for (const s of specs) {
    for (const m of specMetrics(s)) byMetric.set(m, [...(byMetric.get(m) ?? []), s.slug]);
  }
  return (metrics) => {
    const slugs = new Set<string>();
    for (const m of metrics) for (const s of byMetric.get(m) ?? []) slugs.add(s);
    return slugs;
  };
}
