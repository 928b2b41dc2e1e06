/**
 * The recompute read pattern of the publication façade on the embedded DuckDB store and on the
 * Prometheus store over real Prometheus and VictoriaMetrics (Debian packages `prometheus`,
 * `victoria-metrics`), with 30 days of history: 3 metrics × 10 cells × 3 providers every 30 min.
 */
import { cpus, platform, release } from 'node:os';
import type { Matcher, Sample } from '../src/core/samples.ts';
import { METRICS } from '../src/harness/families/metric-names.ts';
import { openDuckDbStore } from '../src/store/duckdb-store.ts';
import { openPrometheusStore, type PrometheusStore } from '../src/store/prometheus-store.ts';
import type { SampleStore } from '../src/store/sample-store.ts';
import { type EngineKind, startEngine } from '../test/helpers/engines.ts';

const MIN = 60_000;
const DAY = 86_400_000;
const NOW = Math.floor(Date.now() / (30 * MIN)) * 30 * MIN - 30 * MIN;
const PROVIDERS = ['alpha', 'beta', 'gamma'];
const CELLS = Array.from({ length: 10 }, (_, i) => ({
  chain: ['solana', 'ethereum', 'base'][i % 3] ?? '',
  token: `tok${i}`,
}));
const WINDOW_METRICS = [METRICS.tokenTradeCapturePct, METRICS.tokenTradeCount, METRICS.tokenTradeProbeOk];
const RUNS = 30;

/** One day of cycles per batch: what a backfill sends. */
function days(): Sample[][] {
  const out: Sample[][] = [];
  for (let d = 30; d > 0; d--) {
    const batch: Sample[] = [];
    for (let t = NOW - d * DAY + 30 * MIN; t <= NOW - (d - 1) * DAY; t += 30 * MIN) {
      for (const p of PROVIDERS) {
        for (const c of CELLS) {
          const labels = { provider: p, chain: c.chain, token: c.token };
          batch.push({
            metric: METRICS.tokenTradeCapturePct,
            labels,
            t,
            v: Math.round(Math.random() * 10_000) / 100,
          });
          batch.push({ metric: METRICS.tokenTradeCount, labels, t, v: Math.floor(Math.random() * 500) });
          batch.push({ metric: METRICS.tokenTradeProbeOk, labels, t, v: 1 });
        }
        batch.push({
          metric: METRICS.providerCycle5xx,
          labels: { benchmark: 'token-trade-coverage', provider: p },
          t,
          v: 0,
        });
      }
      if (t % (6 * 60 * MIN) === 0) {
        for (const p of PROVIDERS)
          batch.push({ metric: METRICS.networksSupported, labels: { provider: p }, t, v: 100 });
      }
    }
    out.push(batch);
  }
  return out;
}

/** What computeStat reads for both benchmark modes, at one evaluation time. */
async function recompute(store: SampleStore, at: number): Promise<number> {
  const providers: Matcher = { name: 'provider', op: '=~', value: PROVIDERS.join('|') };
  await store.timeBounds([...WINDOW_METRICS, METRICS.providerCycle5xx]);
  const reads = await Promise.all([
    ...WINDOW_METRICS.map((metric) =>
      store.select({ metric, matchers: [providers], after: at - DAY - 60 * MIN, until: at }),
    ),
    store.latest({ metric: METRICS.providerCycle5xx, matchers: [providers], at, notBefore: at - DAY }),
    store.latest({ metric: METRICS.networksSupported, matchers: [providers], at }),
    store.select({ metric: METRICS.networksSupported, matchers: [providers], after: at - DAY, until: at }),
  ]);
  return reads.reduce((n, r) => n + r.length, 0);
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN;
}

async function measure(name: string, store: SampleStore, counter?: PrometheusStore) {
  const batches = days();
  const total = batches.reduce((n, b) => n + b.length, 0);
  let t0 = performance.now();
  for (const b of batches) await store.append(b);
  const appendMs = performance.now() - t0;
  const cycle = batches.at(-1)?.slice(-3 * 10 * 3) ?? [];
  t0 = performance.now();
  await store.append(cycle.map((s) => ({ ...s, t: s.t + 1 })));
  const cycleMs = performance.now() - t0;
  await recompute(store, NOW); // warm-up
  const times: number[] = [];
  const readsBefore = counter?.http.counts.reads ?? 0;
  let rows = 0;
  for (let i = 0; i < RUNS; i++) {
    t0 = performance.now();
    rows = await recompute(store, NOW - i * 30 * MIN);
    times.push(performance.now() - t0);
  }
  const queries = counter ? (counter.http.counts.reads - readsBefore) / RUNS : null;
  console.log(
    `${name.padEnd(18)} backfill ${total} samples in 30 batches: ${appendMs.toFixed(0)} ms; one cycle (${cycle.length} samples): ${cycleMs.toFixed(1)} ms; ` +
      `recompute (${rows} rows): median ${quantile(times, 0.5).toFixed(1)} ms, p95 ${quantile(times, 0.95).toFixed(1)} ms` +
      (queries === null ? '' : `, ${queries} HTTP queries`),
  );
}

console.log(
  `machine: ${cpus()[0]?.model ?? '?'} × ${cpus().length}, ${platform()} ${release()}, Node ${process.version}`,
);
const duck = await openDuckDbStore({ path: ':memory:', memoryLimit: '256MB' });
await measure('DuckDB (embedded)', duck);
await duck.close();
for (const kind of ['prometheus', 'victoria-metrics'] satisfies EngineKind[]) {
  const engine = await startEngine(kind);
  try {
    const store = await openPrometheusStore({
      url: engine.url,
      ...(kind === 'victoria-metrics' ? { flushUrl: `${engine.url}/internal/force_flush` } : {}),
    });
    await measure(kind, store, store);
    await store.close();
  } finally {
    await engine.destroy();
  }
}
