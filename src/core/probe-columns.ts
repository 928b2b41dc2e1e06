import type { PackedSamples } from './packed-samples.ts';
import { probeSucceeded } from './rows.ts';
import type { Labels } from './samples.ts';

/** Per provider, its probes' successes and count. */
export type ProbeCounts = ReadonlyMap<string, { readonly ok: number; readonly total: number }>;

/** A view's probes as the store read them packed, counted per provider for any narrowing. */
export class ProbeColumns {
  /** [from, to) of each run of one series' probes. */
  private readonly runs: Int32Array;

  constructor(readonly packed: PackedSamples) {
    const probes = packed;
    const out: number[] = [];
    let from = 0;
    for (let i = 1; i <= probes.seriesOf.length; i++) {
      if (i < probes.seriesOf.length && probes.seriesOf[i] === probes.seriesOf[from]) continue;
      if (i > from) out.push(from, i);
      from = i;
    }
    this.runs = Int32Array.from(out);
  }

  /** The probes of series whose labels `keep` (all when null), counted per provider label. */
  counts(keep: ((labels: Labels) => boolean) | null): ProbeCounts {
    const { series, seriesOf, v } = this.packed;
    const kept = series.map((s) => s.labels.provider !== undefined && (keep === null || keep(s.labels)));
    const out = new Map<string, { ok: number; total: number }>();
    for (let r = 0; r < this.runs.length; r += 2) {
      const from = this.runs[r] as number;
      const to = this.runs[r + 1] as number;
      const k = seriesOf[from] as number;
      if (kept[k] !== true) continue;
      const p = series[k]?.labels.provider as string;
      let c = out.get(p);
      if (!c) {
        c = { ok: 0, total: 0 };
        out.set(p, c);
      }
      let ok = 0;
      for (let i = from; i < to; i++) if (probeSucceeded(v[i] as number)) ok++;
      c.ok += ok;
      c.total += to - from;
    }
    return out;
  }

  /** The newest probe's time, or null when there is none. */
  newest(): number | null {
    return newestAfter(this.packed.t, Number.NEGATIVE_INFINITY);
  }
}

export /** The newest of `t` after `after`, or null. */
function newestAfter(t: Float64Array, after: number): number | null {
  let m = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < t.length; i++) if ((t[i] as number) > m) m = t[i] as number;
  return m > after ? m : null;
}
