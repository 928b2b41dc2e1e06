/**
 * Realistic Stat records and an in-memory PublicationApi for the sample script, the benchmark and
 * tests. Not used by the service itself. Numbers follow published figures where they exist
 * (network-coverage: GeckoTerminal 263, Codex 133, Mobula 78).
 */
import type { Filters, RankingRow, Stat } from '../core/api-schemas.ts';
import { etagOf } from '../core/hash.ts';
import type { PublicationApi } from '../publication/types.ts';
import { type Served, UnknownBenchmarkError } from '../publication/types.ts';

export const SAMPLE_BASE_URL = 'https://citebench.org';
export const SAMPLE_AS_OF = '2026-07-01T12:00:00.000Z';

/** A deterministic 73-point series: base + slow wave + small pseudo-noise (no Math.random). */
export function series(base: number, wave: number, noise: number, trend = 0, n = 73): number[] {
  let seed = Math.round(base * 1000) % 2147483647 || 1;
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    seed = (seed * 48271) % 2147483647;
    const r = seed / 2147483647 - 0.5;
    const v = base + wave * Math.sin(i / 9) + noise * r + (trend * i) / (n - 1);
    out.push(Math.round(v * 1000) / 1000);
  }
  return out;
}

interface Provider {
  readonly name: string;
  readonly slug: string;
  readonly value: number;
}

export interface StatInput {
  readonly slug: string;
  readonly number: string;
  readonly title: string;
  readonly category?: string;
  readonly metric: string;
  readonly unit: string;
  readonly higherIsBetter: boolean;
  /** Best first; empty for a draft. */
  readonly providers: readonly Provider[];
  readonly sparkline: readonly number[];
  readonly status?: 'live' | 'draft';
  readonly baseUrl?: string;
  readonly asOf?: string | null;
}

export function makeStat(i: StatInput): Stat {
  const base = i.baseUrl ?? SAMPLE_BASE_URL;
  const draft = (i.status ?? 'live') === 'draft';
  const asOf = draft ? null : (i.asOf ?? SAMPLE_AS_OF);
  const leader = i.providers[0] ?? null;
  const rankings: RankingRow[] = i.providers.map((p, k) => ({
    rank: k + 1,
    name: p.name,
    slug: p.slug,
    ms: { p50: p.value, p90: p.value, p99: p.value, mean: p.value },
    successRate: 100,
    sampleSize: 48,
    unresponsive: false,
    noComparison: false,
    lastSampleAt: asOf ?? SAMPLE_AS_OF,
    audit: `${base}/api/audit/${i.slug}/${p.slug}`,
  }));
  const pageUrl = `${base}/benchmarks/${i.slug}`;
  const headline = leader
    ? `${leader.name} leads ${i.title} at ${leader.value} ${i.unit}.`
    : `${i.title}: no data yet.`;
  return {
    slug: i.slug,
    number: i.number,
    title: i.title,
    subtitle: `${i.metric}, measured continuously.`,
    category: i.category ?? 'Aggregators',
    metric: i.metric,
    unit: i.unit,
    status: draft ? 'draft' : 'live',
    higherIsBetter: i.higherIsBetter,
    filters: null,
    value: leader ? leader.value : null,
    leader: leader ? { name: leader.name, slug: leader.slug, value: leader.value } : null,
    rankings,
    sparkline: [...i.sparkline],
    sampleSize: rankings.reduce((a, r) => a + r.sampleSize, 0),
    asOf,
    headline,
    quote: `${headline} Source: ${pageUrl}`,
    cite: { plain: headline, bibtex: '@misc{x}', apa: headline, ris: 'TY  - GEN\r\nER  - \r\n' },
    pageUrl,
    api: `${base}/api/stat/${i.slug}`,
    ogImage: `${base}/api/og/${i.slug}`,
    sparklineSvg: `${base}/api/sparkline/${i.slug}`,
    source: 'https://github.com/citebench/citebench/tree/main/src/harness',
    methodology: ['Sample methodology statement.'],
    license: 'CC-BY-4.0',
    window: '24h',
    dimensions: {},
  };
}

/** The benchmarks the samples and the benchmark render. */
export function sampleStats(baseUrl = SAMPLE_BASE_URL): Stat[] {
  return [
    makeStat({
      slug: 'network-coverage',
      number: '001',
      title: 'Network coverage of DEX data providers',
      metric: 'networks supported',
      unit: 'count',
      higherIsBetter: true,
      providers: [
        { name: 'GeckoTerminal', slug: 'geckoterminal', value: 263 },
        { name: 'Codex', slug: 'codex', value: 133 },
        { name: 'Mobula', slug: 'mobula', value: 78 },
      ],
      // A listing count moves in steps: 261 until a refresh adds two networks.
      sparkline: Array.from({ length: 73 }, (_, k) => (k < 40 ? 261 : k < 58 ? 262 : 263)),
      baseUrl,
    }),
    makeStat({
      slug: 'token-trade-coverage',
      number: '002',
      title: 'Token trade capture rate',
      metric: 'trade capture rate',
      unit: 'pct',
      higherIsBetter: true,
      providers: [
        { name: 'Mobula', slug: 'mobula', value: 98.4 },
        { name: 'Codex', slug: 'codex', value: 91.2 },
        { name: 'GeckoTerminal', slug: 'geckoterminal', value: 74.5 },
      ],
      sparkline: series(98, 0.6, 1.2, 0.4),
      baseUrl,
    }),
    makeStat({
      slug: 'dex-head-lag',
      number: '003',
      title: 'Head lag of DEX trade feeds',
      metric: 'head lag p50',
      unit: 'ms',
      higherIsBetter: false,
      providers: [
        { name: 'Mobula', slug: 'mobula', value: 700 },
        { name: 'Codex', slug: 'codex', value: 1300 },
        { name: 'GeckoTerminal', slug: 'geckoterminal', value: 7500 },
      ],
      // Falling latency (improving): drawn rising, since up means better.
      sparkline: series(820, 40, 60, -160),
      baseUrl,
    }),
    makeStat({
      slug: 'bridge-quote-latency',
      number: '004',
      title: 'Bridge quote latency',
      category: 'Bridges',
      metric: 'quote latency p50',
      unit: 'ms',
      higherIsBetter: false,
      providers: [],
      sparkline: [],
      status: 'draft',
      baseUrl,
    }),
  ];
}

export interface FakePublication extends PublicationApi {
  /** Like the real Publication's synchronous fast path. */
  peekStat(slug: string, filters: Filters | null): Served<Stat> | undefined;
  /** stat() calls so far. */
  readonly calls: number;
  /** Replaces a stat (new ETag) and notifies onChange listeners. */
  update(stat: Stat): void;
}

function served(stat: Stat): Served<Stat> {
  const body = new TextEncoder().encode(JSON.stringify(stat));
  return { value: stat, body, etag: etagOf(body) };
}

/** An in-memory PublicationApi over fixed Stat records. */
export function fakePublication(stats: readonly Stat[]): FakePublication {
  const bySlug = new Map(stats.map((s) => [s.slug, served(s)]));
  const listeners = new Set<(slugs: ReadonlySet<string>) => void>();
  let calls = 0;
  return {
    specs: [],
    get calls() {
      return calls;
    },
    spec: () => undefined,
    resolveFilters: () => ({ ok: true, filters: null }),
    compare: async () => ({ ok: false, status: 404, error: 'no_shared_benchmark', message: 'no providers' }),
    peekStat: (slug: string) => bySlug.get(slug),
    async stat(slug: string, _filters: Filters | null) {
      calls += 1;
      const s = bySlug.get(slug);
      if (!s) throw new UnknownBenchmarkError(slug);
      return s;
    },
    async citable() {
      throw new Error('not used by images');
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    update(stat: Stat) {
      bySlug.set(stat.slug, served(stat));
      for (const l of listeners) l(new Set([stat.slug]));
    },
  };
}
