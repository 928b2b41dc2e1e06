/**
 * The harness under injected provider faults (npm run bench:faults). The simulator fails 50% of
 * requests (FAULT_RATE) with every kind it knows: 5xx, 429 with Retry-After, hangs (timeouts),
 * connection resets before and during the body, truncated, malformed, wrong-shape and empty
 * bodies, huge bodies and slow drips. Real harness cycles run against it while the API serves the
 * same store. Then:
 *  - the service stayed up (GET /healthz polled throughout);
 *  - every fault is classified: injected counts per kind, the harness's failure types from its
 *    CycleReports and fetch_errors_total from /metrics, and failures that were not classified
 *    (an adapter throwing, reported as "unexpected error") must be 0;
 *  - no sample is lost or corrupted: every stored capture rate is recomputed from the stored counts
 *    of its cell, and every published ranking row is recomputed from all stored samples through the
 *    src/core functions and compared with /api/stat;
 *  - the unresponsive marker appears after three cycles of 5xx and clears on the next good cycle,
 *    as src/core/unresponsive.ts derives it from the stored per-cycle samples.
 * Env: FAULT_RATE (0.5), FAULT_CYCLES (24 token-trade cycles, one network cycle per 12), FAULT_SEED.
 */
import { cpus, release } from 'node:os';
import { testConfig } from '../src/config.ts';
import type { RankingRow, Stat } from '../src/core/api-schemas.ts';
import { DAY_MS } from '../src/core/dates.ts';
import { rankRows } from '../src/core/rank-rows.ts';
import { latestRows, type RankedRow, windowRows } from '../src/core/rows.ts';
import type { Sample } from '../src/core/samples.ts';
import { type BenchmarkSpec, durationMs } from '../src/core/spec-schema.ts';
import { unresponsiveProviders } from '../src/core/unresponsive.ts';
import { loadHarnessConfig, simulatorEnv } from '../src/harness/config.ts';
import { METRICS, STORED_METRIC_NAMES } from '../src/harness/families/metric-names.ts';
import type { CycleReport } from '../src/harness/report.ts';
import { startHarness } from '../src/harness/service.ts';
import { createLogger } from '../src/log.ts';
import { defaultRoutes } from '../src/routes.ts';
import { createService } from '../src/service.ts';
import type { Fault } from '../src/sim/faults.ts';
import { startSimulator } from '../src/sim/server.ts';

const RATE = Number(process.env.FAULT_RATE ?? 0.5);
const CYCLES = Number(process.env.FAULT_CYCLES ?? 24);
const SEED = Number(process.env.FAULT_SEED ?? 7);
const TRADE = 'token-trade-coverage';
const NETWORK = 'network-coverage';
const HALF_HOUR = 30 * 60_000;

process.stdout.write(
  `machine: ${cpus()[0]?.model ?? '?'} × ${cpus().length}, node ${process.version}, linux ${release()}\n`,
);
process.stdout.write(`fault rate ${RATE}, ${CYCLES} token-trade cycles, seed ${SEED}\n\n`);

const FAULTS: readonly Fault[] = [
  { kind: 'status', status: 500 },
  { kind: 'status', status: 502 },
  { kind: 'status', status: 503 },
  { kind: 'status', status: 429, retryAfterSec: 1 },
  { kind: 'hang' },
  { kind: 'reset' },
  { kind: 'reset', afterBytes: 64 },
  { kind: 'truncated' },
  { kind: 'malformed' },
  { kind: 'wrong-shape' },
  { kind: 'empty' },
  { kind: 'oversized', bytes: 8 * 1024 * 1024 },
  { kind: 'slow-drip', bytesPerTick: 16, intervalMs: 200 },
];

// Slots end at the last half hour; the service's clock sits just after the last slot run.
const last = Math.floor(Date.now() / HALF_HOUR) * HALF_HOUR;
const first = last - (CYCLES + 4) * HALF_HOUR;
let now = first;
const sim = await startSimulator({ seed: SEED, faultMix: { rate: RATE, faults: FAULTS, seed: SEED } });
const service = await createService({
  config: testConfig({ port: 0, benchmarksDir: 'benchmarks', logLevel: 'silent' }),
  log: createLogger('silent'),
  inMemory: true,
  clock: () => now + 60_000,
  routes: defaultRoutes,
});
const port = await service.listen();
const base = `http://127.0.0.1:${port}`;
const reports: CycleReport[] = [];
const harness = startHarness({
  store: service.store,
  specs: service.specs,
  metrics: service.metrics,
  harnessConfig: loadHarnessConfig(
    simulatorEnv(sim.baseUrls, sim.keys, {
      // Short bounds so hangs and drips resolve quickly; a 429 waits at most 200 ms per retry.
      HARNESS_TIMEOUT_MS: '800',
      HARNESS_MAX_BODY_BYTES: String(4 * 1024 * 1024),
      HARNESS_RETRY_MAX_WAIT_MS: '200',
    }),
  ),
  autoStart: false,
  onCycle: (r) => reports.push(r),
});

// The API must answer throughout.
let polls = 0;
let pollFailures = 0;
let polling = true;
const poller = (async () => {
  while (polling) {
    polls++;
    try {
      const r = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(2000) });
      await r.arrayBuffer();
      if (r.status !== 200) pollFailures++;
    } catch {
      pollFailures++;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
})();

const t0 = performance.now();
for (let i = 0; i < CYCLES; i++) {
  now = first + i * HALF_HOUR;
  if (i % 12 === 0) await harness.runCycle(NETWORK, now);
  await harness.runCycle(TRADE, now);
  process.stderr.write(`\rfault phase: cycle ${i + 1}/${CYCLES}`);
}
process.stderr.write('\n');
const faultSeconds = (performance.now() - t0) / 1000;

// Unresponsive marker: one clean cycle, three cycles of Codex 503s, then a clean one.
sim.setFaultMix(null);
const marker: Array<{ phase: string; reported: boolean; derived: boolean; published: boolean }> = [];
for (const [j, phase] of ['clean', '503', '503', '503', 'clean'].entries()) {
  now = first + (CYCLES + j) * HALF_HOUR;
  sim.setFault('codex', phase === '503' ? { kind: 'status', status: 503 } : null);
  const r = await harness.runCycle(TRADE, now);
  const stored = await service.store.select({
    metric: METRICS.providerCycle5xx,
    matchers: [{ name: 'benchmark', op: '=', value: TRADE }],
    after: now - DAY_MS,
    until: now,
  });
  const stat = (await (await fetch(`${base}/api/stat/${TRADE}`)).json()) as Stat;
  marker.push({
    phase,
    reported: r.unresponsive?.codex === true,
    derived: unresponsiveProviders(stored).has('codex'),
    published: stat.rankings.find((x) => x.slug === 'codex')?.unresponsive === true,
  });
}
sim.setFault('codex', null);
polling = false;
await poller;

// Classification: what was injected, what the harness reported, what /metrics counted.
const injected: Record<string, number> = {};
for (const byLabel of Object.values(sim.stats().faults)) {
  for (const [label, n] of Object.entries(byLabel)) injected[label] = (injected[label] ?? 0) + n;
}
const reportedTypes: Record<string, number> = {};
let unexpected = 0;
let cellOutcomes = 0;
const outcome: Record<string, number> = {};
for (const r of reports) {
  const failures = [
    ...(r.cells ?? []).flatMap((c) => c.providers),
    ...(r.benchmark === NETWORK ? r.providers : []),
  ];
  for (const p of failures) {
    cellOutcomes++;
    outcome[p.status] = (outcome[p.status] ?? 0) + 1;
    if (!p.failure) continue;
    const label = p.failure.type + (p.failure.status ? `-${p.failure.status}` : '');
    reportedTypes[label] = (reportedTypes[label] ?? 0) + 1;
    if (/unexpected error/.test(p.failure.message)) unexpected++;
  }
}
const metricsText = await (await fetch(`${base}/metrics`)).text();
const fetchErrors: Record<string, number> = {};
for (const m of metricsText.matchAll(/^fetch_errors_total\{([^}]*)\} (\d+)/gm)) {
  const type = /error_type="([^"]+)"/.exec(m[1] ?? '')?.[1] ?? '?';
  fetchErrors[type] = (fetchErrors[type] ?? 0) + Number(m[2]);
}
const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);

// Recomputation from every stored sample, through src/core only.
const all = new Map<string, Sample[]>();
for (const metric of STORED_METRIC_NAMES) {
  all.set(metric, await service.store.select({ metric, after: -1, until: Number.MAX_SAFE_INTEGER }));
}
const get = (m: string) => all.get(m) ?? [];
let captureChecked = 0;
let captureMismatch = 0;
{
  const counts = new Map<string, Sample[]>();
  for (const s of get(METRICS.tokenTradeCount)) {
    const k = `${s.labels.chain}|${s.labels.token}|${s.t}`;
    counts.set(k, [...(counts.get(k) ?? []), s]);
  }
  for (const s of get(METRICS.tokenTradeCapturePct)) {
    const cell = counts.get(`${s.labels.chain}|${s.labels.token}|${s.t}`) ?? [];
    const max = Math.max(0, ...cell.map((c) => c.v));
    const own = cell.find((c) => c.labels.provider === s.labels.provider)?.v;
    captureChecked++;
    if (own === undefined || max === 0 || Math.abs((own / max) * 100 - s.v) > 1e-9) captureMismatch++;
  }
}

function recompute(spec: BenchmarkSpec, evalTime: number): RankedRow[] {
  const d = spec.derivation;
  const windowStart = evalTime - DAY_MS;
  const inRange = (s: Sample, after: number) => s.t > after && s.t <= evalTime;
  if (d.mode === 'latest') {
    const latest = new Map<string, Sample>();
    for (const s of get(d.metric)) {
      if (!inRange(s, windowStart)) continue;
      const p = s.labels.provider ?? '';
      const prev = latest.get(p);
      if (!prev || s.t > prev.t) latest.set(p, s);
    }
    return rankRows(latestRows(spec.providers, [...latest.values()]), spec.higherIsBetter);
  }
  const lookback = 2 * durationMs(spec.cadence);
  const values = get(d.metric).filter((s) => inRange(s, windowStart - lookback));
  return rankRows(
    windowRows(
      spec.providers,
      {
        cellLabels: d.cellLabels,
        values: values.filter((s) => s.t > windowStart),
        probes: get(d.probeMetric).filter((s) => inRange(s, windowStart)),
      },
      {
        // The family's extra (trade capture's unresponsive marker), from its own stored cycles.
        unresponsive: unresponsiveProviders(
          get(METRICS.providerCycle5xx).filter(
            (s) => inRange(s, windowStart) && s.labels.benchmark === spec.slug,
          ),
        ),
      },
    ),
    spec.higherIsBetter,
  );
}

const pick = (r: Omit<RankingRow, 'audit'>) => ({
  slug: r.slug,
  rank: r.rank,
  p50: r.ms.p50,
  p90: r.ms.p90,
  mean: r.ms.mean,
  successRate: r.successRate,
  sampleSize: r.sampleSize,
  unresponsive: r.unresponsive ?? false,
});
let rowsChecked = 0;
let rowMismatch = 0;
for (const spec of service.specs) {
  const published = (await (await fetch(`${base}/api/stat/${spec.slug}`)).json()) as Stat;
  const mine = recompute(spec, now + 60_000).map(pick);
  const theirs = published.rankings.map(pick);
  rowsChecked += theirs.length;
  if (JSON.stringify(mine) !== JSON.stringify(theirs)) {
    rowMismatch++;
    process.stdout.write(
      `MISMATCH ${spec.slug}\n recomputed ${JSON.stringify(mine)}\n published  ${JSON.stringify(theirs)}\n`,
    );
  }
}

const lines = [
  `fault phase: ${reports.length} cycles in ${faultSeconds.toFixed(1)} s; simulator served ${sim.stats().requests} requests`,
  `service up: ${polls - pollFailures}/${polls} /healthz polls answered 200`,
  `injected faults (${sum(injected)}): ${JSON.stringify(injected)}`,
  `harness failures in CycleReports (${sum(reportedTypes)}): ${JSON.stringify(reportedTypes)}`,
  `fetch_errors_total in /metrics (${sum(fetchErrors)}): ${JSON.stringify(fetchErrors)}`,
  `provider outcomes (${cellOutcomes}): ${JSON.stringify(outcome)}; unclassified (adapter threw): ${unexpected}`,
  `recomputed ${captureChecked} stored capture rates from stored counts: ${captureMismatch} mismatches`,
  `recomputed ${rowsChecked} published ranking rows from stored samples via src/core: ${rowMismatch} benchmarks differ`,
  `unresponsive marker (codex): ${marker.map((m) => `${m.phase}→${m.reported ? 'marked' : 'clear'}${m.reported === m.derived && m.derived === m.published ? '' : ' (DISAGREES)'}`).join(', ')}`,
];
process.stdout.write(`${lines.join('\n')}\n`);
const markerOk =
  marker.every((m) => m.reported === m.derived && m.derived === m.published) &&
  marker[3]?.reported === true &&
  marker[4]?.reported === false;
const ok =
  pollFailures === 0 &&
  unexpected === 0 &&
  captureMismatch === 0 &&
  rowMismatch === 0 &&
  markerOk &&
  sum(fetchErrors) === sum(reportedTypes);
process.stdout.write(ok ? 'PASS\n' : 'FAIL\n');
await harness.stop();
await service.close();
await sim.close();
process.exit(ok ? 0 : 1);
