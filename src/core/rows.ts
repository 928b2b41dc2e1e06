import type { RankingRow } from './api-schemas.ts';
import { isoTime } from './format.ts';
import { providerName } from './providers.ts';
import type { Sample } from './samples.ts';
import type { ProviderEntry } from './spec-schema.ts';
import { mean, quantileSorted, round6 } from './stats.ts';

/** A ranking row before ranks and links are assigned. */
export type UnrankedRow = Omit<RankingRow, 'rank' | 'audit'>;
export type RankedRow = Omit<RankingRow, 'audit'>;

function base(p: ProviderEntry): Pick<UnrankedRow, 'name' | 'slug'> & { kind?: string } {
  return p.kind === undefined
    ? { name: providerName(p.slug), slug: p.slug }
    : { name: providerName(p.slug), slug: p.slug, kind: p.kind };
}

/**
 * `latest` derivation (network-coverage): a provider's value is its latest successful sample; a
 * failed refresh writes none, so the row falls back to the last good one. p50 = p90 = p99 = mean =
 * the value, successRate 100, sampleSize = the value (spec 2.6).
 */
export function latestRows(providers: readonly ProviderEntry[], latest: readonly Sample[]): UnrankedRow[] {
  const byProvider = new Map<string, Sample>();
  for (const s of latest) {
    const p = s.labels.provider;
    if (p === undefined) continue;
    const prev = byProvider.get(p);
    if (!prev || s.t > prev.t) byProvider.set(p, s);
  }
  const rows: UnrankedRow[] = [];
  for (const p of providers) {
    const s = byProvider.get(p.slug);
    if (!s) continue;
    const v = round6(s.v);
    rows.push({
      ...base(p),
      ms: { p50: v, p90: v, p99: v, mean: v },
      successRate: 100,
      sampleSize: Math.max(0, Math.round(s.v)),
      unresponsive: false,
      lastSampleAt: isoTime(s.t),
    });
  }
  return rows;
}

export interface WindowInput {
  /** Value samples in the window (already narrowed to the selected cells). */
  readonly values: readonly Sample[];
  /** Probe outcomes in the window (1 ok, 0 timeout or 5xx). */
  readonly probes: readonly Sample[];
  /** Latest unresponsive marker per provider. */
  readonly unresponsive: readonly Sample[];
}

/**
 * `window` derivation (token-trade-coverage): per provider, quantiles and mean over every value
 * sample of the selected cells in the window; successRate from probes; sampleSize = value samples.
 */
export function windowRows(providers: readonly ProviderEntry[], input: WindowInput): UnrankedRow[] {
  const values = new Map<string, number[]>();
  const newest = new Map<string, number>();
  for (const s of input.values) {
    const p = s.labels.provider;
    if (p === undefined) continue;
    let arr = values.get(p);
    if (!arr) {
      arr = [];
      values.set(p, arr);
    }
    arr.push(s.v);
    newest.set(p, Math.max(newest.get(p) ?? 0, s.t));
  }
  const probes = new Map<string, { ok: number; n: number }>();
  for (const s of input.probes) {
    const p = s.labels.provider;
    if (p === undefined) continue;
    const acc = probes.get(p) ?? { ok: 0, n: 0 };
    acc.n++;
    if (s.v >= 1) acc.ok++;
    probes.set(p, acc);
  }
  const unresponsive = new Map<string, Sample>();
  for (const s of input.unresponsive) {
    const p = s.labels.provider;
    if (p === undefined) continue;
    const prev = unresponsive.get(p);
    if (!prev || s.t > prev.t) unresponsive.set(p, s);
  }
  const rows: UnrankedRow[] = [];
  for (const p of providers) {
    const vs = values.get(p.slug);
    if (!vs || vs.length === 0) continue;
    const sorted = vs.sort((a, b) => a - b);
    const pr = probes.get(p.slug);
    rows.push({
      ...base(p),
      ms: {
        p50: round6(quantileSorted(sorted, 0.5)),
        p90: round6(quantileSorted(sorted, 0.9)),
        p99: round6(quantileSorted(sorted, 0.99)),
        mean: round6(mean(sorted)),
      },
      successRate: pr && pr.n > 0 ? round6((pr.ok / pr.n) * 100) : 100,
      sampleSize: sorted.length,
      unresponsive: (unresponsive.get(p.slug)?.v ?? 0) >= 1,
      lastSampleAt: isoTime(newest.get(p.slug) ?? 0),
    });
  }
  return rows;
}

/**
 * Eligible rows by p50 in the benchmark's direction; ties by higher successRate, then larger
 * sampleSize, then slug. Unresponsive rows keep a row but no rank, after the ranked ones.
 */
export function rankRows(rows: readonly UnrankedRow[], higherIsBetter: boolean): RankedRow[] {
  const cmp = (a: UnrankedRow, b: UnrankedRow): number => {
    const d = higherIsBetter ? b.ms.p50 - a.ms.p50 : a.ms.p50 - b.ms.p50;
    if (d !== 0) return d;
    if (b.successRate !== a.successRate) return b.successRate - a.successRate;
    if (b.sampleSize !== a.sampleSize) return b.sampleSize - a.sampleSize;
    return a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0;
  };
  const ranked = rows.filter((r) => !r.unresponsive).sort(cmp);
  const dead = rows.filter((r) => r.unresponsive).sort(cmp);
  return [...ranked.map((r, i) => ({ rank: i + 1, ...r })), ...dead.map((r) => ({ rank: null, ...r }))];
}
