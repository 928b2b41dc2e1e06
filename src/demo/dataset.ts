import { METRICS } from '../core/metric-names.ts';
import { hash32, prng } from '../core/prng.ts';
import type { Sample } from '../core/samples.ts';

/**
 * A deterministic dataset in the harness's sample shape, for tests and benchmarks (the demo runs
 * real harness cycles instead). Same seed, days and end give the same samples.
 */
export interface DatasetOptions {
  readonly seed: number;
  readonly days: number;
  /** Epoch ms; the last cycle is the newest aligned slot at or before it. */
  readonly end: number;
  /** Probability that a provider's cycle fails (no sample for coverage; 5xx for trades). */
  readonly failureRate?: number;
}

const NETWORK_BASE: Readonly<Record<string, number>> = {
  geckoterminal: 263,
  codex: 133,
  mobula: 78,
  coinpaprika: 307,
  coingecko: 388,
  coinstats: 61,
  covalent: 104,
  'sim-dune': 58,
};

export const TRADE_CELLS: readonly { chain: string; token: string }[] = [
  { chain: 'solana', token: 'BONK' },
  { chain: 'solana', token: 'WIF' },
  { chain: 'ethereum', token: 'PEPE' },
  { chain: 'ethereum', token: 'MOG' },
  { chain: 'bsc', token: 'CAKE' },
  { chain: 'bsc', token: 'FLOKI' },
  { chain: 'base', token: 'BRETT' },
  { chain: 'base', token: 'DEGEN' },
  { chain: 'stellar', token: 'yXLM' },
  { chain: 'stellar', token: 'SHX' },
];

/** Typical share of a cell's trades each provider returns, and which chains it covers. */
const TRADE_PROVIDERS: readonly { slug: string; capture: number; spread: number; stellar: boolean }[] = [
  { slug: 'mobula', capture: 0.985, spread: 0.03, stellar: true },
  { slug: 'bitquery', capture: 0.95, spread: 0.06, stellar: false },
  { slug: 'codex', capture: 0.93, spread: 0.05, stellar: false },
];

const H = 3_600_000;

export function buildDataset(o: DatasetOptions): Sample[] {
  const out: Sample[] = [];
  const fail = o.failureRate ?? 0.02;
  const start = o.end - o.days * 24 * H;

  const netStep = 6 * H;
  for (let t = Math.floor(o.end / netStep) * netStep; t > start; t -= netStep) {
    const r = prng(hash32(`net:${o.seed}:${t}`));
    const dayIndex = Math.floor((t - start) / (24 * H));
    for (const [provider, base] of Object.entries(NETWORK_BASE)) {
      if (r() < fail) continue;
      // Listings grow slowly; the hash keeps the growth per provider deterministic.
      const growth = Math.floor(dayIndex * ((hash32(provider) % 5) / 10));
      out.push({ metric: METRICS.networksSupported, labels: { provider }, t, v: base + growth });
    }
  }

  const tradeStep = 30 * 60_000;
  for (let t = Math.floor(o.end / tradeStep) * tradeStep; t > start; t -= tradeStep) {
    const r = prng(hash32(`trade:${o.seed}:${t}`));
    const failed = new Set(TRADE_PROVIDERS.filter(() => r() < fail).map((p) => p.slug));
    for (const cell of TRADE_CELLS) {
      const truth = 200 + Math.floor(r() * 1800);
      const counts = new Map<string, number>();
      for (const p of TRADE_PROVIDERS) {
        if (cell.chain === 'stellar' && !p.stellar) continue;
        const share = Math.min(1, Math.max(0, p.capture + (r() - 0.5) * 2 * p.spread));
        counts.set(p.slug, failed.has(p.slug) ? 0 : Math.round(truth * share));
      }
      const max = Math.max(0, ...counts.values());
      let union = 0;
      for (const [provider, count] of counts) {
        const labels = { provider, chain: cell.chain, token: cell.token };
        const ok = failed.has(provider) ? 0 : 1;
        out.push({ metric: METRICS.tokenTradeCount, labels, t, v: count });
        // No baseline when every provider returned zero: no capture sample (the 0/0 rule).
        if (max > 0) out.push({ metric: METRICS.tokenTradeCapturePct, labels, t, v: (count / max) * 100 });
        out.push({ metric: METRICS.tokenTradeProbeOk, labels, t, v: ok });
        union = Math.max(union, count);
      }
      out.push({
        metric: METRICS.tokenTradeUnionCount,
        labels: { chain: cell.chain, token: cell.token },
        t,
        v: union,
      });
    }
    for (const p of TRADE_PROVIDERS) {
      out.push({
        metric: METRICS.providerCycle5xx,
        labels: { benchmark: 'token-trade-coverage', provider: p.slug },
        t,
        v: failed.has(p.slug) ? 1 : 0,
      });
    }
  }
  return out;
}
